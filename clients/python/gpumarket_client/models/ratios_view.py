from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RatiosView")


@_attrs_define
class RatiosView:
    """Per report, its figure over the first report's.

    Attributes:
        per_request_tok_s (list[float | None]):
        prompt_tok_s (list[float | None]):
        total_tok_s (list[float | None]):
        ttft_ms (list[float | None]):
    """

    per_request_tok_s: list[float | None]
    prompt_tok_s: list[float | None]
    total_tok_s: list[float | None]
    ttft_ms: list[float | None]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        per_request_tok_s = []
        for per_request_tok_s_item_data in self.per_request_tok_s:
            per_request_tok_s_item: float | None
            per_request_tok_s_item = per_request_tok_s_item_data
            per_request_tok_s.append(per_request_tok_s_item)

        prompt_tok_s = []
        for prompt_tok_s_item_data in self.prompt_tok_s:
            prompt_tok_s_item: float | None
            prompt_tok_s_item = prompt_tok_s_item_data
            prompt_tok_s.append(prompt_tok_s_item)

        total_tok_s = []
        for total_tok_s_item_data in self.total_tok_s:
            total_tok_s_item: float | None
            total_tok_s_item = total_tok_s_item_data
            total_tok_s.append(total_tok_s_item)

        ttft_ms = []
        for ttft_ms_item_data in self.ttft_ms:
            ttft_ms_item: float | None
            ttft_ms_item = ttft_ms_item_data
            ttft_ms.append(ttft_ms_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "per_request_tok_s": per_request_tok_s,
                "prompt_tok_s": prompt_tok_s,
                "total_tok_s": total_tok_s,
                "ttft_ms": ttft_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        per_request_tok_s = []
        _per_request_tok_s = d.pop("per_request_tok_s")
        for per_request_tok_s_item_data in _per_request_tok_s:

            def _parse_per_request_tok_s_item(data: object) -> float | None:
                if data is None:
                    return data
                return cast(float | None, data)

            per_request_tok_s_item = _parse_per_request_tok_s_item(per_request_tok_s_item_data)

            per_request_tok_s.append(per_request_tok_s_item)

        prompt_tok_s = []
        _prompt_tok_s = d.pop("prompt_tok_s")
        for prompt_tok_s_item_data in _prompt_tok_s:

            def _parse_prompt_tok_s_item(data: object) -> float | None:
                if data is None:
                    return data
                return cast(float | None, data)

            prompt_tok_s_item = _parse_prompt_tok_s_item(prompt_tok_s_item_data)

            prompt_tok_s.append(prompt_tok_s_item)

        total_tok_s = []
        _total_tok_s = d.pop("total_tok_s")
        for total_tok_s_item_data in _total_tok_s:

            def _parse_total_tok_s_item(data: object) -> float | None:
                if data is None:
                    return data
                return cast(float | None, data)

            total_tok_s_item = _parse_total_tok_s_item(total_tok_s_item_data)

            total_tok_s.append(total_tok_s_item)

        ttft_ms = []
        _ttft_ms = d.pop("ttft_ms")
        for ttft_ms_item_data in _ttft_ms:

            def _parse_ttft_ms_item(data: object) -> float | None:
                if data is None:
                    return data
                return cast(float | None, data)

            ttft_ms_item = _parse_ttft_ms_item(ttft_ms_item_data)

            ttft_ms.append(ttft_ms_item)

        ratios_view = cls(
            per_request_tok_s=per_request_tok_s,
            prompt_tok_s=prompt_tok_s,
            total_tok_s=total_tok_s,
            ttft_ms=ttft_ms,
        )

        ratios_view.additional_properties = d
        return ratios_view

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
