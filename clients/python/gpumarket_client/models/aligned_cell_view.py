from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.compared_figures_view import ComparedFiguresView
    from ..models.ratios_view import RatiosView


T = TypeVar("T", bound="AlignedCellView")


@_attrs_define
class AlignedCellView:
    """
    Attributes:
        concurrency (int):
        context_tokens (int):
        differs (list[str]): The figures that differ by more than 5 % between any two reports that carry them.
        phase (str): `prefill` or `decode`.
        ratios (RatiosView): Per report, its figure over the first report's.
        reports (list[ComparedFiguresView | None]): Per report, in the order asked: its figures, or `null` when it has
            no such cell.
    """

    concurrency: int
    context_tokens: int
    differs: list[str]
    phase: str
    ratios: RatiosView
    reports: list[ComparedFiguresView | None]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.compared_figures_view import ComparedFiguresView  # noqa: PLC0415

        concurrency = self.concurrency

        context_tokens = self.context_tokens

        differs = self.differs

        phase = self.phase

        ratios = self.ratios.to_dict()

        reports = []
        for reports_item_data in self.reports:
            reports_item: dict[str, Any] | None
            if isinstance(reports_item_data, ComparedFiguresView):
                reports_item = reports_item_data.to_dict()
            else:
                reports_item = reports_item_data
            reports.append(reports_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "concurrency": concurrency,
                "context_tokens": context_tokens,
                "differs": differs,
                "phase": phase,
                "ratios": ratios,
                "reports": reports,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compared_figures_view import ComparedFiguresView  # noqa: PLC0415
        from ..models.ratios_view import RatiosView  # noqa: PLC0415

        d = dict(src_dict)
        concurrency = d.pop("concurrency")

        context_tokens = d.pop("context_tokens")

        differs = cast(list[str], d.pop("differs"))

        phase = d.pop("phase")

        ratios = RatiosView.from_dict(d.pop("ratios"))

        reports = []
        _reports = d.pop("reports")
        for reports_item_data in _reports:

            def _parse_reports_item(data: object) -> ComparedFiguresView | None:
                if data is None:
                    return data
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    reports_item_type_0 = ComparedFiguresView.from_dict(data)

                    return reports_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(ComparedFiguresView | None, data)

            reports_item = _parse_reports_item(reports_item_data)

            reports.append(reports_item)

        aligned_cell_view = cls(
            concurrency=concurrency,
            context_tokens=context_tokens,
            differs=differs,
            phase=phase,
            ratios=ratios,
            reports=reports,
        )

        aligned_cell_view.additional_properties = d
        return aligned_cell_view

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
