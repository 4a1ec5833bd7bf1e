from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PredictedView")


@_attrs_define
class PredictedView:
    """
    Attributes:
        memory_bound (bool): Whether memory bandwidth (not tensor throughput) bounds a step.
        per_stream_tok_s (float):
        total_tok_s (float):
    """

    memory_bound: bool
    per_stream_tok_s: float
    total_tok_s: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        memory_bound = self.memory_bound

        per_stream_tok_s = self.per_stream_tok_s

        total_tok_s = self.total_tok_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "memory_bound": memory_bound,
                "per_stream_tok_s": per_stream_tok_s,
                "total_tok_s": total_tok_s,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        memory_bound = d.pop("memory_bound")

        per_stream_tok_s = d.pop("per_stream_tok_s")

        total_tok_s = d.pop("total_tok_s")

        predicted_view = cls(
            memory_bound=memory_bound,
            per_stream_tok_s=per_stream_tok_s,
            total_tok_s=total_tok_s,
        )

        predicted_view.additional_properties = d
        return predicted_view

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
