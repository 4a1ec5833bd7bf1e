from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.aligned_cell_view import AlignedCellView
    from ..models.compared_report_view import ComparedReportView
    from ..models.frontier_view import FrontierView


T = TypeVar("T", bound="ComparisonView")


@_attrs_define
class ComparisonView:
    """
    Attributes:
        cells (list[AlignedCellView]): Prefill entries first, then decode cells, by context and concurrency.
        frontiers (list[FrontierView]):
        reports (list[ComparedReportView]):
    """

    cells: list[AlignedCellView]
    frontiers: list[FrontierView]
    reports: list[ComparedReportView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cells = []
        for cells_item_data in self.cells:
            cells_item = cells_item_data.to_dict()
            cells.append(cells_item)

        frontiers = []
        for frontiers_item_data in self.frontiers:
            frontiers_item = frontiers_item_data.to_dict()
            frontiers.append(frontiers_item)

        reports = []
        for reports_item_data in self.reports:
            reports_item = reports_item_data.to_dict()
            reports.append(reports_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cells": cells,
                "frontiers": frontiers,
                "reports": reports,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.aligned_cell_view import AlignedCellView  # noqa: PLC0415
        from ..models.compared_report_view import ComparedReportView  # noqa: PLC0415
        from ..models.frontier_view import FrontierView  # noqa: PLC0415

        d = dict(src_dict)
        cells = []
        _cells = d.pop("cells")
        for cells_item_data in _cells:
            cells_item = AlignedCellView.from_dict(cells_item_data)

            cells.append(cells_item)

        frontiers = []
        _frontiers = d.pop("frontiers")
        for frontiers_item_data in _frontiers:
            frontiers_item = FrontierView.from_dict(frontiers_item_data)

            frontiers.append(frontiers_item)

        reports = []
        _reports = d.pop("reports")
        for reports_item_data in _reports:
            reports_item = ComparedReportView.from_dict(reports_item_data)

            reports.append(reports_item)

        comparison_view = cls(
            cells=cells,
            frontiers=frontiers,
            reports=reports,
        )

        comparison_view.additional_properties = d
        return comparison_view

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
