from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="CreateOrgKeyRequest")


@_attrs_define
class CreateOrgKeyRequest:
    """
    Attributes:
        name (str): A label to tell keys apart.
        scopes (list[str]): At least one of `access:introspect`, `listings:write`, `verifications:write`, `read`.
    """

    name: str
    scopes: list[str]

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = self.scopes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "scopes": scopes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        scopes = cast(list[str], d.pop("scopes"))

        create_org_key_request = cls(
            name=name,
            scopes=scopes,
        )

        return create_org_key_request
