from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.role_view import RoleView

T = TypeVar("T", bound="MemberView")


@_attrs_define
class MemberView:
    """
    Attributes:
        email (str):
        joined_at (datetime.datetime):
        name (str):
        role (RoleView): A member's role in an organisation.
        user_id (UUID):
    """

    email: str
    joined_at: datetime.datetime
    name: str
    role: RoleView
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        joined_at = self.joined_at.isoformat()

        name = self.name

        role = self.role.value

        user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "email": email,
                "joined_at": joined_at,
                "name": name,
                "role": role,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        email = d.pop("email")

        joined_at = datetime.datetime.fromisoformat(d.pop("joined_at"))

        name = d.pop("name")

        role = RoleView(d.pop("role"))

        user_id = UUID(d.pop("user_id"))

        member_view = cls(
            email=email,
            joined_at=joined_at,
            name=name,
            role=role,
            user_id=user_id,
        )

        member_view.additional_properties = d
        return member_view

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
