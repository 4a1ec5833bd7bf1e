from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.maintenance_window_view import MaintenanceWindowView


T = TypeVar("T", bound="AnnouncedView")


@_attrs_define
class AnnouncedView:
    """A window announced, and the bookings it interrupted.

    Attributes:
        cancelled_booking_ids (list[UUID]): A window never cancels a booking: always empty (kept for older clients).
        interrupted_booking_ids (list[UUID]): Bookings interrupted over the window: each keeps its interval and is given
            back the
            share of its price the window takes.
        pending_cancellation_ids (list[UUID]): Always empty (kept for older clients).
        refund_pending_ids (list[UUID]): Of those, the ones whose share is still owed: awaiting their payment (given
            back once
            paid), or the payment provider failed (the sweep gives it back shortly).
        window (MaintenanceWindowView): A maintenance window: the whole machine is out of service over `[from, until)`.
    """

    cancelled_booking_ids: list[UUID]
    interrupted_booking_ids: list[UUID]
    pending_cancellation_ids: list[UUID]
    refund_pending_ids: list[UUID]
    window: MaintenanceWindowView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cancelled_booking_ids = []
        for cancelled_booking_ids_item_data in self.cancelled_booking_ids:
            cancelled_booking_ids_item = str(cancelled_booking_ids_item_data)
            cancelled_booking_ids.append(cancelled_booking_ids_item)

        interrupted_booking_ids = []
        for interrupted_booking_ids_item_data in self.interrupted_booking_ids:
            interrupted_booking_ids_item = str(interrupted_booking_ids_item_data)
            interrupted_booking_ids.append(interrupted_booking_ids_item)

        pending_cancellation_ids = []
        for pending_cancellation_ids_item_data in self.pending_cancellation_ids:
            pending_cancellation_ids_item = str(pending_cancellation_ids_item_data)
            pending_cancellation_ids.append(pending_cancellation_ids_item)

        refund_pending_ids = []
        for refund_pending_ids_item_data in self.refund_pending_ids:
            refund_pending_ids_item = str(refund_pending_ids_item_data)
            refund_pending_ids.append(refund_pending_ids_item)

        window = self.window.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancelled_booking_ids": cancelled_booking_ids,
                "interrupted_booking_ids": interrupted_booking_ids,
                "pending_cancellation_ids": pending_cancellation_ids,
                "refund_pending_ids": refund_pending_ids,
                "window": window,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.maintenance_window_view import MaintenanceWindowView  # noqa: PLC0415

        d = dict(src_dict)
        cancelled_booking_ids = []
        _cancelled_booking_ids = d.pop("cancelled_booking_ids")
        for cancelled_booking_ids_item_data in _cancelled_booking_ids:
            cancelled_booking_ids_item = UUID(cancelled_booking_ids_item_data)

            cancelled_booking_ids.append(cancelled_booking_ids_item)

        interrupted_booking_ids = []
        _interrupted_booking_ids = d.pop("interrupted_booking_ids")
        for interrupted_booking_ids_item_data in _interrupted_booking_ids:
            interrupted_booking_ids_item = UUID(interrupted_booking_ids_item_data)

            interrupted_booking_ids.append(interrupted_booking_ids_item)

        pending_cancellation_ids = []
        _pending_cancellation_ids = d.pop("pending_cancellation_ids")
        for pending_cancellation_ids_item_data in _pending_cancellation_ids:
            pending_cancellation_ids_item = UUID(pending_cancellation_ids_item_data)

            pending_cancellation_ids.append(pending_cancellation_ids_item)

        refund_pending_ids = []
        _refund_pending_ids = d.pop("refund_pending_ids")
        for refund_pending_ids_item_data in _refund_pending_ids:
            refund_pending_ids_item = UUID(refund_pending_ids_item_data)

            refund_pending_ids.append(refund_pending_ids_item)

        window = MaintenanceWindowView.from_dict(d.pop("window"))

        announced_view = cls(
            cancelled_booking_ids=cancelled_booking_ids,
            interrupted_booking_ids=interrupted_booking_ids,
            pending_cancellation_ids=pending_cancellation_ids,
            refund_pending_ids=refund_pending_ids,
            window=window,
        )

        announced_view.additional_properties = d
        return announced_view

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
