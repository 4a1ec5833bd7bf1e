from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PublicOrgView")


@_attrs_define
class PublicOrgView:
    """An organisation of the public directory.

    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        listings (int): Its active listings.
        name (str):
        report (str): Its signed report: `GET /v1/orgs/{id}/report`.
        verified_listings (int): Those of them that carry the verified badge now.
    """

    created_at: datetime.datetime
    id: UUID
    listings: int
    name: str
    report: str
    verified_listings: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        listings = self.listings

        name = self.name

        report = self.report

        verified_listings = self.verified_listings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "listings": listings,
                "name": name,
                "report": report,
                "verified_listings": verified_listings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        listings = d.pop("listings")

        name = d.pop("name")

        report = d.pop("report")

        verified_listings = d.pop("verified_listings")

        public_org_view = cls(
            created_at=created_at,
            id=id,
            listings=listings,
            name=name,
            report=report,
            verified_listings=verified_listings,
        )

        public_org_view.additional_properties = d
        return public_org_view

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
