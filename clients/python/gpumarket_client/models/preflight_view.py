from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.preflight_check_view import PreflightCheckView


T = TypeVar("T", bound="PreflightView")


@_attrs_define
class PreflightView:
    """A preflight of a listing.

    Attributes:
        checks (list[PreflightCheckView]):
        created_at (datetime.datetime):
        id (UUID):
        kind (str): `asked` (a member's), `request` (before a verification request was accepted) or `run`
            (at a run's start; a spot check's is shown once the check ended).
        listing_id (UUID):
        passed (bool): No check failed.
        run_id (None | Unset | UUID): The run it preceded, for a run's.
    """

    checks: list[PreflightCheckView]
    created_at: datetime.datetime
    id: UUID
    kind: str
    listing_id: UUID
    passed: bool
    run_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checks = []
        for checks_item_data in self.checks:
            checks_item = checks_item_data.to_dict()
            checks.append(checks_item)

        created_at = self.created_at.isoformat()

        id = str(self.id)

        kind = self.kind

        listing_id = str(self.listing_id)

        passed = self.passed

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        elif isinstance(self.run_id, UUID):
            run_id = str(self.run_id)
        else:
            run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checks": checks,
                "created_at": created_at,
                "id": id,
                "kind": kind,
                "listing_id": listing_id,
                "passed": passed,
            }
        )
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.preflight_check_view import PreflightCheckView  # noqa: PLC0415

        d = dict(src_dict)
        checks = []
        _checks = d.pop("checks")
        for checks_item_data in _checks:
            checks_item = PreflightCheckView.from_dict(checks_item_data)

            checks.append(checks_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        kind = d.pop("kind")

        listing_id = UUID(d.pop("listing_id"))

        passed = d.pop("passed")

        def _parse_run_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_id_type_0 = UUID(data)

                return run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        preflight_view = cls(
            checks=checks,
            created_at=created_at,
            id=id,
            kind=kind,
            listing_id=listing_id,
            passed=passed,
            run_id=run_id,
        )

        preflight_view.additional_properties = d
        return preflight_view

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
