from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.agent_gpu_view import AgentGpuView


T = TypeVar("T", bound="AgentFactsView")


@_attrs_define
class AgentFactsView:
    """What a machine says it is, as `gpumarket agent facts` prints it. Texts are at most 128
    printable characters, at most 64 GPUs (422 naming the field otherwise).

        Attributes:
            gpus (list[AgentGpuView]):
            cpu_cores (int | None | Unset):
            cpu_model (None | str | Unset):
            disk_free_gb (float | None | Unset): Free space of the agent's state directory's file system, GiB.
            kernel (None | str | Unset):
            os (None | str | Unset):
            ram_gb (float | None | Unset): GiB.
    """

    gpus: list[AgentGpuView]
    cpu_cores: int | None | Unset = UNSET
    cpu_model: None | str | Unset = UNSET
    disk_free_gb: float | None | Unset = UNSET
    kernel: None | str | Unset = UNSET
    os: None | str | Unset = UNSET
    ram_gb: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        gpus = []
        for gpus_item_data in self.gpus:
            gpus_item = gpus_item_data.to_dict()
            gpus.append(gpus_item)

        cpu_cores: int | None | Unset
        if isinstance(self.cpu_cores, Unset):
            cpu_cores = UNSET
        else:
            cpu_cores = self.cpu_cores

        cpu_model: None | str | Unset
        if isinstance(self.cpu_model, Unset):
            cpu_model = UNSET
        else:
            cpu_model = self.cpu_model

        disk_free_gb: float | None | Unset
        if isinstance(self.disk_free_gb, Unset):
            disk_free_gb = UNSET
        else:
            disk_free_gb = self.disk_free_gb

        kernel: None | str | Unset
        if isinstance(self.kernel, Unset):
            kernel = UNSET
        else:
            kernel = self.kernel

        os: None | str | Unset
        if isinstance(self.os, Unset):
            os = UNSET
        else:
            os = self.os

        ram_gb: float | None | Unset
        if isinstance(self.ram_gb, Unset):
            ram_gb = UNSET
        else:
            ram_gb = self.ram_gb

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "gpus": gpus,
            }
        )
        if cpu_cores is not UNSET:
            field_dict["cpu_cores"] = cpu_cores
        if cpu_model is not UNSET:
            field_dict["cpu_model"] = cpu_model
        if disk_free_gb is not UNSET:
            field_dict["disk_free_gb"] = disk_free_gb
        if kernel is not UNSET:
            field_dict["kernel"] = kernel
        if os is not UNSET:
            field_dict["os"] = os
        if ram_gb is not UNSET:
            field_dict["ram_gb"] = ram_gb

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_gpu_view import AgentGpuView  # noqa: PLC0415

        d = dict(src_dict)
        gpus = []
        _gpus = d.pop("gpus")
        for gpus_item_data in _gpus:
            gpus_item = AgentGpuView.from_dict(gpus_item_data)

            gpus.append(gpus_item)

        def _parse_cpu_cores(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cpu_cores = _parse_cpu_cores(d.pop("cpu_cores", UNSET))

        def _parse_cpu_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cpu_model = _parse_cpu_model(d.pop("cpu_model", UNSET))

        def _parse_disk_free_gb(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        disk_free_gb = _parse_disk_free_gb(d.pop("disk_free_gb", UNSET))

        def _parse_kernel(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        kernel = _parse_kernel(d.pop("kernel", UNSET))

        def _parse_os(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        os = _parse_os(d.pop("os", UNSET))

        def _parse_ram_gb(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ram_gb = _parse_ram_gb(d.pop("ram_gb", UNSET))

        agent_facts_view = cls(
            gpus=gpus,
            cpu_cores=cpu_cores,
            cpu_model=cpu_model,
            disk_free_gb=disk_free_gb,
            kernel=kernel,
            os=os,
            ram_gb=ram_gb,
        )

        return agent_facts_view
