from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="GpuHealthView")


@_attrs_define
class GpuHealthView:
    """One GPU's health, as the agent reads it.

    Attributes:
        uuid (str): Its UUID (1–64 letters, digits and `-`).
        compute_processes (int | None | Unset): Compute processes running on it.
        ecc_errors_uncorrected (int | None | Unset): Uncorrected ECC errors since the driver loaded; `null` without ECC.
        persistence_mode (bool | None | Unset): Whether the driver stays loaded with no client.
        throttle_reasons (list[str] | Unset): Why its clocks are held down now: `gpu_idle`,
            `applications_clocks_setting`,
            `sw_power_cap`, `hw_slowdown`, `sync_boost`, `sw_thermal_slowdown`,
            `hw_thermal_slowdown`, `hw_power_brake_slowdown`, `display_clock_setting`.
    """

    uuid: str
    compute_processes: int | None | Unset = UNSET
    ecc_errors_uncorrected: int | None | Unset = UNSET
    persistence_mode: bool | None | Unset = UNSET
    throttle_reasons: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        uuid = self.uuid

        compute_processes: int | None | Unset
        if isinstance(self.compute_processes, Unset):
            compute_processes = UNSET
        else:
            compute_processes = self.compute_processes

        ecc_errors_uncorrected: int | None | Unset
        if isinstance(self.ecc_errors_uncorrected, Unset):
            ecc_errors_uncorrected = UNSET
        else:
            ecc_errors_uncorrected = self.ecc_errors_uncorrected

        persistence_mode: bool | None | Unset
        if isinstance(self.persistence_mode, Unset):
            persistence_mode = UNSET
        else:
            persistence_mode = self.persistence_mode

        throttle_reasons: list[str] | Unset = UNSET
        if not isinstance(self.throttle_reasons, Unset):
            throttle_reasons = self.throttle_reasons

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "uuid": uuid,
            }
        )
        if compute_processes is not UNSET:
            field_dict["compute_processes"] = compute_processes
        if ecc_errors_uncorrected is not UNSET:
            field_dict["ecc_errors_uncorrected"] = ecc_errors_uncorrected
        if persistence_mode is not UNSET:
            field_dict["persistence_mode"] = persistence_mode
        if throttle_reasons is not UNSET:
            field_dict["throttle_reasons"] = throttle_reasons

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        uuid = d.pop("uuid")

        def _parse_compute_processes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        compute_processes = _parse_compute_processes(d.pop("compute_processes", UNSET))

        def _parse_ecc_errors_uncorrected(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ecc_errors_uncorrected = _parse_ecc_errors_uncorrected(d.pop("ecc_errors_uncorrected", UNSET))

        def _parse_persistence_mode(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        persistence_mode = _parse_persistence_mode(d.pop("persistence_mode", UNSET))

        throttle_reasons = cast(list[str], d.pop("throttle_reasons", UNSET))

        gpu_health_view = cls(
            uuid=uuid,
            compute_processes=compute_processes,
            ecc_errors_uncorrected=ecc_errors_uncorrected,
            persistence_mode=persistence_mode,
            throttle_reasons=throttle_reasons,
        )

        return gpu_health_view
