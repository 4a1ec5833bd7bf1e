from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LogsWantedView")


@_attrs_define
class LogsWantedView:
    """A container's logs a renter asked for.

    Attributes:
        booking_id (UUID):
        request_id (UUID):
        tail (int): The last lines to send.
    """

    booking_id: UUID
    request_id: UUID
    tail: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        booking_id = str(self.booking_id)

        request_id = str(self.request_id)

        tail = self.tail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "booking_id": booking_id,
                "request_id": request_id,
                "tail": tail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking_id = UUID(d.pop("booking_id"))

        request_id = UUID(d.pop("request_id"))

        tail = d.pop("tail")

        logs_wanted_view = cls(
            booking_id=booking_id,
            request_id=request_id,
            tail=tail,
        )

        logs_wanted_view.additional_properties = d
        return logs_wanted_view

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
