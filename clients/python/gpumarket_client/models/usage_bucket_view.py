from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="UsageBucketView")


@_attrs_define
class UsageBucketView:
    """A bucket (five minutes, `gateway_bucket_secs`) of the booking's requests through the
    gateway, and what they delivered against the verified report.

        Attributes:
            concurrency_max (int): Most streams open at once.
            credit_minor (int): Credit the bucket earned under the booking's guarantee, in the booking's currency's
                minor units (0 until the bucket is judged, a bucket's length after it ends).
            judged_requests (int): Requests held to the report: streamed, of the listing's model, asking only for what
                the benchmark sends within each value's documented range, at a context and load the
                report measured as valid.
            output_tokens (int):
            prompt_tokens (int):
            rejected_requests (int): Requests that would have been judged but the engine refused (4xx): the renter's own,
                never judged. Over a fifth of the bucket's such requests brings the listing's spot
                check forward.
            requests (int):
            slow_reader (bool): Writes to the client stayed blocked for more than 50 ms: the bucket earns no credit
                (a slow reader slows the stream, not the machine).
            start (datetime.datetime):
            client_stall_ms_max (float | None | Unset): The longest the gateway's writes to the client stayed blocked
                (streams only).
            delivered_fraction (float | None | Unset): Median over the bucket's judged requests of each one's delivered
                share of its cell:
                the smallest of its per-stream speed, its pace after the TTFT allowed, and its TTFT
                against the one allowed (the gateway's own timings; the tokens the renter received:
                the fewest of the engine's usage, the text chunks × the report's tokens per chunk,
                the bytes of text and `max_tokens`). A request the engine failed (5xx, a broken
                stream, one cut before `[DONE]`, an unreadable chunk) delivered 0. `null` with fewer
                than 5 judged requests.
            per_stream_tok_s_p50 (float | None | Unset): Median per-stream output tok/s the gateway saw (streams only).
            ttft_ms_p50 (float | None | Unset): Median time to first token the gateway saw (streams only).
            unjudged_reason (None | str | Unset): Why the bucket was not judged at all: `direct_access` when a booking of
                the same
                machine that reached it directly (SSH or an HTTPS URL) held it during the bucket (its
                renter could load the engine around the gateway); `null` otherwise.
            verified_tok_s (float | None | Unset): The verified per-stream tok/s the bucket's requests are held to: each
                request's cell
                of the report (the time per token interpolated between the measured contexts just
                below and just above its prompt and output, at the smallest measured concurrency at or
                above its own), median over the bucket; `null` when no request ran at a context and
                load the report measured as valid.
    """

    concurrency_max: int
    credit_minor: int
    judged_requests: int
    output_tokens: int
    prompt_tokens: int
    rejected_requests: int
    requests: int
    slow_reader: bool
    start: datetime.datetime
    client_stall_ms_max: float | None | Unset = UNSET
    delivered_fraction: float | None | Unset = UNSET
    per_stream_tok_s_p50: float | None | Unset = UNSET
    ttft_ms_p50: float | None | Unset = UNSET
    unjudged_reason: None | str | Unset = UNSET
    verified_tok_s: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        concurrency_max = self.concurrency_max

        credit_minor = self.credit_minor

        judged_requests = self.judged_requests

        output_tokens = self.output_tokens

        prompt_tokens = self.prompt_tokens

        rejected_requests = self.rejected_requests

        requests = self.requests

        slow_reader = self.slow_reader

        start = self.start.isoformat()

        client_stall_ms_max: float | None | Unset
        if isinstance(self.client_stall_ms_max, Unset):
            client_stall_ms_max = UNSET
        else:
            client_stall_ms_max = self.client_stall_ms_max

        delivered_fraction: float | None | Unset
        if isinstance(self.delivered_fraction, Unset):
            delivered_fraction = UNSET
        else:
            delivered_fraction = self.delivered_fraction

        per_stream_tok_s_p50: float | None | Unset
        if isinstance(self.per_stream_tok_s_p50, Unset):
            per_stream_tok_s_p50 = UNSET
        else:
            per_stream_tok_s_p50 = self.per_stream_tok_s_p50

        ttft_ms_p50: float | None | Unset
        if isinstance(self.ttft_ms_p50, Unset):
            ttft_ms_p50 = UNSET
        else:
            ttft_ms_p50 = self.ttft_ms_p50

        unjudged_reason: None | str | Unset
        if isinstance(self.unjudged_reason, Unset):
            unjudged_reason = UNSET
        else:
            unjudged_reason = self.unjudged_reason

        verified_tok_s: float | None | Unset
        if isinstance(self.verified_tok_s, Unset):
            verified_tok_s = UNSET
        else:
            verified_tok_s = self.verified_tok_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "concurrency_max": concurrency_max,
                "credit_minor": credit_minor,
                "judged_requests": judged_requests,
                "output_tokens": output_tokens,
                "prompt_tokens": prompt_tokens,
                "rejected_requests": rejected_requests,
                "requests": requests,
                "slow_reader": slow_reader,
                "start": start,
            }
        )
        if client_stall_ms_max is not UNSET:
            field_dict["client_stall_ms_max"] = client_stall_ms_max
        if delivered_fraction is not UNSET:
            field_dict["delivered_fraction"] = delivered_fraction
        if per_stream_tok_s_p50 is not UNSET:
            field_dict["per_stream_tok_s_p50"] = per_stream_tok_s_p50
        if ttft_ms_p50 is not UNSET:
            field_dict["ttft_ms_p50"] = ttft_ms_p50
        if unjudged_reason is not UNSET:
            field_dict["unjudged_reason"] = unjudged_reason
        if verified_tok_s is not UNSET:
            field_dict["verified_tok_s"] = verified_tok_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        concurrency_max = d.pop("concurrency_max")

        credit_minor = d.pop("credit_minor")

        judged_requests = d.pop("judged_requests")

        output_tokens = d.pop("output_tokens")

        prompt_tokens = d.pop("prompt_tokens")

        rejected_requests = d.pop("rejected_requests")

        requests = d.pop("requests")

        slow_reader = d.pop("slow_reader")

        start = datetime.datetime.fromisoformat(d.pop("start"))

        def _parse_client_stall_ms_max(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        client_stall_ms_max = _parse_client_stall_ms_max(d.pop("client_stall_ms_max", UNSET))

        def _parse_delivered_fraction(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        delivered_fraction = _parse_delivered_fraction(d.pop("delivered_fraction", UNSET))

        def _parse_per_stream_tok_s_p50(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        per_stream_tok_s_p50 = _parse_per_stream_tok_s_p50(d.pop("per_stream_tok_s_p50", UNSET))

        def _parse_ttft_ms_p50(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ttft_ms_p50 = _parse_ttft_ms_p50(d.pop("ttft_ms_p50", UNSET))

        def _parse_unjudged_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        unjudged_reason = _parse_unjudged_reason(d.pop("unjudged_reason", UNSET))

        def _parse_verified_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        verified_tok_s = _parse_verified_tok_s(d.pop("verified_tok_s", UNSET))

        usage_bucket_view = cls(
            concurrency_max=concurrency_max,
            credit_minor=credit_minor,
            judged_requests=judged_requests,
            output_tokens=output_tokens,
            prompt_tokens=prompt_tokens,
            rejected_requests=rejected_requests,
            requests=requests,
            slow_reader=slow_reader,
            start=start,
            client_stall_ms_max=client_stall_ms_max,
            delivered_fraction=delivered_fraction,
            per_stream_tok_s_p50=per_stream_tok_s_p50,
            ttft_ms_p50=ttft_ms_p50,
            unjudged_reason=unjudged_reason,
            verified_tok_s=verified_tok_s,
        )

        usage_bucket_view.additional_properties = d
        return usage_bucket_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
