from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.displaces_view import DisplacesView
    from ..models.money_view import MoneyView
    from ..models.problem import Problem


T = TypeVar("T", bound="QuoteView")


@_attrs_define
class QuoteView:
    """What a booking request would cost and do, were it made now.

    Attributes:
        amount_per_gpu_hour (int): The price per GPU-hour it would be made at: the listing's, or the bid.
        displaces (DisplacesView):
        ends_at (datetime.datetime):
        gpu_count (int):
        holds (bool): Whether it would be made now by the machine's capacity rules (a renter's quota and
            budget are judged when booking). An interruptible request that is outbid does not hold.
        listing_id (UUID):
        starts_at (datetime.datetime):
        tier (str): `on_demand` or `interruptible`.
        total (MoneyView): A money amount in integer minor units.
        bid_per_gpu_hour (int | None | Unset):
        min_bid_per_gpu_hour_now (int | None | Unset): The lowest bid per GPU-hour that would hold now for these GPUs
            over this interval;
            `null` when the listing takes no interruptible bookings or no bid would hold.
        refusal (None | Problem | Unset):
    """

    amount_per_gpu_hour: int
    displaces: DisplacesView
    ends_at: datetime.datetime
    gpu_count: int
    holds: bool
    listing_id: UUID
    starts_at: datetime.datetime
    tier: str
    total: MoneyView
    bid_per_gpu_hour: int | None | Unset = UNSET
    min_bid_per_gpu_hour_now: int | None | Unset = UNSET
    refusal: None | Problem | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.problem import Problem  # noqa: PLC0415

        amount_per_gpu_hour = self.amount_per_gpu_hour

        displaces = self.displaces.to_dict()

        ends_at = self.ends_at.isoformat()

        gpu_count = self.gpu_count

        holds = self.holds

        listing_id = str(self.listing_id)

        starts_at = self.starts_at.isoformat()

        tier = self.tier

        total = self.total.to_dict()

        bid_per_gpu_hour: int | None | Unset
        if isinstance(self.bid_per_gpu_hour, Unset):
            bid_per_gpu_hour = UNSET
        else:
            bid_per_gpu_hour = self.bid_per_gpu_hour

        min_bid_per_gpu_hour_now: int | None | Unset
        if isinstance(self.min_bid_per_gpu_hour_now, Unset):
            min_bid_per_gpu_hour_now = UNSET
        else:
            min_bid_per_gpu_hour_now = self.min_bid_per_gpu_hour_now

        refusal: dict[str, Any] | None | Unset
        if isinstance(self.refusal, Unset):
            refusal = UNSET
        elif isinstance(self.refusal, Problem):
            refusal = self.refusal.to_dict()
        else:
            refusal = self.refusal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_per_gpu_hour": amount_per_gpu_hour,
                "displaces": displaces,
                "ends_at": ends_at,
                "gpu_count": gpu_count,
                "holds": holds,
                "listing_id": listing_id,
                "starts_at": starts_at,
                "tier": tier,
                "total": total,
            }
        )
        if bid_per_gpu_hour is not UNSET:
            field_dict["bid_per_gpu_hour"] = bid_per_gpu_hour
        if min_bid_per_gpu_hour_now is not UNSET:
            field_dict["min_bid_per_gpu_hour_now"] = min_bid_per_gpu_hour_now
        if refusal is not UNSET:
            field_dict["refusal"] = refusal

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.displaces_view import DisplacesView  # noqa: PLC0415
        from ..models.money_view import MoneyView  # noqa: PLC0415
        from ..models.problem import Problem  # noqa: PLC0415

        d = dict(src_dict)
        amount_per_gpu_hour = d.pop("amount_per_gpu_hour")

        displaces = DisplacesView.from_dict(d.pop("displaces"))

        ends_at = datetime.datetime.fromisoformat(d.pop("ends_at"))

        gpu_count = d.pop("gpu_count")

        holds = d.pop("holds")

        listing_id = UUID(d.pop("listing_id"))

        starts_at = datetime.datetime.fromisoformat(d.pop("starts_at"))

        tier = d.pop("tier")

        total = MoneyView.from_dict(d.pop("total"))

        def _parse_bid_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bid_per_gpu_hour = _parse_bid_per_gpu_hour(d.pop("bid_per_gpu_hour", UNSET))

        def _parse_min_bid_per_gpu_hour_now(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        min_bid_per_gpu_hour_now = _parse_min_bid_per_gpu_hour_now(d.pop("min_bid_per_gpu_hour_now", UNSET))

        def _parse_refusal(data: object) -> None | Problem | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                refusal_type_0 = Problem.from_dict(data)

                return refusal_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Problem | Unset, data)

        refusal = _parse_refusal(d.pop("refusal", UNSET))

        quote_view = cls(
            amount_per_gpu_hour=amount_per_gpu_hour,
            displaces=displaces,
            ends_at=ends_at,
            gpu_count=gpu_count,
            holds=holds,
            listing_id=listing_id,
            starts_at=starts_at,
            tier=tier,
            total=total,
            bid_per_gpu_hour=bid_per_gpu_hour,
            min_bid_per_gpu_hour_now=min_bid_per_gpu_hour_now,
            refusal=refusal,
        )

        quote_view.additional_properties = d
        return quote_view

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
