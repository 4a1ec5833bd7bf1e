from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.payment_view import PaymentView


T = TypeVar("T", bound="BidRaiseView")


@_attrs_define
class BidRaiseView:
    """A raise of a paid interruptible booking's bid, charged for the difference as a
    PaymentIntent of its own. Until it is paid the old bid holds; paid, it is in force (the
    booking's `price`, `payment.amount` and `payment.platform_fee` then include it, and refunds
    come from its PaymentIntent first).

        Attributes:
            bid_per_gpu_hour (int): The bid asked for, minor units per GPU-hour.
            created_at (datetime.datetime):
            hold_expires_at (datetime.datetime):
            payment (PaymentView): How a booking is paid. With no payment provider configured, `provider` is `none` and the
                booking is confirmed at once. With `stripe`, the renter completes the PaymentIntent with
                `client_secret` (shown while the booking waits for its payment) and the booking is
                confirmed when Stripe reports the payment.
            status (str): `pending_payment`, `paid` (in force), `expired` (not paid before `hold_expires_at`),
                `cancelled` (a later raise replaced it), `failed` or `refunded` (paid once it could no
                longer hold: given back in full).
            paid_at (datetime.datetime | None | Unset):
    """

    bid_per_gpu_hour: int
    created_at: datetime.datetime
    hold_expires_at: datetime.datetime
    payment: PaymentView
    status: str
    paid_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bid_per_gpu_hour = self.bid_per_gpu_hour

        created_at = self.created_at.isoformat()

        hold_expires_at = self.hold_expires_at.isoformat()

        payment = self.payment.to_dict()

        status = self.status

        paid_at: None | str | Unset
        if isinstance(self.paid_at, Unset):
            paid_at = UNSET
        elif isinstance(self.paid_at, datetime.datetime):
            paid_at = self.paid_at.isoformat()
        else:
            paid_at = self.paid_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bid_per_gpu_hour": bid_per_gpu_hour,
                "created_at": created_at,
                "hold_expires_at": hold_expires_at,
                "payment": payment,
                "status": status,
            }
        )
        if paid_at is not UNSET:
            field_dict["paid_at"] = paid_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.payment_view import PaymentView  # noqa: PLC0415

        d = dict(src_dict)
        bid_per_gpu_hour = d.pop("bid_per_gpu_hour")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        hold_expires_at = datetime.datetime.fromisoformat(d.pop("hold_expires_at"))

        payment = PaymentView.from_dict(d.pop("payment"))

        status = d.pop("status")

        def _parse_paid_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                paid_at_type_0 = datetime.datetime.fromisoformat(data)

                return paid_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        paid_at = _parse_paid_at(d.pop("paid_at", UNSET))

        bid_raise_view = cls(
            bid_per_gpu_hour=bid_per_gpu_hour,
            created_at=created_at,
            hold_expires_at=hold_expires_at,
            payment=payment,
            status=status,
            paid_at=paid_at,
        )

        bid_raise_view.additional_properties = d
        return bid_raise_view

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
