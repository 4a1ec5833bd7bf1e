from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="IntrospectionView")


@_attrs_define
class IntrospectionView:
    """RFC 7662's answer. An inactive token gets `{"active": false}` and nothing else.

    Attributes:
        active (bool):
        booking_id (None | Unset | UUID):
        exp (int | None | Unset): Expiry (Unix seconds): the booking's end.
        gpu_count (int | None | Unset):
        listing_id (None | Unset | UUID):
        nbf (int | None | Unset): Not before (Unix seconds): the booking's start.
        sub (None | Unset | UUID): The renter's user id.
        token_type (None | str | Unset):
    """

    active: bool
    booking_id: None | Unset | UUID = UNSET
    exp: int | None | Unset = UNSET
    gpu_count: int | None | Unset = UNSET
    listing_id: None | Unset | UUID = UNSET
    nbf: int | None | Unset = UNSET
    sub: None | Unset | UUID = UNSET
    token_type: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        active = self.active

        booking_id: None | str | Unset
        if isinstance(self.booking_id, Unset):
            booking_id = UNSET
        elif isinstance(self.booking_id, UUID):
            booking_id = str(self.booking_id)
        else:
            booking_id = self.booking_id

        exp: int | None | Unset
        if isinstance(self.exp, Unset):
            exp = UNSET
        else:
            exp = self.exp

        gpu_count: int | None | Unset
        if isinstance(self.gpu_count, Unset):
            gpu_count = UNSET
        else:
            gpu_count = self.gpu_count

        listing_id: None | str | Unset
        if isinstance(self.listing_id, Unset):
            listing_id = UNSET
        elif isinstance(self.listing_id, UUID):
            listing_id = str(self.listing_id)
        else:
            listing_id = self.listing_id

        nbf: int | None | Unset
        if isinstance(self.nbf, Unset):
            nbf = UNSET
        else:
            nbf = self.nbf

        sub: None | str | Unset
        if isinstance(self.sub, Unset):
            sub = UNSET
        elif isinstance(self.sub, UUID):
            sub = str(self.sub)
        else:
            sub = self.sub

        token_type: None | str | Unset
        if isinstance(self.token_type, Unset):
            token_type = UNSET
        else:
            token_type = self.token_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active": active,
            }
        )
        if booking_id is not UNSET:
            field_dict["booking_id"] = booking_id
        if exp is not UNSET:
            field_dict["exp"] = exp
        if gpu_count is not UNSET:
            field_dict["gpu_count"] = gpu_count
        if listing_id is not UNSET:
            field_dict["listing_id"] = listing_id
        if nbf is not UNSET:
            field_dict["nbf"] = nbf
        if sub is not UNSET:
            field_dict["sub"] = sub
        if token_type is not UNSET:
            field_dict["token_type"] = token_type

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        active = d.pop("active")

        def _parse_booking_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                booking_id_type_0 = UUID(data)

                return booking_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        booking_id = _parse_booking_id(d.pop("booking_id", UNSET))

        def _parse_exp(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        exp = _parse_exp(d.pop("exp", UNSET))

        def _parse_gpu_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        gpu_count = _parse_gpu_count(d.pop("gpu_count", UNSET))

        def _parse_listing_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                listing_id_type_0 = UUID(data)

                return listing_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        listing_id = _parse_listing_id(d.pop("listing_id", UNSET))

        def _parse_nbf(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        nbf = _parse_nbf(d.pop("nbf", UNSET))

        def _parse_sub(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sub_type_0 = UUID(data)

                return sub_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        sub = _parse_sub(d.pop("sub", UNSET))

        def _parse_token_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token_type = _parse_token_type(d.pop("token_type", UNSET))

        introspection_view = cls(
            active=active,
            booking_id=booking_id,
            exp=exp,
            gpu_count=gpu_count,
            listing_id=listing_id,
            nbf=nbf,
            sub=sub,
            token_type=token_type,
        )

        introspection_view.additional_properties = d
        return introspection_view

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
