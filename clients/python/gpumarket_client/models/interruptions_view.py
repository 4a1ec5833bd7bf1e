from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="InterruptionsView")


@_attrs_define
class InterruptionsView:
    """Bookings maintenance windows interrupted: each kept its interval, had no access over the
    window, and was given back the share of its price the window took.

        Attributes:
            bookings (int): Bookings interrupted.
            gpu_hours (float): GPU-hours of bookings the windows took.
            windows (int): Windows that interrupted at least one booking.
    """

    bookings: int
    gpu_hours: float
    windows: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bookings = self.bookings

        gpu_hours = self.gpu_hours

        windows = self.windows

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bookings": bookings,
                "gpu_hours": gpu_hours,
                "windows": windows,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bookings = d.pop("bookings")

        gpu_hours = d.pop("gpu_hours")

        windows = d.pop("windows")

        interruptions_view = cls(
            bookings=bookings,
            gpu_hours=gpu_hours,
            windows=windows,
        )

        interruptions_view.additional_properties = d
        return interruptions_view

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
