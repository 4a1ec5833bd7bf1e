from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RaiseBidRequest")


@_attrs_define
class RaiseBidRequest:
    """
    Attributes:
        bid_per_gpu_hour (int): The new bid per GPU-hour, minor units: above the one in force (a bid is never lowered),
            at most 100,000,000.
    """

    bid_per_gpu_hour: int

    def to_dict(self) -> dict[str, Any]:
        bid_per_gpu_hour = self.bid_per_gpu_hour

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "bid_per_gpu_hour": bid_per_gpu_hour,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bid_per_gpu_hour = d.pop("bid_per_gpu_hour")

        raise_bid_request = cls(
            bid_per_gpu_hour=bid_per_gpu_hour,
        )

        return raise_bid_request
