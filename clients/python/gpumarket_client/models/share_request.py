from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ShareRequest")


@_attrs_define
class ShareRequest:
    """
    Attributes:
        expires_in_secs (int | None | Unset): How long the link lasts: 60 s to 90 days (default 7 days).
    """

    expires_in_secs: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        expires_in_secs: int | None | Unset
        if isinstance(self.expires_in_secs, Unset):
            expires_in_secs = UNSET
        else:
            expires_in_secs = self.expires_in_secs

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if expires_in_secs is not UNSET:
            field_dict["expires_in_secs"] = expires_in_secs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_expires_in_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_in_secs = _parse_expires_in_secs(d.pop("expires_in_secs", UNSET))

        share_request = cls(
            expires_in_secs=expires_in_secs,
        )

        return share_request
