from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.person_export_tables import PersonExportTables


T = TypeVar("T", bound="PersonExport")


@_attrs_define
class PersonExport:
    """Everything held about a person.

    Attributes:
        exported_at (datetime.datetime):
        tables (PersonExportTables): Each table that names a person (`users`, `memberships`, `api_keys`, `ssh_keys`,
            `refresh_tokens` — the sessions —, `login_networks`, `email_tokens`, `invitations`,
            `bookings`, `bid_raises`, `booking_plans`, `ledger_entries` — the payments —,
            `budgets`, `budget_alerts`, `webhook_endpoints`, `webhook_events`,
            `maintenance_windows`, `report_shares`, `verification_runs`, `community_runs`, `org_audit`) with the person's
            rows, every column but digests of secrets and payment secrets.
        user_id (UUID):
    """

    exported_at: datetime.datetime
    tables: PersonExportTables
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        exported_at = self.exported_at.isoformat()

        tables = self.tables.to_dict()

        user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "exported_at": exported_at,
                "tables": tables,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.person_export_tables import PersonExportTables  # noqa: PLC0415

        d = dict(src_dict)
        exported_at = datetime.datetime.fromisoformat(d.pop("exported_at"))

        tables = PersonExportTables.from_dict(d.pop("tables"))

        user_id = UUID(d.pop("user_id"))

        person_export = cls(
            exported_at=exported_at,
            tables=tables,
            user_id=user_id,
        )

        person_export.additional_properties = d
        return person_export

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
