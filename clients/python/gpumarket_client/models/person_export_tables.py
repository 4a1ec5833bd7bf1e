from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PersonExportTables")


@_attrs_define
class PersonExportTables:
    """Each table that names a person (`users`, `memberships`, `api_keys`, `ssh_keys`,
    `refresh_tokens` — the sessions —, `login_networks`, `email_tokens`, `invitations`,
    `bookings`, `bid_raises`, `booking_plans`, `ledger_entries` — the payments —,
    `budgets`, `budget_alerts`, `webhook_endpoints`, `webhook_events`,
    `maintenance_windows`, `report_shares`, `verification_runs`, `community_runs`, `org_audit`) with the person's
    rows, every column but digests of secrets and payment secrets.

    """

    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        person_export_tables = cls()

        person_export_tables.additional_properties = d
        return person_export_tables

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
