from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ComparedFiguresView")


@_attrs_define
class ComparedFiguresView:
    """A report's figures at one cell.

    Attributes:
        status (str): The standard's status of the cell in this report.
        per_request_tok_s (float | None | Unset):
        prompt_tok_s (float | None | Unset):
        total_tok_s (float | None | Unset):
        ttft_ms (float | None | Unset):
    """

    status: str
    per_request_tok_s: float | None | Unset = UNSET
    prompt_tok_s: float | None | Unset = UNSET
    total_tok_s: float | None | Unset = UNSET
    ttft_ms: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        per_request_tok_s: float | None | Unset
        if isinstance(self.per_request_tok_s, Unset):
            per_request_tok_s = UNSET
        else:
            per_request_tok_s = self.per_request_tok_s

        prompt_tok_s: float | None | Unset
        if isinstance(self.prompt_tok_s, Unset):
            prompt_tok_s = UNSET
        else:
            prompt_tok_s = self.prompt_tok_s

        total_tok_s: float | None | Unset
        if isinstance(self.total_tok_s, Unset):
            total_tok_s = UNSET
        else:
            total_tok_s = self.total_tok_s

        ttft_ms: float | None | Unset
        if isinstance(self.ttft_ms, Unset):
            ttft_ms = UNSET
        else:
            ttft_ms = self.ttft_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
            }
        )
        if per_request_tok_s is not UNSET:
            field_dict["per_request_tok_s"] = per_request_tok_s
        if prompt_tok_s is not UNSET:
            field_dict["prompt_tok_s"] = prompt_tok_s
        if total_tok_s is not UNSET:
            field_dict["total_tok_s"] = total_tok_s
        if ttft_ms is not UNSET:
            field_dict["ttft_ms"] = ttft_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = d.pop("status")

        def _parse_per_request_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        per_request_tok_s = _parse_per_request_tok_s(d.pop("per_request_tok_s", UNSET))

        def _parse_prompt_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        prompt_tok_s = _parse_prompt_tok_s(d.pop("prompt_tok_s", UNSET))

        def _parse_total_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        total_tok_s = _parse_total_tok_s(d.pop("total_tok_s", UNSET))

        def _parse_ttft_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ttft_ms = _parse_ttft_ms(d.pop("ttft_ms", UNSET))

        compared_figures_view = cls(
            status=status,
            per_request_tok_s=per_request_tok_s,
            prompt_tok_s=prompt_tok_s,
            total_tok_s=total_tok_s,
            ttft_ms=ttft_ms,
        )

        compared_figures_view.additional_properties = d
        return compared_figures_view

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
