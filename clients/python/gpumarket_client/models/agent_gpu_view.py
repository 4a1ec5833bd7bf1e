from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AgentGpuView")


@_attrs_define
class AgentGpuView:
    """One GPU, as `nvidia-smi --query-gpu` reports it.

    Attributes:
        driver_version (str):
        index (int):
        memory_total_mib (int): `memory.total`, MiB.
        name (str): As the driver names it (`NVIDIA H100 80GB HBM3`).
        pci_bus_id (str):
        uuid (str):
        compute_cap (None | str | Unset): `9.0`; `null` where the driver does not say.
        power_limit_w (float | None | Unset): `power.limit`, W; `null` where the GPU does not say.
    """

    driver_version: str
    index: int
    memory_total_mib: int
    name: str
    pci_bus_id: str
    uuid: str
    compute_cap: None | str | Unset = UNSET
    power_limit_w: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        driver_version = self.driver_version

        index = self.index

        memory_total_mib = self.memory_total_mib

        name = self.name

        pci_bus_id = self.pci_bus_id

        uuid = self.uuid

        compute_cap: None | str | Unset
        if isinstance(self.compute_cap, Unset):
            compute_cap = UNSET
        else:
            compute_cap = self.compute_cap

        power_limit_w: float | None | Unset
        if isinstance(self.power_limit_w, Unset):
            power_limit_w = UNSET
        else:
            power_limit_w = self.power_limit_w

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "driver_version": driver_version,
                "index": index,
                "memory_total_mib": memory_total_mib,
                "name": name,
                "pci_bus_id": pci_bus_id,
                "uuid": uuid,
            }
        )
        if compute_cap is not UNSET:
            field_dict["compute_cap"] = compute_cap
        if power_limit_w is not UNSET:
            field_dict["power_limit_w"] = power_limit_w

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        driver_version = d.pop("driver_version")

        index = d.pop("index")

        memory_total_mib = d.pop("memory_total_mib")

        name = d.pop("name")

        pci_bus_id = d.pop("pci_bus_id")

        uuid = d.pop("uuid")

        def _parse_compute_cap(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        compute_cap = _parse_compute_cap(d.pop("compute_cap", UNSET))

        def _parse_power_limit_w(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        power_limit_w = _parse_power_limit_w(d.pop("power_limit_w", UNSET))

        agent_gpu_view = cls(
            driver_version=driver_version,
            index=index,
            memory_total_mib=memory_total_mib,
            name=name,
            pci_bus_id=pci_bus_id,
            uuid=uuid,
            compute_cap=compute_cap,
            power_limit_w=power_limit_w,
        )

        return agent_gpu_view
