from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.booking_view import BookingView
    from ..models.money_view import MoneyView


T = TypeVar("T", bound="BookedPlanView")


@_attrs_define
class BookedPlanView:
    """
    Attributes:
        bookings (list[BookingView]): One booking per listing of the plan, every GPU of it, by listing id.
        plan_id (UUID): Ties the plan's bookings (each booking's `plan_id`).
        price_per_hour (MoneyView): A money amount in integer minor units.
        users (int): The users the plan serves within the objective.
    """

    bookings: list[BookingView]
    plan_id: UUID
    price_per_hour: MoneyView
    users: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bookings = []
        for bookings_item_data in self.bookings:
            bookings_item = bookings_item_data.to_dict()
            bookings.append(bookings_item)

        plan_id = str(self.plan_id)

        price_per_hour = self.price_per_hour.to_dict()

        users = self.users

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bookings": bookings,
                "plan_id": plan_id,
                "price_per_hour": price_per_hour,
                "users": users,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking_view import BookingView  # noqa: PLC0415
        from ..models.money_view import MoneyView  # noqa: PLC0415

        d = dict(src_dict)
        bookings = []
        _bookings = d.pop("bookings")
        for bookings_item_data in _bookings:
            bookings_item = BookingView.from_dict(bookings_item_data)

            bookings.append(bookings_item)

        plan_id = UUID(d.pop("plan_id"))

        price_per_hour = MoneyView.from_dict(d.pop("price_per_hour"))

        users = d.pop("users")

        booked_plan_view = cls(
            bookings=bookings,
            plan_id=plan_id,
            price_per_hour=price_per_hour,
            users=users,
        )

        booked_plan_view.additional_properties = d
        return booked_plan_view

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
