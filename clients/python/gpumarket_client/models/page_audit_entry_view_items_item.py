from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audit_actor_view import AuditActorView
    from ..models.page_audit_entry_view_items_item_details import PageAuditEntryViewItemsItemDetails


T = TypeVar("T", bound="PageAuditEntryViewItemsItem")


@_attrs_define
class PageAuditEntryViewItemsItem:
    """One change of the organisation's.

    Attributes:
        action (str): `listing.created`, `listing.updated` (with `changed`, and the price `from` and `to`),
            `listing.delisted`, `api_key.created`, `api_key.revoked`, `member.invited`,
            `member.joined`, `member.role_changed` (`from`, `to`), `member.removed`,
            `webhook_endpoint.created`, `webhook_endpoint.deleted`,
            `webhook_endpoint.secret_rotated`, `webhook_endpoint.enabled`,
            `maintenance_window.created`, `maintenance_window.deleted`.
        actor (AuditActorView): Who made a change.
        at (datetime.datetime):
        details (PageAuditEntryViewItemsItemDetails):
        id (UUID):
        target_id (None | str | Unset): What it changed: a listing's, key's, member's, endpoint's or window's id.
    """

    action: str
    actor: AuditActorView
    at: datetime.datetime
    details: PageAuditEntryViewItemsItemDetails
    id: UUID
    target_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        actor = self.actor.to_dict()

        at = self.at.isoformat()

        details = self.details.to_dict()

        id = str(self.id)

        target_id: None | str | Unset
        if isinstance(self.target_id, Unset):
            target_id = UNSET
        else:
            target_id = self.target_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "at": at,
                "details": details,
                "id": id,
            }
        )
        if target_id is not UNSET:
            field_dict["target_id"] = target_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_actor_view import AuditActorView  # noqa: PLC0415
        from ..models.page_audit_entry_view_items_item_details import PageAuditEntryViewItemsItemDetails  # noqa: PLC0415

        d = dict(src_dict)
        action = d.pop("action")

        actor = AuditActorView.from_dict(d.pop("actor"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        details = PageAuditEntryViewItemsItemDetails.from_dict(d.pop("details"))

        id = UUID(d.pop("id"))

        def _parse_target_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        target_id = _parse_target_id(d.pop("target_id", UNSET))

        page_audit_entry_view_items_item = cls(
            action=action,
            actor=actor,
            at=at,
            details=details,
            id=id,
            target_id=target_id,
        )

        page_audit_entry_view_items_item.additional_properties = d
        return page_audit_entry_view_items_item

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
