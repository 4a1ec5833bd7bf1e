from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VerificationSummaryView")


@_attrs_define
class VerificationSummaryView:
    """The latest compliant verification and its headline figures.

    Attributes:
        age_s (int): Seconds since the report was made.
        hardware_checked (bool): Whether the figures were checked against the physical limit of the catalog GPU for
            the catalog model (both `catalog` ids set); `false`: nothing checked them.
        report_id (UUID):
        verified_at (datetime.datetime):
        best_total_tok_s (float | None | Unset): Best valid total tok/s of any decode cell.
        expires_at (datetime.datetime | None | Unset): When the badge ends unless an unannounced spot check renews it.
        single_stream_tok_s (float | None | Unset): Per-request tok/s of one stream at the smallest context.
    """

    age_s: int
    hardware_checked: bool
    report_id: UUID
    verified_at: datetime.datetime
    best_total_tok_s: float | None | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    single_stream_tok_s: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        age_s = self.age_s

        hardware_checked = self.hardware_checked

        report_id = str(self.report_id)

        verified_at = self.verified_at.isoformat()

        best_total_tok_s: float | None | Unset
        if isinstance(self.best_total_tok_s, Unset):
            best_total_tok_s = UNSET
        else:
            best_total_tok_s = self.best_total_tok_s

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        single_stream_tok_s: float | None | Unset
        if isinstance(self.single_stream_tok_s, Unset):
            single_stream_tok_s = UNSET
        else:
            single_stream_tok_s = self.single_stream_tok_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "age_s": age_s,
                "hardware_checked": hardware_checked,
                "report_id": report_id,
                "verified_at": verified_at,
            }
        )
        if best_total_tok_s is not UNSET:
            field_dict["best_total_tok_s"] = best_total_tok_s
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if single_stream_tok_s is not UNSET:
            field_dict["single_stream_tok_s"] = single_stream_tok_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        age_s = d.pop("age_s")

        hardware_checked = d.pop("hardware_checked")

        report_id = UUID(d.pop("report_id"))

        verified_at = datetime.datetime.fromisoformat(d.pop("verified_at"))

        def _parse_best_total_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        best_total_tok_s = _parse_best_total_tok_s(d.pop("best_total_tok_s", UNSET))

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_single_stream_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        single_stream_tok_s = _parse_single_stream_tok_s(d.pop("single_stream_tok_s", UNSET))

        verification_summary_view = cls(
            age_s=age_s,
            hardware_checked=hardware_checked,
            report_id=report_id,
            verified_at=verified_at,
            best_total_tok_s=best_total_tok_s,
            expires_at=expires_at,
            single_stream_tok_s=single_stream_tok_s,
        )

        verification_summary_view.additional_properties = d
        return verification_summary_view

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
