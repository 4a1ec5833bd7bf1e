from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PriceSpreadView")


@_attrs_define
class PriceSpreadView:
    """The listed price per GPU-hour across listings, minor units.

    Attributes:
        currency (str):
        median (int):
        p10 (int):
        p90 (int):
    """

    currency: str
    median: int
    p10: int
    p90: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        currency = self.currency

        median = self.median

        p10 = self.p10

        p90 = self.p90

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "currency": currency,
                "median": median,
                "p10": p10,
                "p90": p90,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        currency = d.pop("currency")

        median = d.pop("median")

        p10 = d.pop("p10")

        p90 = d.pop("p90")

        price_spread_view = cls(
            currency=currency,
            median=median,
            p10=p10,
            p90=p90,
        )

        price_spread_view.additional_properties = d
        return price_spread_view

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
