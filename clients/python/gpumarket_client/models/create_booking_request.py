from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.booking_container_view import BookingContainerView


T = TypeVar("T", bound="CreateBookingRequest")


@_attrs_define
class CreateBookingRequest:
    """
    Attributes:
        ends_at (datetime.datetime):
        gpu_count (int):
        listing_id (UUID):
        starts_at (datetime.datetime): Start of the half-open interval `[starts_at, ends_at)`, RFC 3339.
        bid_per_gpu_hour (int | None | Unset): An interruptible booking's bid per GPU-hour, in the listing's currency's
            minor units: at
            least its `price.min_bid_per_gpu_hour` (422 naming the field otherwise).
        container (BookingContainerView | None | Unset):
        direct_access (bool | None | Unset): Give the booking the machine's SSH and HTTPS access, where the listing has
            them
            (default `true`). `false` waives them: only the gateway reaches the engine, and the
            booking carries the listing's performance guarantee (a booking with direct access
            has none: `no_guarantee_reason: "direct_access"`).
        expected_amount_per_gpu_hour (int | None | Unset): The price per GPU-hour you expect to pay, in the listing's
            currency's minor units (as
            its `price.amount_per_gpu_hour` showed it): if the listing asks another now, 409
            `price_changed` with `price`, the price now, and nothing is booked.
        stop_when_idle_secs (int | None | Unset): End the booking when no gateway request has been made for this many
            seconds (60 to
            604,800): it is then cancelled as you would cancel it, with the same refund. Only for a
            booking reached through the gateway alone (`direct_access: false`; 422 naming
            `stop_when_idle_secs` otherwise). An open stream is never idle.
        tier (None | str | Unset): `on_demand` (the default) or `interruptible`. An interruptible booking is priced at
            its
            `bid_per_gpu_hour` and holds its GPUs until an on-demand booking or a higher bid needs
            them: displaced after its start, it keeps them for the notice (`[payments]
            interrupt_notice_secs`) and is refunded the rest; before, it ends at once refunded in
            full. It carries no performance guarantee (`no_guarantee_reason: "interruptible"`).
    """

    ends_at: datetime.datetime
    gpu_count: int
    listing_id: UUID
    starts_at: datetime.datetime
    bid_per_gpu_hour: int | None | Unset = UNSET
    container: BookingContainerView | None | Unset = UNSET
    direct_access: bool | None | Unset = UNSET
    expected_amount_per_gpu_hour: int | None | Unset = UNSET
    stop_when_idle_secs: int | None | Unset = UNSET
    tier: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.booking_container_view import BookingContainerView  # noqa: PLC0415

        ends_at = self.ends_at.isoformat()

        gpu_count = self.gpu_count

        listing_id = str(self.listing_id)

        starts_at = self.starts_at.isoformat()

        bid_per_gpu_hour: int | None | Unset
        if isinstance(self.bid_per_gpu_hour, Unset):
            bid_per_gpu_hour = UNSET
        else:
            bid_per_gpu_hour = self.bid_per_gpu_hour

        container: dict[str, Any] | None | Unset
        if isinstance(self.container, Unset):
            container = UNSET
        elif isinstance(self.container, BookingContainerView):
            container = self.container.to_dict()
        else:
            container = self.container

        direct_access: bool | None | Unset
        if isinstance(self.direct_access, Unset):
            direct_access = UNSET
        else:
            direct_access = self.direct_access

        expected_amount_per_gpu_hour: int | None | Unset
        if isinstance(self.expected_amount_per_gpu_hour, Unset):
            expected_amount_per_gpu_hour = UNSET
        else:
            expected_amount_per_gpu_hour = self.expected_amount_per_gpu_hour

        stop_when_idle_secs: int | None | Unset
        if isinstance(self.stop_when_idle_secs, Unset):
            stop_when_idle_secs = UNSET
        else:
            stop_when_idle_secs = self.stop_when_idle_secs

        tier: None | str | Unset
        if isinstance(self.tier, Unset):
            tier = UNSET
        else:
            tier = self.tier

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ends_at": ends_at,
                "gpu_count": gpu_count,
                "listing_id": listing_id,
                "starts_at": starts_at,
            }
        )
        if bid_per_gpu_hour is not UNSET:
            field_dict["bid_per_gpu_hour"] = bid_per_gpu_hour
        if container is not UNSET:
            field_dict["container"] = container
        if direct_access is not UNSET:
            field_dict["direct_access"] = direct_access
        if expected_amount_per_gpu_hour is not UNSET:
            field_dict["expected_amount_per_gpu_hour"] = expected_amount_per_gpu_hour
        if stop_when_idle_secs is not UNSET:
            field_dict["stop_when_idle_secs"] = stop_when_idle_secs
        if tier is not UNSET:
            field_dict["tier"] = tier

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking_container_view import BookingContainerView  # noqa: PLC0415

        d = dict(src_dict)
        ends_at = datetime.datetime.fromisoformat(d.pop("ends_at"))

        gpu_count = d.pop("gpu_count")

        listing_id = UUID(d.pop("listing_id"))

        starts_at = datetime.datetime.fromisoformat(d.pop("starts_at"))

        def _parse_bid_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bid_per_gpu_hour = _parse_bid_per_gpu_hour(d.pop("bid_per_gpu_hour", UNSET))

        def _parse_container(data: object) -> BookingContainerView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                container_type_0 = BookingContainerView.from_dict(data)

                return container_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BookingContainerView | None | Unset, data)

        container = _parse_container(d.pop("container", UNSET))

        def _parse_direct_access(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        direct_access = _parse_direct_access(d.pop("direct_access", UNSET))

        def _parse_expected_amount_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expected_amount_per_gpu_hour = _parse_expected_amount_per_gpu_hour(d.pop("expected_amount_per_gpu_hour", UNSET))

        def _parse_stop_when_idle_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        stop_when_idle_secs = _parse_stop_when_idle_secs(d.pop("stop_when_idle_secs", UNSET))

        def _parse_tier(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tier = _parse_tier(d.pop("tier", UNSET))

        create_booking_request = cls(
            ends_at=ends_at,
            gpu_count=gpu_count,
            listing_id=listing_id,
            starts_at=starts_at,
            bid_per_gpu_hour=bid_per_gpu_hour,
            container=container,
            direct_access=direct_access,
            expected_amount_per_gpu_hour=expected_amount_per_gpu_hour,
            stop_when_idle_secs=stop_when_idle_secs,
            tier=tier,
        )

        return create_booking_request
