from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.money_view import MoneyView


T = TypeVar("T", bound="DisplacementView")


@_attrs_define
class DisplacementView:
    """An interruptible booking displaced by an on-demand booking or a higher bid.

    Attributes:
        at (datetime.datetime):
        refund (MoneyView): A money amount in integer minor units.
        booked_ends_at (datetime.datetime | None | Unset): The end it was booked for, when it had started: its access
            then ends at `ends_at`, the
            notice's end.
        refunded_at (datetime.datetime | None | Unset): When the refund was made; `null` while owed.
    """

    at: datetime.datetime
    refund: MoneyView
    booked_ends_at: datetime.datetime | None | Unset = UNSET
    refunded_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        refund = self.refund.to_dict()

        booked_ends_at: None | str | Unset
        if isinstance(self.booked_ends_at, Unset):
            booked_ends_at = UNSET
        elif isinstance(self.booked_ends_at, datetime.datetime):
            booked_ends_at = self.booked_ends_at.isoformat()
        else:
            booked_ends_at = self.booked_ends_at

        refunded_at: None | str | Unset
        if isinstance(self.refunded_at, Unset):
            refunded_at = UNSET
        elif isinstance(self.refunded_at, datetime.datetime):
            refunded_at = self.refunded_at.isoformat()
        else:
            refunded_at = self.refunded_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "refund": refund,
            }
        )
        if booked_ends_at is not UNSET:
            field_dict["booked_ends_at"] = booked_ends_at
        if refunded_at is not UNSET:
            field_dict["refunded_at"] = refunded_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.money_view import MoneyView  # noqa: PLC0415

        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        refund = MoneyView.from_dict(d.pop("refund"))

        def _parse_booked_ends_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                booked_ends_at_type_0 = datetime.datetime.fromisoformat(data)

                return booked_ends_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        booked_ends_at = _parse_booked_ends_at(d.pop("booked_ends_at", UNSET))

        def _parse_refunded_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                refunded_at_type_0 = datetime.datetime.fromisoformat(data)

                return refunded_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        refunded_at = _parse_refunded_at(d.pop("refunded_at", UNSET))

        displacement_view = cls(
            at=at,
            refund=refund,
            booked_ends_at=booked_ends_at,
            refunded_at=refunded_at,
        )

        displacement_view.additional_properties = d
        return displacement_view

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
