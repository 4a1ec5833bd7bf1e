from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UsageTotalsView")


@_attrs_define
class UsageTotalsView:
    """
    Attributes:
        output_tokens (int):
        prompt_tokens (int):
        requests (int):
    """

    output_tokens: int
    prompt_tokens: int
    requests: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        output_tokens = self.output_tokens

        prompt_tokens = self.prompt_tokens

        requests = self.requests

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "output_tokens": output_tokens,
                "prompt_tokens": prompt_tokens,
                "requests": requests,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        output_tokens = d.pop("output_tokens")

        prompt_tokens = d.pop("prompt_tokens")

        requests = d.pop("requests")

        usage_totals_view = cls(
            output_tokens=output_tokens,
            prompt_tokens=prompt_tokens,
            requests=requests,
        )

        usage_totals_view.additional_properties = d
        return usage_totals_view

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
