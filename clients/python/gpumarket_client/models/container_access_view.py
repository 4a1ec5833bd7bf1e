from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ContainerAccessView")


@_attrs_define
class ContainerAccessView:
    """What a listing offers to bookings that ask for a container (`container` on a booking).

    Attributes:
        images (list[str]): The images a booking may run, by reference (`vllm/vllm-openai:v0.32.0`) or digest
            (`…@sha256:…`), matched exactly; 1 to 32 of lower-case `name[:tag][@digest]`.
        max_cpus_per_gpu (float): CPUs per booked GPU (0.1 to 256): a booking's container gets its GPUs' share.
        max_memory_gb_per_gpu (float): Memory per booked GPU, GiB (1 to 4096).
        writable_root (bool | Unset): Whether the container's root file system may be written (default: read-only, with
            `/workspace` and `/tmp` writable).
    """

    images: list[str]
    max_cpus_per_gpu: float
    max_memory_gb_per_gpu: float
    writable_root: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        images = self.images

        max_cpus_per_gpu = self.max_cpus_per_gpu

        max_memory_gb_per_gpu = self.max_memory_gb_per_gpu

        writable_root = self.writable_root

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "images": images,
                "max_cpus_per_gpu": max_cpus_per_gpu,
                "max_memory_gb_per_gpu": max_memory_gb_per_gpu,
            }
        )
        if writable_root is not UNSET:
            field_dict["writable_root"] = writable_root

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        images = cast(list[str], d.pop("images"))

        max_cpus_per_gpu = d.pop("max_cpus_per_gpu")

        max_memory_gb_per_gpu = d.pop("max_memory_gb_per_gpu")

        writable_root = d.pop("writable_root", UNSET)

        container_access_view = cls(
            images=images,
            max_cpus_per_gpu=max_cpus_per_gpu,
            max_memory_gb_per_gpu=max_memory_gb_per_gpu,
            writable_root=writable_root,
        )

        return container_access_view
