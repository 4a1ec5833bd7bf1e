from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="HardwarePatch")


@_attrs_define
class HardwarePatch:
    """
    Attributes:
        cpu_model (None | str | Unset):
        gpu_count (int | None | Unset):
        gpu_model (None | str | Unset):
        ram_gb (int | None | Unset):
        vram_gb (int | None | Unset):
    """

    cpu_model: None | str | Unset = UNSET
    gpu_count: int | None | Unset = UNSET
    gpu_model: None | str | Unset = UNSET
    ram_gb: int | None | Unset = UNSET
    vram_gb: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        cpu_model: None | str | Unset
        if isinstance(self.cpu_model, Unset):
            cpu_model = UNSET
        else:
            cpu_model = self.cpu_model

        gpu_count: int | None | Unset
        if isinstance(self.gpu_count, Unset):
            gpu_count = UNSET
        else:
            gpu_count = self.gpu_count

        gpu_model: None | str | Unset
        if isinstance(self.gpu_model, Unset):
            gpu_model = UNSET
        else:
            gpu_model = self.gpu_model

        ram_gb: int | None | Unset
        if isinstance(self.ram_gb, Unset):
            ram_gb = UNSET
        else:
            ram_gb = self.ram_gb

        vram_gb: int | None | Unset
        if isinstance(self.vram_gb, Unset):
            vram_gb = UNSET
        else:
            vram_gb = self.vram_gb

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if cpu_model is not UNSET:
            field_dict["cpu_model"] = cpu_model
        if gpu_count is not UNSET:
            field_dict["gpu_count"] = gpu_count
        if gpu_model is not UNSET:
            field_dict["gpu_model"] = gpu_model
        if ram_gb is not UNSET:
            field_dict["ram_gb"] = ram_gb
        if vram_gb is not UNSET:
            field_dict["vram_gb"] = vram_gb

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_cpu_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cpu_model = _parse_cpu_model(d.pop("cpu_model", UNSET))

        def _parse_gpu_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        gpu_count = _parse_gpu_count(d.pop("gpu_count", UNSET))

        def _parse_gpu_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gpu_model = _parse_gpu_model(d.pop("gpu_model", UNSET))

        def _parse_ram_gb(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ram_gb = _parse_ram_gb(d.pop("ram_gb", UNSET))

        def _parse_vram_gb(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vram_gb = _parse_vram_gb(d.pop("vram_gb", UNSET))

        hardware_patch = cls(
            cpu_model=cpu_model,
            gpu_count=gpu_count,
            gpu_model=gpu_model,
            ram_gb=ram_gb,
            vram_gb=vram_gb,
        )

        return hardware_patch
