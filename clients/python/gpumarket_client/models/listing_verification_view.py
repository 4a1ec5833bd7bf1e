from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.verification_check_view import VerificationCheckView


T = TypeVar("T", bound="ListingVerificationView")


@_attrs_define
class ListingVerificationView:
    """A listing's badge: its state, when it was given and when it ends, and its history.

    Attributes:
        history (list[VerificationCheckView]):
        state (str): `unverified`, `verified`, `expired` or `demoted`.
        expires_at (datetime.datetime | None | Unset):
        report_id (None | Unset | UUID):
        verified_at (datetime.datetime | None | Unset):
    """

    history: list[VerificationCheckView]
    state: str
    expires_at: datetime.datetime | None | Unset = UNSET
    report_id: None | Unset | UUID = UNSET
    verified_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        state = self.state

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        report_id: None | str | Unset
        if isinstance(self.report_id, Unset):
            report_id = UNSET
        elif isinstance(self.report_id, UUID):
            report_id = str(self.report_id)
        else:
            report_id = self.report_id

        verified_at: None | str | Unset
        if isinstance(self.verified_at, Unset):
            verified_at = UNSET
        elif isinstance(self.verified_at, datetime.datetime):
            verified_at = self.verified_at.isoformat()
        else:
            verified_at = self.verified_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "history": history,
                "state": state,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if report_id is not UNSET:
            field_dict["report_id"] = report_id
        if verified_at is not UNSET:
            field_dict["verified_at"] = verified_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.verification_check_view import VerificationCheckView  # noqa: PLC0415

        d = dict(src_dict)
        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = VerificationCheckView.from_dict(history_item_data)

            history.append(history_item)

        state = d.pop("state")

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

        def _parse_verified_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verified_at_type_0 = datetime.datetime.fromisoformat(data)

                return verified_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        verified_at = _parse_verified_at(d.pop("verified_at", UNSET))

        listing_verification_view = cls(
            history=history,
            state=state,
            expires_at=expires_at,
            report_id=report_id,
            verified_at=verified_at,
        )

        listing_verification_view.additional_properties = d
        return listing_verification_view

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
