from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="ContainerLogsUpload")


@_attrs_define
class ContainerLogsUpload:
    """The agent's answer to a logs request.

    Attributes:
        booking_id (UUID):
        request_id (UUID):
        text (str): What the container wrote (standard output and error), at most 256 KiB.
    """

    booking_id: UUID
    request_id: UUID
    text: str

    def to_dict(self) -> dict[str, Any]:
        booking_id = str(self.booking_id)

        request_id = str(self.request_id)

        text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "booking_id": booking_id,
                "request_id": request_id,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking_id = UUID(d.pop("booking_id"))

        request_id = UUID(d.pop("request_id"))

        text = d.pop("text")

        container_logs_upload = cls(
            booking_id=booking_id,
            request_id=request_id,
            text=text,
        )

        return container_logs_upload
