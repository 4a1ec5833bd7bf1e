from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewWindowRequest")


@_attrs_define
class NewWindowRequest:
    """A maintenance window as a provider announces it.

    Attributes:
        from_ (datetime.datetime): Start of the half-open interval `[from, until)`, RFC 3339: not in the past (422;
            within
            a minute of grace for clocks, the window starts now).
        until (datetime.datetime): Its end: in the future, at most 14 days after `from`.
        cancel_overlapping (bool | Unset): Interrupt the bookings that hold the machine over the window (the name is
            older than
            interruptions; nothing is cancelled): each keeps its interval, has no access over the
            window (the gateway refuses it and ends its streams at the window's start, its access
            token is inactive) and is given back the share of its price the window takes
            (transfer and fee in proportion). Without it such bookings refuse the window (409
            `maintenance_overlaps_bookings`). A window that interrupted bookings can no longer be
            deleted.
        reason (str | Unset): Why, for the organisation's members (at most 500 characters; not shown publicly).
    """

    from_: datetime.datetime
    until: datetime.datetime
    cancel_overlapping: bool | Unset = UNSET
    reason: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        until = self.until.isoformat()

        cancel_overlapping = self.cancel_overlapping

        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "until": until,
            }
        )
        if cancel_overlapping is not UNSET:
            field_dict["cancel_overlapping"] = cancel_overlapping
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        until = datetime.datetime.fromisoformat(d.pop("until"))

        cancel_overlapping = d.pop("cancel_overlapping", UNSET)

        reason = d.pop("reason", UNSET)

        new_window_request = cls(
            from_=from_,
            until=until,
            cancel_overlapping=cancel_overlapping,
            reason=reason,
        )

        return new_window_request
