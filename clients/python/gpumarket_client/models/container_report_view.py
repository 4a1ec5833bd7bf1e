from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="ContainerReportView")


@_attrs_define
class ContainerReportView:
    """One booking's container, as the agent runs it.

    Attributes:
        booking_id (UUID):
        gpus (list[str]): The GPUs it holds, by UUID (at most 64).
        state (str): `created`, `running`, `paused`, `restarting`, `removing`, `exited` or `dead`.
    """

    booking_id: UUID
    gpus: list[str]
    state: str

    def to_dict(self) -> dict[str, Any]:
        booking_id = str(self.booking_id)

        gpus = self.gpus

        state = self.state

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "booking_id": booking_id,
                "gpus": gpus,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking_id = UUID(d.pop("booking_id"))

        gpus = cast(list[str], d.pop("gpus"))

        state = d.pop("state")

        container_report_view = cls(
            booking_id=booking_id,
            gpus=gpus,
            state=state,
        )

        return container_report_view
