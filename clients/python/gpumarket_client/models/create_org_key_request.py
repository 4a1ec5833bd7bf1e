from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateOrgKeyRequest")


@_attrs_define
class CreateOrgKeyRequest:
    """
    Attributes:
        name (str): A label to tell keys apart.
        scopes (list[str]): At least one of `access:introspect`, `listings:write`, `verifications:write`, `read`;
            or `agent` alone: the provider's agent on the machines of `listing_ids`.
        listing_ids (list[UUID] | Unset): An `agent` key's listings (1 to 100 of the organisation's); no other key has
            any.
    """

    name: str
    scopes: list[str]
    listing_ids: list[UUID] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = self.scopes

        listing_ids: list[str] | Unset = UNSET
        if not isinstance(self.listing_ids, Unset):
            listing_ids = []
            for listing_ids_item_data in self.listing_ids:
                listing_ids_item = str(listing_ids_item_data)
                listing_ids.append(listing_ids_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "scopes": scopes,
            }
        )
        if listing_ids is not UNSET:
            field_dict["listing_ids"] = listing_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        scopes = cast(list[str], d.pop("scopes"))

        _listing_ids = d.pop("listing_ids", UNSET)
        listing_ids: list[UUID] | Unset = UNSET
        if _listing_ids is not UNSET:
            listing_ids = []
            for listing_ids_item_data in _listing_ids:
                listing_ids_item = UUID(listing_ids_item_data)

                listing_ids.append(listing_ids_item)

        create_org_key_request = cls(
            name=name,
            scopes=scopes,
            listing_ids=listing_ids,
        )

        return create_org_key_request
