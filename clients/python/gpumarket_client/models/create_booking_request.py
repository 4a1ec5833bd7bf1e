from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="CreateBookingRequest")


@_attrs_define
class CreateBookingRequest:
    """
    Attributes:
        ends_at (datetime.datetime):
        gpu_count (int):
        listing_id (UUID):
        starts_at (datetime.datetime): Start of the half-open interval `[starts_at, ends_at)`, RFC 3339.
    """

    ends_at: datetime.datetime
    gpu_count: int
    listing_id: UUID
    starts_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        ends_at = self.ends_at.isoformat()

        gpu_count = self.gpu_count

        listing_id = str(self.listing_id)

        starts_at = self.starts_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ends_at": ends_at,
                "gpu_count": gpu_count,
                "listing_id": listing_id,
                "starts_at": starts_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ends_at = datetime.datetime.fromisoformat(d.pop("ends_at"))

        gpu_count = d.pop("gpu_count")

        listing_id = UUID(d.pop("listing_id"))

        starts_at = datetime.datetime.fromisoformat(d.pop("starts_at"))

        create_booking_request = cls(
            ends_at=ends_at,
            gpu_count=gpu_count,
            listing_id=listing_id,
            starts_at=starts_at,
        )

        return create_booking_request
