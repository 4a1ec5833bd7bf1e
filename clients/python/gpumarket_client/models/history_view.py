from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.history_point_view import HistoryPointView


T = TypeVar("T", bound="HistoryView")


@_attrs_define
class HistoryView:
    """
    Attributes:
        bucket (str):
        currency (str):
        from_ (datetime.datetime):
        gpu (str): The catalog GPU's id, or `*`.
        items (list[HistoryPointView]): Oldest first; a bucket appears once it has closed and been rolled up.
        until (datetime.datetime):
    """

    bucket: str
    currency: str
    from_: datetime.datetime
    gpu: str
    items: list[HistoryPointView]
    until: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bucket = self.bucket

        currency = self.currency

        from_ = self.from_.isoformat()

        gpu = self.gpu

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        until = self.until.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bucket": bucket,
                "currency": currency,
                "from": from_,
                "gpu": gpu,
                "items": items,
                "until": until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.history_point_view import HistoryPointView  # noqa: PLC0415

        d = dict(src_dict)
        bucket = d.pop("bucket")

        currency = d.pop("currency")

        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        gpu = d.pop("gpu")

        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = HistoryPointView.from_dict(items_item_data)

            items.append(items_item)

        until = datetime.datetime.fromisoformat(d.pop("until"))

        history_view = cls(
            bucket=bucket,
            currency=currency,
            from_=from_,
            gpu=gpu,
            items=items,
            until=until,
        )

        history_view.additional_properties = d
        return history_view

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
