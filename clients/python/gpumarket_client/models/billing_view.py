from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.plan_limits_view import PlanLimitsView


T = TypeVar("T", bound="BillingView")


@_attrs_define
class BillingView:
    """An organisation's plan and its subscription.

    Attributes:
        cancel_at_period_end (bool):
        limits (PlanLimitsView): What a plan allows.
        plan (str): `free` or `pro`.
        current_period_end (datetime.datetime | None | Unset):
        grace_ends_at (datetime.datetime | None | Unset): While a payment is overdue: when Pro ends unless it is paid.
        status (None | str | Unset): Stripe's status of the subscription (`active`, `trialing`, `past_due`, `canceled`,
            ...); `null` without one.
    """

    cancel_at_period_end: bool
    limits: PlanLimitsView
    plan: str
    current_period_end: datetime.datetime | None | Unset = UNSET
    grace_ends_at: datetime.datetime | None | Unset = UNSET
    status: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cancel_at_period_end = self.cancel_at_period_end

        limits = self.limits.to_dict()

        plan = self.plan

        current_period_end: None | str | Unset
        if isinstance(self.current_period_end, Unset):
            current_period_end = UNSET
        elif isinstance(self.current_period_end, datetime.datetime):
            current_period_end = self.current_period_end.isoformat()
        else:
            current_period_end = self.current_period_end

        grace_ends_at: None | str | Unset
        if isinstance(self.grace_ends_at, Unset):
            grace_ends_at = UNSET
        elif isinstance(self.grace_ends_at, datetime.datetime):
            grace_ends_at = self.grace_ends_at.isoformat()
        else:
            grace_ends_at = self.grace_ends_at

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancel_at_period_end": cancel_at_period_end,
                "limits": limits,
                "plan": plan,
            }
        )
        if current_period_end is not UNSET:
            field_dict["current_period_end"] = current_period_end
        if grace_ends_at is not UNSET:
            field_dict["grace_ends_at"] = grace_ends_at
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_limits_view import PlanLimitsView  # noqa: PLC0415

        d = dict(src_dict)
        cancel_at_period_end = d.pop("cancel_at_period_end")

        limits = PlanLimitsView.from_dict(d.pop("limits"))

        plan = d.pop("plan")

        def _parse_current_period_end(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                current_period_end_type_0 = datetime.datetime.fromisoformat(data)

                return current_period_end_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        current_period_end = _parse_current_period_end(d.pop("current_period_end", UNSET))

        def _parse_grace_ends_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                grace_ends_at_type_0 = datetime.datetime.fromisoformat(data)

                return grace_ends_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        grace_ends_at = _parse_grace_ends_at(d.pop("grace_ends_at", UNSET))

        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        billing_view = cls(
            cancel_at_period_end=cancel_at_period_end,
            limits=limits,
            plan=plan,
            current_period_end=current_period_end,
            grace_ends_at=grace_ends_at,
            status=status,
        )

        billing_view.additional_properties = d
        return billing_view

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
