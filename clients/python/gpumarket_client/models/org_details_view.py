from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.role_view import RoleView

if TYPE_CHECKING:
    from ..models.member_view import MemberView


T = TypeVar("T", bound="OrgDetailsView")


@_attrs_define
class OrgDetailsView:
    """
    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        name (str):
        members (list[MemberView]):
        role (RoleView): A member's role in an organisation.
    """

    created_at: datetime.datetime
    id: UUID
    name: str
    members: list[MemberView]
    role: RoleView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        role = self.role.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "name": name,
                "members": members,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.member_view import MemberView  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        name = d.pop("name")

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = MemberView.from_dict(members_item_data)

            members.append(members_item)

        role = RoleView(d.pop("role"))

        org_details_view = cls(
            created_at=created_at,
            id=id,
            name=name,
            members=members,
            role=role,
        )

        org_details_view.additional_properties = d
        return org_details_view

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
