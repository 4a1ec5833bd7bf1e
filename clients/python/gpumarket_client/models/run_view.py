from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RunView")


@_attrs_define
class RunView:
    """A verification run.

    Attributes:
        attempts (int):
        created_at (datetime.datetime):
        id (UUID):
        listing_id (UUID):
        org_id (UUID):
        profile (str): `quick` or `standard`.
        status (str): `queued`, `running`, `succeeded`, `failed` or `cancelled`.
        visibility (str): `public`, or `private` (its report is shown to the organisation and share links only).
        failure_code (None | str | Unset): Why it failed or was cancelled: `cancelled`, `listing_changed`,
            `deadline_exceeded`,
            `address_not_allowed`, `engine_unreachable`, `engine_unsupported` (`engine_not_vllm`
            on runs recorded before it), `engine_model_missing`, `engine_mismatch` (the listing
            states another engine), `engine_error` or `setup_failed`.
        failure_reason (None | str | Unset): The detail (members of the listing's organisation only).
        finished_at (datetime.datetime | None | Unset):
        report_id (None | Unset | UUID):
        started_at (datetime.datetime | None | Unset):
    """

    attempts: int
    created_at: datetime.datetime
    id: UUID
    listing_id: UUID
    org_id: UUID
    profile: str
    status: str
    visibility: str
    failure_code: None | str | Unset = UNSET
    failure_reason: None | str | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    report_id: None | Unset | UUID = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        id = str(self.id)

        listing_id = str(self.listing_id)

        org_id = str(self.org_id)

        profile = self.profile

        status = self.status

        visibility = self.visibility

        failure_code: None | str | Unset
        if isinstance(self.failure_code, Unset):
            failure_code = UNSET
        else:
            failure_code = self.failure_code

        failure_reason: None | str | Unset
        if isinstance(self.failure_reason, Unset):
            failure_reason = UNSET
        else:
            failure_reason = self.failure_reason

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        report_id: None | str | Unset
        if isinstance(self.report_id, Unset):
            report_id = UNSET
        elif isinstance(self.report_id, UUID):
            report_id = str(self.report_id)
        else:
            report_id = self.report_id

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "id": id,
                "listing_id": listing_id,
                "org_id": org_id,
                "profile": profile,
                "status": status,
                "visibility": visibility,
            }
        )
        if failure_code is not UNSET:
            field_dict["failure_code"] = failure_code
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if report_id is not UNSET:
            field_dict["report_id"] = report_id
        if started_at is not UNSET:
            field_dict["started_at"] = started_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        listing_id = UUID(d.pop("listing_id"))

        org_id = UUID(d.pop("org_id"))

        profile = d.pop("profile")

        status = d.pop("status")

        visibility = d.pop("visibility")

        def _parse_failure_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_code = _parse_failure_code(d.pop("failure_code", UNSET))

        def _parse_failure_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason", UNSET))

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        def _parse_report_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                report_id_type_0 = UUID(data)

                return report_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        report_id = _parse_report_id(d.pop("report_id", UNSET))

        def _parse_started_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        run_view = cls(
            attempts=attempts,
            created_at=created_at,
            id=id,
            listing_id=listing_id,
            org_id=org_id,
            profile=profile,
            status=status,
            visibility=visibility,
            failure_code=failure_code,
            failure_reason=failure_reason,
            finished_at=finished_at,
            report_id=report_id,
            started_at=started_at,
        )

        run_view.additional_properties = d
        return run_view

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
