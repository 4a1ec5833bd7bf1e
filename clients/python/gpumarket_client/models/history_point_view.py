from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.price_spread_view import PriceSpreadView


T = TypeVar("T", bound="HistoryPointView")


@_attrs_define
class HistoryPointView:
    """One closed bucket.

    Attributes:
        gpu_hours_booked (float): GPU-hours bookings held during the bucket (a provider's own members' left out).
        gpus_listed (int):
        listings (int): Listings that existed during the bucket, and their GPUs.
        price_per_gpu_hour (PriceSpreadView): The listed price per GPU-hour across listings, minor units.
        start (datetime.datetime):
        clearing_bid_per_gpu_hour (int | None | Unset): The lowest bid per GPU-hour of an interruptible booking that
            held GPUs in the bucket
            (a provider's own members' left out); `null` when none did.
        price_per_mtok_median (float | None | Unset): The median of the listings' verified price per million output
            tokens; `null` when
            none is verified.
    """

    gpu_hours_booked: float
    gpus_listed: int
    listings: int
    price_per_gpu_hour: PriceSpreadView
    start: datetime.datetime
    clearing_bid_per_gpu_hour: int | None | Unset = UNSET
    price_per_mtok_median: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu_hours_booked = self.gpu_hours_booked

        gpus_listed = self.gpus_listed

        listings = self.listings

        price_per_gpu_hour = self.price_per_gpu_hour.to_dict()

        start = self.start.isoformat()

        clearing_bid_per_gpu_hour: int | None | Unset
        if isinstance(self.clearing_bid_per_gpu_hour, Unset):
            clearing_bid_per_gpu_hour = UNSET
        else:
            clearing_bid_per_gpu_hour = self.clearing_bid_per_gpu_hour

        price_per_mtok_median: float | None | Unset
        if isinstance(self.price_per_mtok_median, Unset):
            price_per_mtok_median = UNSET
        else:
            price_per_mtok_median = self.price_per_mtok_median

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_hours_booked": gpu_hours_booked,
                "gpus_listed": gpus_listed,
                "listings": listings,
                "price_per_gpu_hour": price_per_gpu_hour,
                "start": start,
            }
        )
        if clearing_bid_per_gpu_hour is not UNSET:
            field_dict["clearing_bid_per_gpu_hour"] = clearing_bid_per_gpu_hour
        if price_per_mtok_median is not UNSET:
            field_dict["price_per_mtok_median"] = price_per_mtok_median

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.price_spread_view import PriceSpreadView  # noqa: PLC0415

        d = dict(src_dict)
        gpu_hours_booked = d.pop("gpu_hours_booked")

        gpus_listed = d.pop("gpus_listed")

        listings = d.pop("listings")

        price_per_gpu_hour = PriceSpreadView.from_dict(d.pop("price_per_gpu_hour"))

        start = datetime.datetime.fromisoformat(d.pop("start"))

        def _parse_clearing_bid_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        clearing_bid_per_gpu_hour = _parse_clearing_bid_per_gpu_hour(d.pop("clearing_bid_per_gpu_hour", UNSET))

        def _parse_price_per_mtok_median(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        price_per_mtok_median = _parse_price_per_mtok_median(d.pop("price_per_mtok_median", UNSET))

        history_point_view = cls(
            gpu_hours_booked=gpu_hours_booked,
            gpus_listed=gpus_listed,
            listings=listings,
            price_per_gpu_hour=price_per_gpu_hour,
            start=start,
            clearing_bid_per_gpu_hour=clearing_bid_per_gpu_hour,
            price_per_mtok_median=price_per_mtok_median,
        )

        history_point_view.additional_properties = d
        return history_point_view

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
