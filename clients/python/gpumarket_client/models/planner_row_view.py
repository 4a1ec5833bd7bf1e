from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.planner_gpu_view import PlannerGpuView


T = TypeVar("T", bound="PlannerRowView")


@_attrs_define
class PlannerRowView:
    """
    Attributes:
        gpu (PlannerGpuView):
        gpu_count (int): The machine's GPUs (1 when predicted).
        source (str): `measured` (verified listings of this GPU and model: the one that serves the most) or
            `predicted` (the roofline, for one GPU).
        total_tok_s (float):
        users (int): Users one machine serves within the objective (0: none).
        energy_cost_per_hour (float | None | Unset): With `electricity_per_mwh`: the GPUs' energy cost per hour, minor
            units (GPU energy
            only: not the CPU, fans or power-supply losses).
        energy_cost_per_mtok (float | None | Unset): With `electricity_per_mwh`: the energy cost per million output
            tokens, minor units.
        energy_j_per_token (float | None | Unset): Energy per output token at that load, J (a ceiling with
            `board_power`).
        listings (int | None | Unset): With `measured`: how many verified listings of this GPU serve the model.
        machines_needed (int | None | Unset): Machines of this kind it takes for the users asked for (`null`: it serves
            none).
        per_stream_tok_s (float | None | Unset):
        power_source (None | str | Unset): `agent` or `board_power`.
        power_w (float | None | Unset): The machine's GPU power at that load, W: measured rows, the cell's energy per
            token ×
            its tok/s as the machine's agent sampled it; predicted rows, the catalog's board
            power (a ceiling). `null` for a measured row without energy.
        stutter_ms (float | None | Unset): The gap between tokens at that load, ms: the cell's p99 when measured, 1000 ÷
            per-stream tok/s when predicted.
        ttft_ms_p99_estimated (float | None | Unset): TTFT p99 for a fresh prompt of the objective's context at that
            load, estimated: when
            measured, the cell's TTFT p99 plus the prompt's prefill at the measured rate; when
            predicted, the roofline's compute-bound prefill (2 × parameters × context ÷ usable
            FLOPS).
    """

    gpu: PlannerGpuView
    gpu_count: int
    source: str
    total_tok_s: float
    users: int
    energy_cost_per_hour: float | None | Unset = UNSET
    energy_cost_per_mtok: float | None | Unset = UNSET
    energy_j_per_token: float | None | Unset = UNSET
    listings: int | None | Unset = UNSET
    machines_needed: int | None | Unset = UNSET
    per_stream_tok_s: float | None | Unset = UNSET
    power_source: None | str | Unset = UNSET
    power_w: float | None | Unset = UNSET
    stutter_ms: float | None | Unset = UNSET
    ttft_ms_p99_estimated: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu = self.gpu.to_dict()

        gpu_count = self.gpu_count

        source = self.source

        total_tok_s = self.total_tok_s

        users = self.users

        energy_cost_per_hour: float | None | Unset
        if isinstance(self.energy_cost_per_hour, Unset):
            energy_cost_per_hour = UNSET
        else:
            energy_cost_per_hour = self.energy_cost_per_hour

        energy_cost_per_mtok: float | None | Unset
        if isinstance(self.energy_cost_per_mtok, Unset):
            energy_cost_per_mtok = UNSET
        else:
            energy_cost_per_mtok = self.energy_cost_per_mtok

        energy_j_per_token: float | None | Unset
        if isinstance(self.energy_j_per_token, Unset):
            energy_j_per_token = UNSET
        else:
            energy_j_per_token = self.energy_j_per_token

        listings: int | None | Unset
        if isinstance(self.listings, Unset):
            listings = UNSET
        else:
            listings = self.listings

        machines_needed: int | None | Unset
        if isinstance(self.machines_needed, Unset):
            machines_needed = UNSET
        else:
            machines_needed = self.machines_needed

        per_stream_tok_s: float | None | Unset
        if isinstance(self.per_stream_tok_s, Unset):
            per_stream_tok_s = UNSET
        else:
            per_stream_tok_s = self.per_stream_tok_s

        power_source: None | str | Unset
        if isinstance(self.power_source, Unset):
            power_source = UNSET
        else:
            power_source = self.power_source

        power_w: float | None | Unset
        if isinstance(self.power_w, Unset):
            power_w = UNSET
        else:
            power_w = self.power_w

        stutter_ms: float | None | Unset
        if isinstance(self.stutter_ms, Unset):
            stutter_ms = UNSET
        else:
            stutter_ms = self.stutter_ms

        ttft_ms_p99_estimated: float | None | Unset
        if isinstance(self.ttft_ms_p99_estimated, Unset):
            ttft_ms_p99_estimated = UNSET
        else:
            ttft_ms_p99_estimated = self.ttft_ms_p99_estimated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu": gpu,
                "gpu_count": gpu_count,
                "source": source,
                "total_tok_s": total_tok_s,
                "users": users,
            }
        )
        if energy_cost_per_hour is not UNSET:
            field_dict["energy_cost_per_hour"] = energy_cost_per_hour
        if energy_cost_per_mtok is not UNSET:
            field_dict["energy_cost_per_mtok"] = energy_cost_per_mtok
        if energy_j_per_token is not UNSET:
            field_dict["energy_j_per_token"] = energy_j_per_token
        if listings is not UNSET:
            field_dict["listings"] = listings
        if machines_needed is not UNSET:
            field_dict["machines_needed"] = machines_needed
        if per_stream_tok_s is not UNSET:
            field_dict["per_stream_tok_s"] = per_stream_tok_s
        if power_source is not UNSET:
            field_dict["power_source"] = power_source
        if power_w is not UNSET:
            field_dict["power_w"] = power_w
        if stutter_ms is not UNSET:
            field_dict["stutter_ms"] = stutter_ms
        if ttft_ms_p99_estimated is not UNSET:
            field_dict["ttft_ms_p99_estimated"] = ttft_ms_p99_estimated

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.planner_gpu_view import PlannerGpuView  # noqa: PLC0415

        d = dict(src_dict)
        gpu = PlannerGpuView.from_dict(d.pop("gpu"))

        gpu_count = d.pop("gpu_count")

        source = d.pop("source")

        total_tok_s = d.pop("total_tok_s")

        users = d.pop("users")

        def _parse_energy_cost_per_hour(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        energy_cost_per_hour = _parse_energy_cost_per_hour(d.pop("energy_cost_per_hour", UNSET))

        def _parse_energy_cost_per_mtok(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        energy_cost_per_mtok = _parse_energy_cost_per_mtok(d.pop("energy_cost_per_mtok", UNSET))

        def _parse_energy_j_per_token(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        energy_j_per_token = _parse_energy_j_per_token(d.pop("energy_j_per_token", UNSET))

        def _parse_listings(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        listings = _parse_listings(d.pop("listings", UNSET))

        def _parse_machines_needed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        machines_needed = _parse_machines_needed(d.pop("machines_needed", UNSET))

        def _parse_per_stream_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        per_stream_tok_s = _parse_per_stream_tok_s(d.pop("per_stream_tok_s", UNSET))

        def _parse_power_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        power_source = _parse_power_source(d.pop("power_source", UNSET))

        def _parse_power_w(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        power_w = _parse_power_w(d.pop("power_w", UNSET))

        def _parse_stutter_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        stutter_ms = _parse_stutter_ms(d.pop("stutter_ms", UNSET))

        def _parse_ttft_ms_p99_estimated(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ttft_ms_p99_estimated = _parse_ttft_ms_p99_estimated(d.pop("ttft_ms_p99_estimated", UNSET))

        planner_row_view = cls(
            gpu=gpu,
            gpu_count=gpu_count,
            source=source,
            total_tok_s=total_tok_s,
            users=users,
            energy_cost_per_hour=energy_cost_per_hour,
            energy_cost_per_mtok=energy_cost_per_mtok,
            energy_j_per_token=energy_j_per_token,
            listings=listings,
            machines_needed=machines_needed,
            per_stream_tok_s=per_stream_tok_s,
            power_source=power_source,
            power_w=power_w,
            stutter_ms=stutter_ms,
            ttft_ms_p99_estimated=ttft_ms_p99_estimated,
        )

        planner_row_view.additional_properties = d
        return planner_row_view

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
