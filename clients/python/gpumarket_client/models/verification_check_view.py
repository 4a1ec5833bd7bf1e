from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VerificationCheckView")


@_attrs_define
class VerificationCheckView:
    """One entry of a listing's verification history.

    Attributes:
        at (datetime.datetime):
        kind (str): `verified`, `spot_check_passed`, `spot_check_inconclusive`, `demoted`, `expired` or
            `withdrawn`.
        baseline_report_id (None | Unset | UUID): The verification a spot check compared against, or the badge that
            ended.
        reason (None | str | Unset):
        report_id (None | Unset | UUID): The report the entry is about: the verification, or the spot check's own
            report.
    """

    at: datetime.datetime
    kind: str
    baseline_report_id: None | Unset | UUID = UNSET
    reason: None | str | Unset = UNSET
    report_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        kind = self.kind

        baseline_report_id: None | str | Unset
        if isinstance(self.baseline_report_id, Unset):
            baseline_report_id = UNSET
        elif isinstance(self.baseline_report_id, UUID):
            baseline_report_id = str(self.baseline_report_id)
        else:
            baseline_report_id = self.baseline_report_id

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        report_id: None | str | Unset
        if isinstance(self.report_id, Unset):
            report_id = UNSET
        elif isinstance(self.report_id, UUID):
            report_id = str(self.report_id)
        else:
            report_id = self.report_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "kind": kind,
            }
        )
        if baseline_report_id is not UNSET:
            field_dict["baseline_report_id"] = baseline_report_id
        if reason is not UNSET:
            field_dict["reason"] = reason
        if report_id is not UNSET:
            field_dict["report_id"] = report_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        kind = d.pop("kind")

        def _parse_baseline_report_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                baseline_report_id_type_0 = UUID(data)

                return baseline_report_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        baseline_report_id = _parse_baseline_report_id(d.pop("baseline_report_id", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

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

        verification_check_view = cls(
            at=at,
            kind=kind,
            baseline_report_id=baseline_report_id,
            reason=reason,
            report_id=report_id,
        )

        verification_check_view.additional_properties = d
        return verification_check_view

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
