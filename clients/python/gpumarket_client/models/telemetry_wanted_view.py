from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TelemetryWantedView")


@_attrs_define
class TelemetryWantedView:
    """A run whose GPU samples the agent is to upload (`POST /listings/{id}/agent/telemetry`),
    asked only once the run has measured.

        Attributes:
            from_ (datetime.datetime): The window to upload, by the server's clock (the agent corrects for its own).
            run_id (UUID):
            until (datetime.datetime):
    """

    from_: datetime.datetime
    run_id: UUID
    until: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        run_id = str(self.run_id)

        until = self.until.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "run_id": run_id,
                "until": until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        run_id = UUID(d.pop("run_id"))

        until = datetime.datetime.fromisoformat(d.pop("until"))

        telemetry_wanted_view = cls(
            from_=from_,
            run_id=run_id,
            until=until,
        )

        telemetry_wanted_view.additional_properties = d
        return telemetry_wanted_view

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
