from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.ledger_entry_view import LedgerEntryView
    from ..models.total_view import TotalView


T = TypeVar("T", bound="StatementView")


@_attrs_define
class StatementView:
    """
    Attributes:
        entries (list[LedgerEntryView]):
        totals (list[TotalView]): Sums of the entries that count, per currency.
    """

    entries: list[LedgerEntryView]
    totals: list[TotalView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        totals = []
        for totals_item_data in self.totals:
            totals_item = totals_item_data.to_dict()
            totals.append(totals_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entries": entries,
                "totals": totals,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ledger_entry_view import LedgerEntryView  # noqa: PLC0415
        from ..models.total_view import TotalView  # noqa: PLC0415

        d = dict(src_dict)
        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = LedgerEntryView.from_dict(entries_item_data)

            entries.append(entries_item)

        totals = []
        _totals = d.pop("totals")
        for totals_item_data in _totals:
            totals_item = TotalView.from_dict(totals_item_data)

            totals.append(totals_item)

        statement_view = cls(
            entries=entries,
            totals=totals,
        )

        statement_view.additional_properties = d
        return statement_view

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
