from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="GpuSamplesView")


@_attrs_define
class GpuSamplesView:
    """One GPU's samples, in columns (one entry per sample in each).

    Attributes:
        power_w (list[float]): Power draw, W (0–5000).
        t_ms (list[int]): When each sample was read, milliseconds since the Unix epoch by the machine's clock,
            strictly increasing; at most 6,100 (ten minutes at 10 Hz).
        uuid (str): Its UUID, as the agent's facts report it.
        compute_processes (int | None | Unset): The most compute processes seen on it over the samples (`null`: not
            known): the GPUs
            with one are the engine's.
        energy_mj (list[float] | None | Unset): NVML's total-energy counter, mJ, where the GPU has one.
        sm_clock_mhz (list[float | None] | Unset): SM clock, MHz.
        temperature_c (list[float | None] | Unset): Temperature, °C.
        utilization_pct (list[float | None] | Unset): Utilisation, percent.
    """

    power_w: list[float]
    t_ms: list[int]
    uuid: str
    compute_processes: int | None | Unset = UNSET
    energy_mj: list[float] | None | Unset = UNSET
    sm_clock_mhz: list[float | None] | Unset = UNSET
    temperature_c: list[float | None] | Unset = UNSET
    utilization_pct: list[float | None] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        power_w = self.power_w

        t_ms = self.t_ms

        uuid = self.uuid

        compute_processes: int | None | Unset
        if isinstance(self.compute_processes, Unset):
            compute_processes = UNSET
        else:
            compute_processes = self.compute_processes

        energy_mj: list[float] | None | Unset
        if isinstance(self.energy_mj, Unset):
            energy_mj = UNSET
        elif isinstance(self.energy_mj, list):
            energy_mj = self.energy_mj

        else:
            energy_mj = self.energy_mj

        sm_clock_mhz: list[float | None] | Unset = UNSET
        if not isinstance(self.sm_clock_mhz, Unset):
            sm_clock_mhz = []
            for sm_clock_mhz_item_data in self.sm_clock_mhz:
                sm_clock_mhz_item: float | None
                sm_clock_mhz_item = sm_clock_mhz_item_data
                sm_clock_mhz.append(sm_clock_mhz_item)

        temperature_c: list[float | None] | Unset = UNSET
        if not isinstance(self.temperature_c, Unset):
            temperature_c = []
            for temperature_c_item_data in self.temperature_c:
                temperature_c_item: float | None
                temperature_c_item = temperature_c_item_data
                temperature_c.append(temperature_c_item)

        utilization_pct: list[float | None] | Unset = UNSET
        if not isinstance(self.utilization_pct, Unset):
            utilization_pct = []
            for utilization_pct_item_data in self.utilization_pct:
                utilization_pct_item: float | None
                utilization_pct_item = utilization_pct_item_data
                utilization_pct.append(utilization_pct_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "power_w": power_w,
                "t_ms": t_ms,
                "uuid": uuid,
            }
        )
        if compute_processes is not UNSET:
            field_dict["compute_processes"] = compute_processes
        if energy_mj is not UNSET:
            field_dict["energy_mj"] = energy_mj
        if sm_clock_mhz is not UNSET:
            field_dict["sm_clock_mhz"] = sm_clock_mhz
        if temperature_c is not UNSET:
            field_dict["temperature_c"] = temperature_c
        if utilization_pct is not UNSET:
            field_dict["utilization_pct"] = utilization_pct

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        power_w = cast(list[float], d.pop("power_w"))

        t_ms = cast(list[int], d.pop("t_ms"))

        uuid = d.pop("uuid")

        def _parse_compute_processes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        compute_processes = _parse_compute_processes(d.pop("compute_processes", UNSET))

        def _parse_energy_mj(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                energy_mj_type_0 = cast(list[float], data)

                return energy_mj_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        energy_mj = _parse_energy_mj(d.pop("energy_mj", UNSET))

        _sm_clock_mhz = d.pop("sm_clock_mhz", UNSET)
        sm_clock_mhz: list[float | None] | Unset = UNSET
        if _sm_clock_mhz is not UNSET:
            sm_clock_mhz = []
            for sm_clock_mhz_item_data in _sm_clock_mhz:

                def _parse_sm_clock_mhz_item(data: object) -> float | None:
                    if data is None:
                        return data
                    return cast(float | None, data)

                sm_clock_mhz_item = _parse_sm_clock_mhz_item(sm_clock_mhz_item_data)

                sm_clock_mhz.append(sm_clock_mhz_item)

        _temperature_c = d.pop("temperature_c", UNSET)
        temperature_c: list[float | None] | Unset = UNSET
        if _temperature_c is not UNSET:
            temperature_c = []
            for temperature_c_item_data in _temperature_c:

                def _parse_temperature_c_item(data: object) -> float | None:
                    if data is None:
                        return data
                    return cast(float | None, data)

                temperature_c_item = _parse_temperature_c_item(temperature_c_item_data)

                temperature_c.append(temperature_c_item)

        _utilization_pct = d.pop("utilization_pct", UNSET)
        utilization_pct: list[float | None] | Unset = UNSET
        if _utilization_pct is not UNSET:
            utilization_pct = []
            for utilization_pct_item_data in _utilization_pct:

                def _parse_utilization_pct_item(data: object) -> float | None:
                    if data is None:
                        return data
                    return cast(float | None, data)

                utilization_pct_item = _parse_utilization_pct_item(utilization_pct_item_data)

                utilization_pct.append(utilization_pct_item)

        gpu_samples_view = cls(
            power_w=power_w,
            t_ms=t_ms,
            uuid=uuid,
            compute_processes=compute_processes,
            energy_mj=energy_mj,
            sm_clock_mhz=sm_clock_mhz,
            temperature_c=temperature_c,
            utilization_pct=utilization_pct,
        )

        return gpu_samples_view
