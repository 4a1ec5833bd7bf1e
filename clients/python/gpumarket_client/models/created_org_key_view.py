from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreatedOrgKeyView")


@_attrs_define
class CreatedOrgKeyView:
    """A new organisation key. `key` is shown this once.

    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        key (str):
        name (str):
        prefix (str):
        scopes (list[str]):
        listing_ids (list[UUID] | Unset): The listings an `agent` key is bound to.
    """

    created_at: datetime.datetime
    id: UUID
    key: str
    name: str
    prefix: str
    scopes: list[str]
    listing_ids: list[UUID] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        key = self.key

        name = self.name

        prefix = self.prefix

        scopes = self.scopes

        listing_ids: list[str] | Unset = UNSET
        if not isinstance(self.listing_ids, Unset):
            listing_ids = []
            for listing_ids_item_data in self.listing_ids:
                listing_ids_item = str(listing_ids_item_data)
                listing_ids.append(listing_ids_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "key": key,
                "name": name,
                "prefix": prefix,
                "scopes": scopes,
            }
        )
        if listing_ids is not UNSET:
            field_dict["listing_ids"] = listing_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        key = d.pop("key")

        name = d.pop("name")

        prefix = d.pop("prefix")

        scopes = cast(list[str], d.pop("scopes"))

        _listing_ids = d.pop("listing_ids", UNSET)
        listing_ids: list[UUID] | Unset = UNSET
        if _listing_ids is not UNSET:
            listing_ids = []
            for listing_ids_item_data in _listing_ids:
                listing_ids_item = UUID(listing_ids_item_data)

                listing_ids.append(listing_ids_item)

        created_org_key_view = cls(
            created_at=created_at,
            id=id,
            key=key,
            name=name,
            prefix=prefix,
            scopes=scopes,
            listing_ids=listing_ids,
        )

        created_org_key_view.additional_properties = d
        return created_org_key_view

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
