from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SigningKeyView")


@_attrs_define
class SigningKeyView:
    """A published signing key.

    Attributes:
        algorithm (str): Always `ed25519`.
        created_at (str):
        key_id (str): `ed25519:` and the first 16 bytes of SHA-256 of the public key, hex.
        public_key (str): Standard base64 of the 32-byte raw public key.
        log_verifier_key (None | str | Unset): The key as a C2SP signed-note verifier key for the transparency log's
            checkpoints
            (`<origin>+<key hash hex>+<base64(0x01 ‖ public key)>`).
        retired_at (None | str | Unset): Set once the key stopped signing; it still verifies what it signed.
    """

    algorithm: str
    created_at: str
    key_id: str
    public_key: str
    log_verifier_key: None | str | Unset = UNSET
    retired_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        algorithm = self.algorithm

        created_at = self.created_at

        key_id = self.key_id

        public_key = self.public_key

        log_verifier_key: None | str | Unset
        if isinstance(self.log_verifier_key, Unset):
            log_verifier_key = UNSET
        else:
            log_verifier_key = self.log_verifier_key

        retired_at: None | str | Unset
        if isinstance(self.retired_at, Unset):
            retired_at = UNSET
        else:
            retired_at = self.retired_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "algorithm": algorithm,
                "created_at": created_at,
                "key_id": key_id,
                "public_key": public_key,
            }
        )
        if log_verifier_key is not UNSET:
            field_dict["log_verifier_key"] = log_verifier_key
        if retired_at is not UNSET:
            field_dict["retired_at"] = retired_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        algorithm = d.pop("algorithm")

        created_at = d.pop("created_at")

        key_id = d.pop("key_id")

        public_key = d.pop("public_key")

        def _parse_log_verifier_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        log_verifier_key = _parse_log_verifier_key(d.pop("log_verifier_key", UNSET))

        def _parse_retired_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        retired_at = _parse_retired_at(d.pop("retired_at", UNSET))

        signing_key_view = cls(
            algorithm=algorithm,
            created_at=created_at,
            key_id=key_id,
            public_key=public_key,
            log_verifier_key=log_verifier_key,
            retired_at=retired_at,
        )

        signing_key_view.additional_properties = d
        return signing_key_view

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
