from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="AddSshKeyRequest")


@_attrs_define
class AddSshKeyRequest:
    """
    Attributes:
        name (str): A label to tell keys apart.
        public_key (str): One OpenSSH public key line, as in a `.pub` file: ed25519, ECDSA, or RSA of at least
            3,072 bits. Its comment is not kept.
    """

    name: str
    public_key: str

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        public_key = self.public_key

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "public_key": public_key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        public_key = d.pop("public_key")

        add_ssh_key_request = cls(
            name=name,
            public_key=public_key,
        )

        return add_ssh_key_request
