from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="VerifyRequest")


@_attrs_define
class VerifyRequest:
    """
    Attributes:
        profile (str): `standard` (the full matrix) or `quick`.
        visibility (None | str | Unset): `public` (default), or `private` (Pro): the report is signed and logged as any
            other, shown to the organisation's members and share links only, absent from search
            figures, the leaderboard and public pages, and it sets no badge.
    """

    profile: str
    visibility: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        profile = self.profile

        visibility: None | str | Unset
        if isinstance(self.visibility, Unset):
            visibility = UNSET
        else:
            visibility = self.visibility

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "profile": profile,
            }
        )
        if visibility is not UNSET:
            field_dict["visibility"] = visibility

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        profile = d.pop("profile")

        def _parse_visibility(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        visibility = _parse_visibility(d.pop("visibility", UNSET))

        verify_request = cls(
            profile=profile,
            visibility=visibility,
        )

        return verify_request
