from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.gpu_samples_view import GpuSamplesView


T = TypeVar("T", bound="TelemetryView")


@_attrs_define
class TelemetryView:
    """A run's GPU samples, uploaded once the desired state names the run in `telemetry_wanted`.

    Attributes:
        gpus (list[GpuSamplesView]): At most 64 GPUs, each among those the agent's facts report.
        run_id (UUID):
        source (str): `nvml` or `nvidia-smi`.
    """

    gpus: list[GpuSamplesView]
    run_id: UUID
    source: str

    def to_dict(self) -> dict[str, Any]:
        gpus = []
        for gpus_item_data in self.gpus:
            gpus_item = gpus_item_data.to_dict()
            gpus.append(gpus_item)

        run_id = str(self.run_id)

        source = self.source

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "gpus": gpus,
                "run_id": run_id,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gpu_samples_view import GpuSamplesView  # noqa: PLC0415

        d = dict(src_dict)
        gpus = []
        _gpus = d.pop("gpus")
        for gpus_item_data in _gpus:
            gpus_item = GpuSamplesView.from_dict(gpus_item_data)

            gpus.append(gpus_item)

        run_id = UUID(d.pop("run_id"))

        source = d.pop("source")

        telemetry_view = cls(
            gpus=gpus,
            run_id=run_id,
            source=source,
        )

        return telemetry_view
