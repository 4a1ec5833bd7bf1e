from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MaintenanceWindowView")


@_attrs_define
class MaintenanceWindowView:
    """A maintenance window: the whole machine is out of service over `[from, until)`.

    Attributes:
        announced_at (datetime.datetime):
        cancelled_bookings (int): Bookings it cancelled with a full refund: windows announced before windows interrupted
            bookings (0 for newer ones).
        from_ (datetime.datetime):
        id (UUID):
        in_time (bool): Announced at least `maintenance_notice_secs` (default 24 h) before `from`: its time is
            left out of uptime. Announced later, it counts as downtime.
        interrupted_bookings (int): Bookings it interrupted: each kept its interval, had no access over the window and
            was
            given back the share of its price the window takes.
        listing_id (UUID):
        until (datetime.datetime):
        reason (None | str | Unset): Members only (`null` in public views).
    """

    announced_at: datetime.datetime
    cancelled_bookings: int
    from_: datetime.datetime
    id: UUID
    in_time: bool
    interrupted_bookings: int
    listing_id: UUID
    until: datetime.datetime
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        announced_at = self.announced_at.isoformat()

        cancelled_bookings = self.cancelled_bookings

        from_ = self.from_.isoformat()

        id = str(self.id)

        in_time = self.in_time

        interrupted_bookings = self.interrupted_bookings

        listing_id = str(self.listing_id)

        until = self.until.isoformat()

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "announced_at": announced_at,
                "cancelled_bookings": cancelled_bookings,
                "from": from_,
                "id": id,
                "in_time": in_time,
                "interrupted_bookings": interrupted_bookings,
                "listing_id": listing_id,
                "until": until,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        announced_at = datetime.datetime.fromisoformat(d.pop("announced_at"))

        cancelled_bookings = d.pop("cancelled_bookings")

        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        id = UUID(d.pop("id"))

        in_time = d.pop("in_time")

        interrupted_bookings = d.pop("interrupted_bookings")

        listing_id = UUID(d.pop("listing_id"))

        until = datetime.datetime.fromisoformat(d.pop("until"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        maintenance_window_view = cls(
            announced_at=announced_at,
            cancelled_bookings=cancelled_bookings,
            from_=from_,
            id=id,
            in_time=in_time,
            interrupted_bookings=interrupted_bookings,
            listing_id=listing_id,
            until=until,
            reason=reason,
        )

        maintenance_window_view.additional_properties = d
        return maintenance_window_view

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
