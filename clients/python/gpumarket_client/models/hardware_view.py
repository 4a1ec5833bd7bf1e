from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="HardwareView")


@_attrs_define
class HardwareView:
    """A listing's hardware as the provider claims it.

    Attributes:
        cpu_model (str):
        gpu_count (int):
        gpu_model (str):
        ram_gb (int):
        vram_gb (int):
    """

    cpu_model: str
    gpu_count: int
    gpu_model: str
    ram_gb: int
    vram_gb: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cpu_model = self.cpu_model

        gpu_count = self.gpu_count

        gpu_model = self.gpu_model

        ram_gb = self.ram_gb

        vram_gb = self.vram_gb

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cpu_model": cpu_model,
                "gpu_count": gpu_count,
                "gpu_model": gpu_model,
                "ram_gb": ram_gb,
                "vram_gb": vram_gb,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cpu_model = d.pop("cpu_model")

        gpu_count = d.pop("gpu_count")

        gpu_model = d.pop("gpu_model")

        ram_gb = d.pop("ram_gb")

        vram_gb = d.pop("vram_gb")

        hardware_view = cls(
            cpu_model=cpu_model,
            gpu_count=gpu_count,
            gpu_model=gpu_model,
            ram_gb=ram_gb,
            vram_gb=vram_gb,
        )

        hardware_view.additional_properties = d
        return hardware_view

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
