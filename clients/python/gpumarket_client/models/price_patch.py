from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PricePatch")


@_attrs_define
class PricePatch:
    """
    Attributes:
        amount_per_gpu_hour (int | None | Unset):
        currency (None | str | Unset):
        min_bid_per_gpu_hour (int | None | Unset): The lowest bid it takes for an interruptible booking; `null` stops
            taking them
            (bookings made keep their bids).
    """

    amount_per_gpu_hour: int | None | Unset = UNSET
    currency: None | str | Unset = UNSET
    min_bid_per_gpu_hour: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        amount_per_gpu_hour: int | None | Unset
        if isinstance(self.amount_per_gpu_hour, Unset):
            amount_per_gpu_hour = UNSET
        else:
            amount_per_gpu_hour = self.amount_per_gpu_hour

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        else:
            currency = self.currency

        min_bid_per_gpu_hour: int | None | Unset
        if isinstance(self.min_bid_per_gpu_hour, Unset):
            min_bid_per_gpu_hour = UNSET
        else:
            min_bid_per_gpu_hour = self.min_bid_per_gpu_hour

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if amount_per_gpu_hour is not UNSET:
            field_dict["amount_per_gpu_hour"] = amount_per_gpu_hour
        if currency is not UNSET:
            field_dict["currency"] = currency
        if min_bid_per_gpu_hour is not UNSET:
            field_dict["min_bid_per_gpu_hour"] = min_bid_per_gpu_hour

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_amount_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        amount_per_gpu_hour = _parse_amount_per_gpu_hour(d.pop("amount_per_gpu_hour", UNSET))

        def _parse_currency(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        currency = _parse_currency(d.pop("currency", UNSET))

        def _parse_min_bid_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        min_bid_per_gpu_hour = _parse_min_bid_per_gpu_hour(d.pop("min_bid_per_gpu_hour", UNSET))

        price_patch = cls(
            amount_per_gpu_hour=amount_per_gpu_hour,
            currency=currency,
            min_bid_per_gpu_hour=min_bid_per_gpu_hour,
        )

        return price_patch
