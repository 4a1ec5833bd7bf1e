from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PutBudgetRequest")


@_attrs_define
class PutBudgetRequest:
    """
    Attributes:
        amount_per_month (int): The most this month's bookings may cost, in minor units of `currency` (0 to
            1,000,000,000,000; 0: nothing may be booked).
        currency (str): An ISO 4217 code we take (`USD`, `EUR`, …). Bookings priced in another currency are
            refused while the budget stands (they cannot be judged against it).
    """

    amount_per_month: int
    currency: str

    def to_dict(self) -> dict[str, Any]:
        amount_per_month = self.amount_per_month

        currency = self.currency

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "amount_per_month": amount_per_month,
                "currency": currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount_per_month = d.pop("amount_per_month")

        currency = d.pop("currency")

        put_budget_request = cls(
            amount_per_month=amount_per_month,
            currency=currency,
        )

        return put_budget_request
