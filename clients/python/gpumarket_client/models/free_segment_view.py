from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FreeSegmentView")


@_attrs_define
class FreeSegmentView:
    """A stretch of time with the same number of free GPUs.

    Attributes:
        free_gpus (int): GPUs free for an on-demand booking (which displaces interruptible ones).
        from_ (datetime.datetime):
        interruptible_gpus (int): Of `free_gpus`, those held by interruptible bookings: free for on demand, taken for a
            bid at or below theirs (see `GET /v1/quote`).
        to (datetime.datetime):
    """

    free_gpus: int
    from_: datetime.datetime
    interruptible_gpus: int
    to: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        free_gpus = self.free_gpus

        from_ = self.from_.isoformat()

        interruptible_gpus = self.interruptible_gpus

        to = self.to.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "free_gpus": free_gpus,
                "from": from_,
                "interruptible_gpus": interruptible_gpus,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        free_gpus = d.pop("free_gpus")

        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        interruptible_gpus = d.pop("interruptible_gpus")

        to = datetime.datetime.fromisoformat(d.pop("to"))

        free_segment_view = cls(
            free_gpus=free_gpus,
            from_=from_,
            interruptible_gpus=interruptible_gpus,
            to=to,
        )

        free_segment_view.additional_properties = d
        return free_segment_view

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
