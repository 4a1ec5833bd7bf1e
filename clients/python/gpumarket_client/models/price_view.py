from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PriceView")


@_attrs_define
class PriceView:
    """A price per GPU-hour in integer minor units (cents) of an ISO 4217 currency.

    Attributes:
        amount_per_gpu_hour (int):
        currency (str):
        min_bid_per_gpu_hour (int | None | Unset): The lowest bid per GPU-hour, in the same minor units, it takes for an
            interruptible
            booking; `null`: it takes none.
    """

    amount_per_gpu_hour: int
    currency: str
    min_bid_per_gpu_hour: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount_per_gpu_hour = self.amount_per_gpu_hour

        currency = self.currency

        min_bid_per_gpu_hour: int | None | Unset
        if isinstance(self.min_bid_per_gpu_hour, Unset):
            min_bid_per_gpu_hour = UNSET
        else:
            min_bid_per_gpu_hour = self.min_bid_per_gpu_hour

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_per_gpu_hour": amount_per_gpu_hour,
                "currency": currency,
            }
        )
        if min_bid_per_gpu_hour is not UNSET:
            field_dict["min_bid_per_gpu_hour"] = min_bid_per_gpu_hour

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount_per_gpu_hour = d.pop("amount_per_gpu_hour")

        currency = d.pop("currency")

        def _parse_min_bid_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        min_bid_per_gpu_hour = _parse_min_bid_per_gpu_hour(d.pop("min_bid_per_gpu_hour", UNSET))

        price_view = cls(
            amount_per_gpu_hour=amount_per_gpu_hour,
            currency=currency,
            min_bid_per_gpu_hour=min_bid_per_gpu_hour,
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
