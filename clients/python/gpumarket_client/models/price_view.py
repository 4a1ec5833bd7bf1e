from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PriceView")


@_attrs_define
class PriceView:
    """A price per GPU-hour in integer minor units (cents) of an ISO 4217 currency.

    Attributes:
        amount_per_gpu_hour (int):
        currency (str):
    """

    amount_per_gpu_hour: int
    currency: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount_per_gpu_hour = self.amount_per_gpu_hour

        currency = self.currency

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_per_gpu_hour": amount_per_gpu_hour,
                "currency": currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount_per_gpu_hour = d.pop("amount_per_gpu_hour")

        currency = d.pop("currency")

        price_view = cls(
            amount_per_gpu_hour=amount_per_gpu_hour,
            currency=currency,
        )

        price_view.additional_properties = d
        return price_view

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
