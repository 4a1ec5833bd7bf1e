from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="BudgetView")


@_attrs_define
class BudgetView:
    """A person's budget and where it stands this calendar month (UTC).

    Attributes:
        amount_per_month (int): Minor units of `currency` a month.
        currency (str):
        left (int): What may still be spent this month.
        month (str): The month, `YYYY-MM`, and its bounds.
        month_ends_at (datetime.datetime):
        month_starts_at (datetime.datetime):
        spent (int): What this month's bookings cost: money charged this month, bookings holding their GPUs
            for a payment, and bookings where nothing is collected at their price, less what was
            refunded or credited this month (never below 0).
        updated_at (datetime.datetime):
    """

    amount_per_month: int
    currency: str
    left: int
    month: str
    month_ends_at: datetime.datetime
    month_starts_at: datetime.datetime
    spent: int
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount_per_month = self.amount_per_month

        currency = self.currency

        left = self.left

        month = self.month

        month_ends_at = self.month_ends_at.isoformat()

        month_starts_at = self.month_starts_at.isoformat()

        spent = self.spent

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount_per_month": amount_per_month,
                "currency": currency,
                "left": left,
                "month": month,
                "month_ends_at": month_ends_at,
                "month_starts_at": month_starts_at,
                "spent": spent,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount_per_month = d.pop("amount_per_month")

        currency = d.pop("currency")

        left = d.pop("left")

        month = d.pop("month")

        month_ends_at = datetime.datetime.fromisoformat(d.pop("month_ends_at"))

        month_starts_at = datetime.datetime.fromisoformat(d.pop("month_starts_at"))

        spent = d.pop("spent")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        budget_view = cls(
            amount_per_month=amount_per_month,
            currency=currency,
            left=left,
            month=month,
            month_ends_at=month_ends_at,
            month_starts_at=month_starts_at,
            spent=spent,
            updated_at=updated_at,
        )

        budget_view.additional_properties = d
        return budget_view

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
