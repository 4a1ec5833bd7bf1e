from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FormulaView")


@_attrs_define
class FormulaView:
    """
    Attributes:
        bytes_per_step (float): Bytes one decode step reads: weights + concurrency × (context × KV bytes per token +
            recurrent state).
        efficiency (float): Share of peak bandwidth and tensor throughput achieved, the same for every GPU.
        gpu_memory_utilization (float): Share of the GPU's memory the engine takes.
        kv_bytes_per_token (float):
        output_tokens (int): Tokens each stream may still write when counting what fits (the standard's output).
    """

    bytes_per_step: float
    efficiency: float
    gpu_memory_utilization: float
    kv_bytes_per_token: float
    output_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_per_step = self.bytes_per_step

        efficiency = self.efficiency

        gpu_memory_utilization = self.gpu_memory_utilization

        kv_bytes_per_token = self.kv_bytes_per_token

        output_tokens = self.output_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes_per_step": bytes_per_step,
                "efficiency": efficiency,
                "gpu_memory_utilization": gpu_memory_utilization,
                "kv_bytes_per_token": kv_bytes_per_token,
                "output_tokens": output_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bytes_per_step = d.pop("bytes_per_step")

        efficiency = d.pop("efficiency")

        gpu_memory_utilization = d.pop("gpu_memory_utilization")

        kv_bytes_per_token = d.pop("kv_bytes_per_token")

        output_tokens = d.pop("output_tokens")

        formula_view = cls(
            bytes_per_step=bytes_per_step,
            efficiency=efficiency,
            gpu_memory_utilization=gpu_memory_utilization,
            kv_bytes_per_token=kv_bytes_per_token,
            output_tokens=output_tokens,
        )

        formula_view.additional_properties = d
        return formula_view

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
