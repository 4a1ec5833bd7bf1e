from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="UptimeStatementView")


@_attrs_define
class UptimeStatementView:
    """A signed statement of the machine's uptime over one period.

    Attributes:
        envelope (Any): The DSSE envelope of an in-toto statement whose `predicateType` is
            `https://gpumarket.dev/attestations/uptime/v1`.
        id (UUID): Its id: its log entry's (`GET /v1/reports/{id}/proof`).
        period_end (datetime.datetime):
        period_start (datetime.datetime):
        uptime (float | None | Unset):
    """

    envelope: Any
    id: UUID
    period_end: datetime.datetime
    period_start: datetime.datetime
    uptime: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        envelope = self.envelope

        id = str(self.id)

        period_end = self.period_end.isoformat()

        period_start = self.period_start.isoformat()

        uptime: float | None | Unset
        if isinstance(self.uptime, Unset):
            uptime = UNSET
        else:
            uptime = self.uptime

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "envelope": envelope,
                "id": id,
                "period_end": period_end,
                "period_start": period_start,
            }
        )
        if uptime is not UNSET:
            field_dict["uptime"] = uptime

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        envelope = d.pop("envelope")

        id = UUID(d.pop("id"))

        period_end = datetime.datetime.fromisoformat(d.pop("period_end"))

        period_start = datetime.datetime.fromisoformat(d.pop("period_start"))

        def _parse_uptime(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        uptime = _parse_uptime(d.pop("uptime", UNSET))

        uptime_statement_view = cls(
            envelope=envelope,
            id=id,
            period_end=period_end,
            period_start=period_start,
            uptime=uptime,
        )

        uptime_statement_view.additional_properties = d
        return uptime_statement_view

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
