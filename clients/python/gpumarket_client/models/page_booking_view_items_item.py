from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bid_raise_view import BidRaiseView
    from ..models.booking_container_view import BookingContainerView
    from ..models.booking_guarantee_view import BookingGuaranteeView
    from ..models.displacement_view import DisplacementView
    from ..models.interruption_view import InterruptionView
    from ..models.money_view import MoneyView
    from ..models.payment_view import PaymentView


T = TypeVar("T", bound="PageBookingViewItemsItem")


@_attrs_define
class PageBookingViewItemsItem:
    """
    Attributes:
        access_until (datetime.datetime): When its access ends: `ends_at`, which for an interruptible booking displaced
            after its
            start is its notice's end (`displacement.booked_ends_at` keeps the end it was booked for).
        created_at (datetime.datetime):
        direct_access (bool): Whether the booking is given the machine's SSH and HTTPS access: `false` when it
            waived them, or the listing had none when the booking was made (fixed then).
        ends_at (datetime.datetime):
        gpu_count (int):
        id (UUID):
        interruptions (list[InterruptionView]): What the provider's maintenance windows took of it, oldest first: the
            booking keeps its
            interval, has no access over each (the gateway refuses, the access token is inactive)
            and is given back the share of its price each took.
        listing_id (UUID):
        listing_verification_state (str): The booked listing's badge now: `unverified`, `verified`, `expired` or
            `demoted` (a
            spot check found the machine or engine no longer as verified).
        payment (PaymentView): How a booking is paid. With no payment provider configured, `provider` is `none` and the
            booking is confirmed at once. With `stripe`, the renter completes the PaymentIntent with
            `client_secret` (shown while the booking waits for its payment) and the booking is
            confirmed when Stripe reports the payment.
        price (MoneyView): A money amount in integer minor units.
        renter_id (UUID):
        starts_at (datetime.datetime):
        status (str): `pending_payment`, `confirmed`, `active`, `completed`, `cancelled`, `expired`,
            `interrupting` (displaced after its start: access until `ends_at`) or `interrupted`.
        tier (str): `on_demand` or `interruptible`.
        amount_per_gpu_hour (int | None | Unset): The price per GPU-hour in force, in `price`'s minor units: the
            listing's when booked on
            demand, the bid for an interruptible booking (raised by `PATCH`); `null` for bookings
            made before it was recorded.
        bid_per_gpu_hour (int | None | Unset): An interruptible booking's bid per GPU-hour (the one in force); `null` on
            demand.
        bid_raise (BidRaiseView | None | Unset):
        cancelled_at (datetime.datetime | None | Unset):
        container (BookingContainerView | None | Unset):
        displacement (DisplacementView | None | Unset):
        guarantee (BookingGuaranteeView | None | Unset):
        min_bid_per_gpu_hour_now (int | None | Unset): The lowest bid per GPU-hour at which GPUs like this booking's
            (over what is left of
            its interval, its own not counted) would hold now against the machine's bookings; `null`
            when the listing takes no interruptible bookings, no bid would hold, or the booking is
            over. A renter whose bid is below it would not get these GPUs today.
        no_guarantee_reason (None | str | Unset): Why `guarantee` is `null`: `listing_offers_none`,
            `listing_not_verified`,
            `direct_access` (the booking reaches the machine by SSH or an HTTPS URL, around the
            gateway) or `interruptible`; `null` with a guarantee.
        plan_id (None | Unset | UUID): The plan it was booked in (`POST /v1/offers/book`), with the plan's other
            bookings.
        refund (MoneyView | None | Unset):
        stop_when_idle_secs (int | None | Unset): The seconds without a gateway request after which it ends (cancelled
            as its renter
            would, with the same refund); `null` when it asked for none.
    """

    access_until: datetime.datetime
    created_at: datetime.datetime
    direct_access: bool
    ends_at: datetime.datetime
    gpu_count: int
    id: UUID
    interruptions: list[InterruptionView]
    listing_id: UUID
    listing_verification_state: str
    payment: PaymentView
    price: MoneyView
    renter_id: UUID
    starts_at: datetime.datetime
    status: str
    tier: str
    amount_per_gpu_hour: int | None | Unset = UNSET
    bid_per_gpu_hour: int | None | Unset = UNSET
    bid_raise: BidRaiseView | None | Unset = UNSET
    cancelled_at: datetime.datetime | None | Unset = UNSET
    container: BookingContainerView | None | Unset = UNSET
    displacement: DisplacementView | None | Unset = UNSET
    guarantee: BookingGuaranteeView | None | Unset = UNSET
    min_bid_per_gpu_hour_now: int | None | Unset = UNSET
    no_guarantee_reason: None | str | Unset = UNSET
    plan_id: None | Unset | UUID = UNSET
    refund: MoneyView | None | Unset = UNSET
    stop_when_idle_secs: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.bid_raise_view import BidRaiseView  # noqa: PLC0415
        from ..models.booking_container_view import BookingContainerView  # noqa: PLC0415
        from ..models.booking_guarantee_view import BookingGuaranteeView  # noqa: PLC0415
        from ..models.displacement_view import DisplacementView  # noqa: PLC0415
        from ..models.money_view import MoneyView  # noqa: PLC0415

        access_until = self.access_until.isoformat()

        created_at = self.created_at.isoformat()

        direct_access = self.direct_access

        ends_at = self.ends_at.isoformat()

        gpu_count = self.gpu_count

        id = str(self.id)

        interruptions = []
        for interruptions_item_data in self.interruptions:
            interruptions_item = interruptions_item_data.to_dict()
            interruptions.append(interruptions_item)

        listing_id = str(self.listing_id)

        listing_verification_state = self.listing_verification_state

        payment = self.payment.to_dict()

        price = self.price.to_dict()

        renter_id = str(self.renter_id)

        starts_at = self.starts_at.isoformat()

        status = self.status

        tier = self.tier

        amount_per_gpu_hour: int | None | Unset
        if isinstance(self.amount_per_gpu_hour, Unset):
            amount_per_gpu_hour = UNSET
        else:
            amount_per_gpu_hour = self.amount_per_gpu_hour

        bid_per_gpu_hour: int | None | Unset
        if isinstance(self.bid_per_gpu_hour, Unset):
            bid_per_gpu_hour = UNSET
        else:
            bid_per_gpu_hour = self.bid_per_gpu_hour

        bid_raise: dict[str, Any] | None | Unset
        if isinstance(self.bid_raise, Unset):
            bid_raise = UNSET
        elif isinstance(self.bid_raise, BidRaiseView):
            bid_raise = self.bid_raise.to_dict()
        else:
            bid_raise = self.bid_raise

        cancelled_at: None | str | Unset
        if isinstance(self.cancelled_at, Unset):
            cancelled_at = UNSET
        elif isinstance(self.cancelled_at, datetime.datetime):
            cancelled_at = self.cancelled_at.isoformat()
        else:
            cancelled_at = self.cancelled_at

        container: dict[str, Any] | None | Unset
        if isinstance(self.container, Unset):
            container = UNSET
        elif isinstance(self.container, BookingContainerView):
            container = self.container.to_dict()
        else:
            container = self.container

        displacement: dict[str, Any] | None | Unset
        if isinstance(self.displacement, Unset):
            displacement = UNSET
        elif isinstance(self.displacement, DisplacementView):
            displacement = self.displacement.to_dict()
        else:
            displacement = self.displacement

        guarantee: dict[str, Any] | None | Unset
        if isinstance(self.guarantee, Unset):
            guarantee = UNSET
        elif isinstance(self.guarantee, BookingGuaranteeView):
            guarantee = self.guarantee.to_dict()
        else:
            guarantee = self.guarantee

        min_bid_per_gpu_hour_now: int | None | Unset
        if isinstance(self.min_bid_per_gpu_hour_now, Unset):
            min_bid_per_gpu_hour_now = UNSET
        else:
            min_bid_per_gpu_hour_now = self.min_bid_per_gpu_hour_now

        no_guarantee_reason: None | str | Unset
        if isinstance(self.no_guarantee_reason, Unset):
            no_guarantee_reason = UNSET
        else:
            no_guarantee_reason = self.no_guarantee_reason

        plan_id: None | str | Unset
        if isinstance(self.plan_id, Unset):
            plan_id = UNSET
        elif isinstance(self.plan_id, UUID):
            plan_id = str(self.plan_id)
        else:
            plan_id = self.plan_id

        refund: dict[str, Any] | None | Unset
        if isinstance(self.refund, Unset):
            refund = UNSET
        elif isinstance(self.refund, MoneyView):
            refund = self.refund.to_dict()
        else:
            refund = self.refund

        stop_when_idle_secs: int | None | Unset
        if isinstance(self.stop_when_idle_secs, Unset):
            stop_when_idle_secs = UNSET
        else:
            stop_when_idle_secs = self.stop_when_idle_secs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "access_until": access_until,
                "created_at": created_at,
                "direct_access": direct_access,
                "ends_at": ends_at,
                "gpu_count": gpu_count,
                "id": id,
                "interruptions": interruptions,
                "listing_id": listing_id,
                "listing_verification_state": listing_verification_state,
                "payment": payment,
                "price": price,
                "renter_id": renter_id,
                "starts_at": starts_at,
                "status": status,
                "tier": tier,
            }
        )
        if amount_per_gpu_hour is not UNSET:
            field_dict["amount_per_gpu_hour"] = amount_per_gpu_hour
        if bid_per_gpu_hour is not UNSET:
            field_dict["bid_per_gpu_hour"] = bid_per_gpu_hour
        if bid_raise is not UNSET:
            field_dict["bid_raise"] = bid_raise
        if cancelled_at is not UNSET:
            field_dict["cancelled_at"] = cancelled_at
        if container is not UNSET:
            field_dict["container"] = container
        if displacement is not UNSET:
            field_dict["displacement"] = displacement
        if guarantee is not UNSET:
            field_dict["guarantee"] = guarantee
        if min_bid_per_gpu_hour_now is not UNSET:
            field_dict["min_bid_per_gpu_hour_now"] = min_bid_per_gpu_hour_now
        if no_guarantee_reason is not UNSET:
            field_dict["no_guarantee_reason"] = no_guarantee_reason
        if plan_id is not UNSET:
            field_dict["plan_id"] = plan_id
        if refund is not UNSET:
            field_dict["refund"] = refund
        if stop_when_idle_secs is not UNSET:
            field_dict["stop_when_idle_secs"] = stop_when_idle_secs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bid_raise_view import BidRaiseView  # noqa: PLC0415
        from ..models.booking_container_view import BookingContainerView  # noqa: PLC0415
        from ..models.booking_guarantee_view import BookingGuaranteeView  # noqa: PLC0415
        from ..models.displacement_view import DisplacementView  # noqa: PLC0415
        from ..models.interruption_view import InterruptionView  # noqa: PLC0415
        from ..models.money_view import MoneyView  # noqa: PLC0415
        from ..models.payment_view import PaymentView  # noqa: PLC0415

        d = dict(src_dict)
        access_until = datetime.datetime.fromisoformat(d.pop("access_until"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        direct_access = d.pop("direct_access")

        ends_at = datetime.datetime.fromisoformat(d.pop("ends_at"))

        gpu_count = d.pop("gpu_count")

        id = UUID(d.pop("id"))

        interruptions = []
        _interruptions = d.pop("interruptions")
        for interruptions_item_data in _interruptions:
            interruptions_item = InterruptionView.from_dict(interruptions_item_data)

            interruptions.append(interruptions_item)

        listing_id = UUID(d.pop("listing_id"))

        listing_verification_state = d.pop("listing_verification_state")

        payment = PaymentView.from_dict(d.pop("payment"))

        price = MoneyView.from_dict(d.pop("price"))

        renter_id = UUID(d.pop("renter_id"))

        starts_at = datetime.datetime.fromisoformat(d.pop("starts_at"))

        status = d.pop("status")

        tier = d.pop("tier")

        def _parse_amount_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        amount_per_gpu_hour = _parse_amount_per_gpu_hour(d.pop("amount_per_gpu_hour", UNSET))

        def _parse_bid_per_gpu_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bid_per_gpu_hour = _parse_bid_per_gpu_hour(d.pop("bid_per_gpu_hour", UNSET))

        def _parse_bid_raise(data: object) -> BidRaiseView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                bid_raise_type_0 = BidRaiseView.from_dict(data)

                return bid_raise_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BidRaiseView | None | Unset, data)

        bid_raise = _parse_bid_raise(d.pop("bid_raise", UNSET))

        def _parse_cancelled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cancelled_at_type_0 = datetime.datetime.fromisoformat(data)

                return cancelled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        cancelled_at = _parse_cancelled_at(d.pop("cancelled_at", UNSET))

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

        def _parse_displacement(data: object) -> DisplacementView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                displacement_type_0 = DisplacementView.from_dict(data)

                return displacement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DisplacementView | None | Unset, data)

        displacement = _parse_displacement(d.pop("displacement", UNSET))

        def _parse_guarantee(data: object) -> BookingGuaranteeView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                guarantee_type_0 = BookingGuaranteeView.from_dict(data)

                return guarantee_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BookingGuaranteeView | None | Unset, data)

        guarantee = _parse_guarantee(d.pop("guarantee", UNSET))

        def _parse_min_bid_per_gpu_hour_now(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        min_bid_per_gpu_hour_now = _parse_min_bid_per_gpu_hour_now(d.pop("min_bid_per_gpu_hour_now", UNSET))

        def _parse_no_guarantee_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        no_guarantee_reason = _parse_no_guarantee_reason(d.pop("no_guarantee_reason", UNSET))

        def _parse_plan_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                plan_id_type_0 = UUID(data)

                return plan_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        plan_id = _parse_plan_id(d.pop("plan_id", UNSET))

        def _parse_refund(data: object) -> MoneyView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                refund_type_0 = MoneyView.from_dict(data)

                return refund_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MoneyView | None | Unset, data)

        refund = _parse_refund(d.pop("refund", UNSET))

        def _parse_stop_when_idle_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        stop_when_idle_secs = _parse_stop_when_idle_secs(d.pop("stop_when_idle_secs", UNSET))

        page_booking_view_items_item = cls(
            access_until=access_until,
            created_at=created_at,
            direct_access=direct_access,
            ends_at=ends_at,
            gpu_count=gpu_count,
            id=id,
            interruptions=interruptions,
            listing_id=listing_id,
            listing_verification_state=listing_verification_state,
            payment=payment,
            price=price,
            renter_id=renter_id,
            starts_at=starts_at,
            status=status,
            tier=tier,
            amount_per_gpu_hour=amount_per_gpu_hour,
            bid_per_gpu_hour=bid_per_gpu_hour,
            bid_raise=bid_raise,
            cancelled_at=cancelled_at,
            container=container,
            displacement=displacement,
            guarantee=guarantee,
            min_bid_per_gpu_hour_now=min_bid_per_gpu_hour_now,
            no_guarantee_reason=no_guarantee_reason,
            plan_id=plan_id,
            refund=refund,
            stop_when_idle_secs=stop_when_idle_secs,
        )

        page_booking_view_items_item.additional_properties = d
        return page_booking_view_items_item

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
