from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FrontierView")


@_attrs_define
class FrontierView:
    """One context's throughput–interactivity frontier of each report: its valid decode cells
    as `[per-user tok/s, total tok/s]`, by concurrency.

        Attributes:
            context_tokens (int):
            reports (list[list[list[float]]]): Per report, in the order asked.
    """

    context_tokens: int
    reports: list[list[list[float]]]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_tokens = self.context_tokens

        reports = []
        for reports_item_data in self.reports:
            reports_item = []
            for reports_item_item_data in reports_item_data:
                reports_item_item = reports_item_item_data

                reports_item.append(reports_item_item)

            reports.append(reports_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_tokens": context_tokens,
                "reports": reports,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        context_tokens = d.pop("context_tokens")

        reports = []
        _reports = d.pop("reports")
        for reports_item_data in _reports:
            reports_item = []
            _reports_item = reports_item_data
            for reports_item_item_data in _reports_item:
                reports_item_item = cast(list[float], reports_item_item_data)

                reports_item.append(reports_item_item)

            reports.append(reports_item)

        frontier_view = cls(
            context_tokens=context_tokens,
            reports=reports,
        )

        frontier_view.additional_properties = d
        return frontier_view

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
