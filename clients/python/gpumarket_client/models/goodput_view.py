from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GoodputView")


@_attrs_define
class GoodputView:
    """What a machine shows at the load where it meets the objective.

    Attributes:
        context_tokens (int): The measured context the figures come from (the smallest at least the objective's).
        itl_ms_p99 (float): Stutter: the cell's inter-token gap p99, over every token of its window.
        total_tok_s (float): The machine's total output tok/s at that load.
        ttft_ms_p99_estimated (float): Time to first token p99 at that load for a fresh prompt of the objective's
            context:
            estimated (the cell's TTFT p99 plus the prompt's prefill time at the measured rate).
        users (int): Users (concurrent streams) one machine serves within the objective: the largest
            measured concurrency whose cell meets both limits.
        energy_j_per_token (float | None | Unset): Energy per output token at that load, J: the GPUs' energy over the
            cell's window as
            the machine's agent sampled it (`source: agent`); `null` where the report has none.
        ttft_samples (int | None | Unset): The requests behind the cell's TTFT p99 (a p99 of a few samples is near the
            slowest).
    """

    context_tokens: int
    itl_ms_p99: float
    total_tok_s: float
    ttft_ms_p99_estimated: float
    users: int
    energy_j_per_token: float | None | Unset = UNSET
    ttft_samples: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_tokens = self.context_tokens

        itl_ms_p99 = self.itl_ms_p99

        total_tok_s = self.total_tok_s

        ttft_ms_p99_estimated = self.ttft_ms_p99_estimated

        users = self.users

        energy_j_per_token: float | None | Unset
        if isinstance(self.energy_j_per_token, Unset):
            energy_j_per_token = UNSET
        else:
            energy_j_per_token = self.energy_j_per_token

        ttft_samples: int | None | Unset
        if isinstance(self.ttft_samples, Unset):
            ttft_samples = UNSET
        else:
            ttft_samples = self.ttft_samples

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_tokens": context_tokens,
                "itl_ms_p99": itl_ms_p99,
                "total_tok_s": total_tok_s,
                "ttft_ms_p99_estimated": ttft_ms_p99_estimated,
                "users": users,
            }
        )
        if energy_j_per_token is not UNSET:
            field_dict["energy_j_per_token"] = energy_j_per_token
        if ttft_samples is not UNSET:
            field_dict["ttft_samples"] = ttft_samples

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        context_tokens = d.pop("context_tokens")

        itl_ms_p99 = d.pop("itl_ms_p99")

        total_tok_s = d.pop("total_tok_s")

        ttft_ms_p99_estimated = d.pop("ttft_ms_p99_estimated")

        users = d.pop("users")

        def _parse_energy_j_per_token(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        energy_j_per_token = _parse_energy_j_per_token(d.pop("energy_j_per_token", UNSET))

        def _parse_ttft_samples(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttft_samples = _parse_ttft_samples(d.pop("ttft_samples", UNSET))

        goodput_view = cls(
            context_tokens=context_tokens,
            itl_ms_p99=itl_ms_p99,
            total_tok_s=total_tok_s,
            ttft_ms_p99_estimated=ttft_ms_p99_estimated,
            users=users,
            energy_j_per_token=energy_j_per_token,
            ttft_samples=ttft_samples,
        )

        goodput_view.additional_properties = d
        return goodput_view

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
