from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.role_view import RoleView

T = TypeVar("T", bound="InviteRequest")


@_attrs_define
class InviteRequest:
    """
    Attributes:
        email (str): Whom to invite: they accept signed in with this email.
        role (RoleView): A member's role in an organisation.
    """

    email: str
    role: RoleView

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "email": email,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        email = d.pop("email")

        role = RoleView(d.pop("role"))

        invite_request = cls(
            email=email,
            role=role,
        )

        return invite_request
