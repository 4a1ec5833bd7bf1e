from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ContainerLogsView")


@_attrs_define
class ContainerLogsView:
    """A booking's container's logs, read by its machine's agent just now.

    Attributes:
        booking_id (UUID):
        read_at (datetime.datetime):
        source (str): Always `agent`: read on the machine by the provider's agent.
        text (str): Standard output and error as the container wrote them, at most 256 KiB.
    """

    booking_id: UUID
    read_at: datetime.datetime
    source: str
    text: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        booking_id = str(self.booking_id)

        read_at = self.read_at.isoformat()

        source = self.source

        text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "booking_id": booking_id,
                "read_at": read_at,
                "source": source,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking_id = UUID(d.pop("booking_id"))

        read_at = datetime.datetime.fromisoformat(d.pop("read_at"))

        source = d.pop("source")

        text = d.pop("text")

        container_logs_view = cls(
            booking_id=booking_id,
            read_at=read_at,
            source=source,
            text=text,
        )

        container_logs_view.additional_properties = d
        return container_logs_view

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
