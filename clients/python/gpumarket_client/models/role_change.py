from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.role_view import RoleView

T = TypeVar("T", bound="RoleChange")


@_attrs_define
class RoleChange:
    """
    Attributes:
        role (RoleView): A member's role in an organisation.
    """

    role: RoleView

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        role = RoleView(d.pop("role"))

        role_change = cls(
            role=role,
        )

        return role_change
