from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LedgerEntryView")


@_attrs_define
class LedgerEntryView:
    """One money movement.

    Attributes:
        amount (int): Signed minor units: money back is negative.
        booking_id (UUID):
        created_at (datetime.datetime):
        currency (str):
        id (UUID):
        kind (str): `charge`, `fee`, `transfer`, `refund`, `fee_refund`, `transfer_reversal` or
            `not_collected`.
        stripe_object_id (None | str | Unset): The PaymentIntent or refund it came from.
    """

    amount: int
    booking_id: UUID
    created_at: datetime.datetime
    currency: str
    id: UUID
    kind: str
    stripe_object_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        booking_id = str(self.booking_id)

        created_at = self.created_at.isoformat()

        currency = self.currency

        id = str(self.id)

        kind = self.kind

        stripe_object_id: None | str | Unset
        if isinstance(self.stripe_object_id, Unset):
            stripe_object_id = UNSET
        else:
            stripe_object_id = self.stripe_object_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "booking_id": booking_id,
                "created_at": created_at,
                "currency": currency,
                "id": id,
                "kind": kind,
            }
        )
        if stripe_object_id is not UNSET:
            field_dict["stripe_object_id"] = stripe_object_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount = d.pop("amount")

        booking_id = UUID(d.pop("booking_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = d.pop("currency")

        id = UUID(d.pop("id"))

        kind = d.pop("kind")

        def _parse_stripe_object_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stripe_object_id = _parse_stripe_object_id(d.pop("stripe_object_id", UNSET))

        ledger_entry_view = cls(
            amount=amount,
            booking_id=booking_id,
            created_at=created_at,
            currency=currency,
            id=id,
            kind=kind,
            stripe_object_id=stripe_object_id,
        )

        ledger_entry_view.additional_properties = d
        return ledger_entry_view

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
