from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CreatedApiKeyView")


@_attrs_define
class CreatedApiKeyView:
    """A new key. `key` is shown this once and cannot be retrieved again.

    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        key (str):
        name (str):
        prefix (str):
    """

    created_at: datetime.datetime
    id: UUID
    key: str
    name: str
    prefix: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        key = self.key

        name = self.name

        prefix = self.prefix

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "key": key,
                "name": name,
                "prefix": prefix,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        key = d.pop("key")

        name = d.pop("name")

        prefix = d.pop("prefix")

        created_api_key_view = cls(
            created_at=created_at,
            id=id,
            key=key,
            name=name,
            prefix=prefix,
        )

        created_api_key_view.additional_properties = d
        return created_api_key_view

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
