from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.desired_booking_view import DesiredBookingView
    from ..models.logs_wanted_view import LogsWantedView
    from ..models.telemetry_wanted_view import TelemetryWantedView


T = TypeVar("T", bound="DesiredView")


@_attrs_define
class DesiredView:
    """The whole desired state of the listing's machine: the bookings giving access now or
    within `lookahead_secs`, and the runs whose samples are wanted.

        Attributes:
            bookings (list[DesiredBookingView]):
            listing_id (UUID):
            logs_wanted (list[LogsWantedView]): Containers' logs renters asked for: answer each with `POST
                /listings/{id}/agent/logs`.
            lookahead_secs (int):
            telemetry_wanted (list[TelemetryWantedView]):
            version (str): Changes whenever anything else here does.
    """

    bookings: list[DesiredBookingView]
    listing_id: UUID
    logs_wanted: list[LogsWantedView]
    lookahead_secs: int
    telemetry_wanted: list[TelemetryWantedView]
    version: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bookings = []
        for bookings_item_data in self.bookings:
            bookings_item = bookings_item_data.to_dict()
            bookings.append(bookings_item)

        listing_id = str(self.listing_id)

        logs_wanted = []
        for logs_wanted_item_data in self.logs_wanted:
            logs_wanted_item = logs_wanted_item_data.to_dict()
            logs_wanted.append(logs_wanted_item)

        lookahead_secs = self.lookahead_secs

        telemetry_wanted = []
        for telemetry_wanted_item_data in self.telemetry_wanted:
            telemetry_wanted_item = telemetry_wanted_item_data.to_dict()
            telemetry_wanted.append(telemetry_wanted_item)

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bookings": bookings,
                "listing_id": listing_id,
                "logs_wanted": logs_wanted,
                "lookahead_secs": lookahead_secs,
                "telemetry_wanted": telemetry_wanted,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.desired_booking_view import DesiredBookingView  # noqa: PLC0415
        from ..models.logs_wanted_view import LogsWantedView  # noqa: PLC0415
        from ..models.telemetry_wanted_view import TelemetryWantedView  # noqa: PLC0415

        d = dict(src_dict)
        bookings = []
        _bookings = d.pop("bookings")
        for bookings_item_data in _bookings:
            bookings_item = DesiredBookingView.from_dict(bookings_item_data)

            bookings.append(bookings_item)

        listing_id = UUID(d.pop("listing_id"))

        logs_wanted = []
        _logs_wanted = d.pop("logs_wanted")
        for logs_wanted_item_data in _logs_wanted:
            logs_wanted_item = LogsWantedView.from_dict(logs_wanted_item_data)

            logs_wanted.append(logs_wanted_item)

        lookahead_secs = d.pop("lookahead_secs")

        telemetry_wanted = []
        _telemetry_wanted = d.pop("telemetry_wanted")
        for telemetry_wanted_item_data in _telemetry_wanted:
            telemetry_wanted_item = TelemetryWantedView.from_dict(telemetry_wanted_item_data)

            telemetry_wanted.append(telemetry_wanted_item)

        version = d.pop("version")

        desired_view = cls(
            bookings=bookings,
            listing_id=listing_id,
            logs_wanted=logs_wanted,
            lookahead_secs=lookahead_secs,
            telemetry_wanted=telemetry_wanted,
            version=version,
        )

        desired_view.additional_properties = d
        return desired_view

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
