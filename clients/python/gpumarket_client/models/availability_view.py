from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.free_segment_view import FreeSegmentView


T = TypeVar("T", bound="AvailabilityView")


@_attrs_define
class AvailabilityView:
    """
    Attributes:
        from_ (datetime.datetime):
        gpu_count (int):
        listing_id (UUID):
        segments (list[FreeSegmentView]): Consecutive segments covering `[from, to)`; none are free outside the
            listing's
            availability window or once it is delisted.
        to (datetime.datetime):
    """

    from_: datetime.datetime
    gpu_count: int
    listing_id: UUID
    segments: list[FreeSegmentView]
    to: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        gpu_count = self.gpu_count

        listing_id = str(self.listing_id)

        segments = []
        for segments_item_data in self.segments:
            segments_item = segments_item_data.to_dict()
            segments.append(segments_item)

        to = self.to.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "gpu_count": gpu_count,
                "listing_id": listing_id,
                "segments": segments,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.free_segment_view import FreeSegmentView  # noqa: PLC0415

        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        gpu_count = d.pop("gpu_count")

        listing_id = UUID(d.pop("listing_id"))

        segments = []
        _segments = d.pop("segments")
        for segments_item_data in _segments:
            segments_item = FreeSegmentView.from_dict(segments_item_data)

            segments.append(segments_item)

        to = datetime.datetime.fromisoformat(d.pop("to"))

        availability_view = cls(
            from_=from_,
            gpu_count=gpu_count,
            listing_id=listing_id,
            segments=segments,
            to=to,
        )

        availability_view.additional_properties = d
        return availability_view

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
