from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.booking_container_view import BookingContainerView


T = TypeVar("T", bound="DesiredContainerView")


@_attrs_define
class DesiredContainerView:
    """A booking's container as its machine is to run it.

    Attributes:
        ask (BookingContainerView): A container a booking runs on its GPUs: an image the listing allows
            (`access.containers.images`), an optional command and plain environment variables.
        memory_bytes (int): Memory limit, bytes: `max_memory_gb_per_gpu` GiB × the booking's GPUs.
        nano_cpus (int): CPU limit, billionths of a CPU (Docker's `NanoCpus`): the listing's
            `max_cpus_per_gpu` × the booking's GPUs.
        writable_root (bool): Whether the root file system may be written.
    """

    ask: BookingContainerView
    memory_bytes: int
    nano_cpus: int
    writable_root: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ask = self.ask.to_dict()

        memory_bytes = self.memory_bytes

        nano_cpus = self.nano_cpus

        writable_root = self.writable_root

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ask": ask,
                "memory_bytes": memory_bytes,
                "nano_cpus": nano_cpus,
                "writable_root": writable_root,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking_container_view import BookingContainerView  # noqa: PLC0415

        d = dict(src_dict)
        ask = BookingContainerView.from_dict(d.pop("ask"))

        memory_bytes = d.pop("memory_bytes")

        nano_cpus = d.pop("nano_cpus")

        writable_root = d.pop("writable_root")

        desired_container_view = cls(
            ask=ask,
            memory_bytes=memory_bytes,
            nano_cpus=nano_cpus,
            writable_root=writable_root,
        )

        desired_container_view.additional_properties = d
        return desired_container_view

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
