from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.money_view import MoneyView


T = TypeVar("T", bound="PlanView")


@_attrs_define
class PlanView:
    """The cheapest set of whole machines whose goodput adds up to the users asked for.

    Attributes:
        listings (list[UUID]): Listing ids, ascending.
        price_per_hour (MoneyView): A money amount in integer minor units.
        users (int): The users they serve together (at least those asked for).
    """

    listings: list[UUID]
    price_per_hour: MoneyView
    users: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        listings = []
        for listings_item_data in self.listings:
            listings_item = str(listings_item_data)
            listings.append(listings_item)

        price_per_hour = self.price_per_hour.to_dict()

        users = self.users

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "listings": listings,
                "price_per_hour": price_per_hour,
                "users": users,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.money_view import MoneyView  # noqa: PLC0415

        d = dict(src_dict)
        listings = []
        _listings = d.pop("listings")
        for listings_item_data in _listings:
            listings_item = UUID(listings_item_data)

            listings.append(listings_item)

        price_per_hour = MoneyView.from_dict(d.pop("price_per_hour"))

        users = d.pop("users")

        plan_view = cls(
            listings=listings,
            price_per_hour=price_per_hour,
            users=users,
        )

        plan_view.additional_properties = d
        return plan_view

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
