from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PasswordRequest")


@_attrs_define
class PasswordRequest:
    """
    Attributes:
        current_password (str):
        new_password (str):
        keep_api_keys (bool | Unset): Keep your personal API keys working (by default a password change revokes them:
            whoever knew the old password may have made one).
    """

    current_password: str
    new_password: str
    keep_api_keys: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        current_password = self.current_password

        new_password = self.new_password

        keep_api_keys = self.keep_api_keys

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "current_password": current_password,
                "new_password": new_password,
            }
        )
        if keep_api_keys is not UNSET:
            field_dict["keep_api_keys"] = keep_api_keys

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        current_password = d.pop("current_password")

        new_password = d.pop("new_password")

        keep_api_keys = d.pop("keep_api_keys", UNSET)

        password_request = cls(
            current_password=current_password,
            new_password=new_password,
            keep_api_keys=keep_api_keys,
        )

        return password_request
