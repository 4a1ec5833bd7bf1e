from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.day_uptime_view import DayUptimeView
    from ..models.interruptions_view import InterruptionsView
    from ..models.liveness_state_view import LivenessStateView
    from ..models.maintenance_window_view import MaintenanceWindowView
    from ..models.uptime_statement_view import UptimeStatementView


T = TypeVar("T", bound="UptimeView")


@_attrs_define
class UptimeView:
    """
    Attributes:
        current (LivenessStateView): The machine's state now.
        days (list[DayUptimeView]): The last 30 days, oldest first.
        interruptions_30d (InterruptionsView): Bookings maintenance windows interrupted: each kept its interval, had no
            access over the
            window, and was given back the share of its price the window took.
        listing_id (UUID):
        maintenance (list[MaintenanceWindowView]): Maintenance windows that have not ended, soonest first (without their
            reason).
        probe_every_secs (int): Seconds between probes: outages are measured to within this at either end.
        statements (list[UptimeStatementView]): The latest signed uptime statements, newest first (at most 30): one per
            period of
            `uptime_statement_secs` (UTC days by default) in which the machine was observed.
            Verify one with `gpumarket verify` (the item as a file); each is in the transparency
            log (`GET /v1/reports/{id}/proof`).
        reliability (float | None | Unset): The listing's reliability: its 30-day uptime as of the last observation
            (what search's
            `min_reliability` and `sort=reliability` use).
        uptime_24h (float | None | Unset): Shares of the last 24 hours, 7 and 30 days the machine was up, 0 to 1: time-
            weighted
            over what probes observed (a state holds from the probe that first saw it to the one
            that first saw otherwise; probes more than three periods apart leave the time between
            unknown, and unknown time is left out). Time inside a maintenance window announced in
            time is left out; inside one announced late, it counts as down. `null` when nothing
            was observed.
        uptime_30d (float | None | Unset):
        uptime_7d (float | None | Unset):
    """

    current: LivenessStateView
    days: list[DayUptimeView]
    interruptions_30d: InterruptionsView
    listing_id: UUID
    maintenance: list[MaintenanceWindowView]
    probe_every_secs: int
    statements: list[UptimeStatementView]
    reliability: float | None | Unset = UNSET
    uptime_24h: float | None | Unset = UNSET
    uptime_30d: float | None | Unset = UNSET
    uptime_7d: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        current = self.current.to_dict()

        days = []
        for days_item_data in self.days:
            days_item = days_item_data.to_dict()
            days.append(days_item)

        interruptions_30d = self.interruptions_30d.to_dict()

        listing_id = str(self.listing_id)

        maintenance = []
        for maintenance_item_data in self.maintenance:
            maintenance_item = maintenance_item_data.to_dict()
            maintenance.append(maintenance_item)

        probe_every_secs = self.probe_every_secs

        statements = []
        for statements_item_data in self.statements:
            statements_item = statements_item_data.to_dict()
            statements.append(statements_item)

        reliability: float | None | Unset
        if isinstance(self.reliability, Unset):
            reliability = UNSET
        else:
            reliability = self.reliability

        uptime_24h: float | None | Unset
        if isinstance(self.uptime_24h, Unset):
            uptime_24h = UNSET
        else:
            uptime_24h = self.uptime_24h

        uptime_30d: float | None | Unset
        if isinstance(self.uptime_30d, Unset):
            uptime_30d = UNSET
        else:
            uptime_30d = self.uptime_30d

        uptime_7d: float | None | Unset
        if isinstance(self.uptime_7d, Unset):
            uptime_7d = UNSET
        else:
            uptime_7d = self.uptime_7d

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "current": current,
                "days": days,
                "interruptions_30d": interruptions_30d,
                "listing_id": listing_id,
                "maintenance": maintenance,
                "probe_every_secs": probe_every_secs,
                "statements": statements,
            }
        )
        if reliability is not UNSET:
            field_dict["reliability"] = reliability
        if uptime_24h is not UNSET:
            field_dict["uptime_24h"] = uptime_24h
        if uptime_30d is not UNSET:
            field_dict["uptime_30d"] = uptime_30d
        if uptime_7d is not UNSET:
            field_dict["uptime_7d"] = uptime_7d

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.day_uptime_view import DayUptimeView  # noqa: PLC0415
        from ..models.interruptions_view import InterruptionsView  # noqa: PLC0415
        from ..models.liveness_state_view import LivenessStateView  # noqa: PLC0415
        from ..models.maintenance_window_view import MaintenanceWindowView  # noqa: PLC0415
        from ..models.uptime_statement_view import UptimeStatementView  # noqa: PLC0415

        d = dict(src_dict)
        current = LivenessStateView.from_dict(d.pop("current"))

        days = []
        _days = d.pop("days")
        for days_item_data in _days:
            days_item = DayUptimeView.from_dict(days_item_data)

            days.append(days_item)

        interruptions_30d = InterruptionsView.from_dict(d.pop("interruptions_30d"))

        listing_id = UUID(d.pop("listing_id"))

        maintenance = []
        _maintenance = d.pop("maintenance")
        for maintenance_item_data in _maintenance:
            maintenance_item = MaintenanceWindowView.from_dict(maintenance_item_data)

            maintenance.append(maintenance_item)

        probe_every_secs = d.pop("probe_every_secs")

        statements = []
        _statements = d.pop("statements")
        for statements_item_data in _statements:
            statements_item = UptimeStatementView.from_dict(statements_item_data)

            statements.append(statements_item)

        def _parse_reliability(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        reliability = _parse_reliability(d.pop("reliability", UNSET))

        def _parse_uptime_24h(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        uptime_24h = _parse_uptime_24h(d.pop("uptime_24h", UNSET))

        def _parse_uptime_30d(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        uptime_30d = _parse_uptime_30d(d.pop("uptime_30d", UNSET))

        def _parse_uptime_7d(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        uptime_7d = _parse_uptime_7d(d.pop("uptime_7d", UNSET))

        uptime_view = cls(
            current=current,
            days=days,
            interruptions_30d=interruptions_30d,
            listing_id=listing_id,
            maintenance=maintenance,
            probe_every_secs=probe_every_secs,
            statements=statements,
            reliability=reliability,
            uptime_24h=uptime_24h,
            uptime_30d=uptime_30d,
            uptime_7d=uptime_7d,
        )

        uptime_view.additional_properties = d
        return uptime_view

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
