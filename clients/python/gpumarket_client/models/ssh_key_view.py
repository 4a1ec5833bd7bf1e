from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SshKeyView")


@_attrs_define
class SshKeyView:
    """An SSH public key the account keeps.

    Attributes:
        created_at (datetime.datetime):
        fingerprint (str): `SHA256:…`, as `ssh-keygen -lf` prints it.
        id (UUID):
        name (str):
        public_key (str): The key as an `authorized_keys` line starts (`ssh-ed25519 AAAA…`), without the comment
            it came with.
    """

    created_at: datetime.datetime
    fingerprint: str
    id: UUID
    name: str
    public_key: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        fingerprint = self.fingerprint

        id = str(self.id)

        name = self.name

        public_key = self.public_key

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "fingerprint": fingerprint,
                "id": id,
                "name": name,
                "public_key": public_key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        fingerprint = d.pop("fingerprint")

        id = UUID(d.pop("id"))

        name = d.pop("name")

        public_key = d.pop("public_key")

        ssh_key_view = cls(
            created_at=created_at,
            fingerprint=fingerprint,
            id=id,
            name=name,
            public_key=public_key,
        )

        ssh_key_view.additional_properties = d
        return ssh_key_view

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
