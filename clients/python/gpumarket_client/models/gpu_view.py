from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GpuView")


@_attrs_define
class GpuView:
    """A GPU as its vendor publishes it.

    Attributes:
        aliases (list[str]): Names a listing's `hardware.gpu_model` may use for it.
        board_power_w (float): The vendor's maximum board power, W (max TDP, total graphics or board power): what an
            agent's power samples are judged against.
        fp16_tensor_tflops (float): Dense FP16 tensor TFLOPS.
        id (str): URL-safe slug, e.g. `rtx-3060-12gb`.
        memory_bandwidth_gb_s (float): GB/s (10⁹ bytes per second).
        name (str):
        source (str): The datasheet or whitepaper the figures come from.
        vendor (str):
        vram_gb (float):
        board_power_source (None | str | Unset): Where the board power is published, when not in `source`.
    """

    aliases: list[str]
    board_power_w: float
    fp16_tensor_tflops: float
    id: str
    memory_bandwidth_gb_s: float
    name: str
    source: str
    vendor: str
    vram_gb: float
    board_power_source: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        aliases = self.aliases

        board_power_w = self.board_power_w

        fp16_tensor_tflops = self.fp16_tensor_tflops

        id = self.id

        memory_bandwidth_gb_s = self.memory_bandwidth_gb_s

        name = self.name

        source = self.source

        vendor = self.vendor

        vram_gb = self.vram_gb

        board_power_source: None | str | Unset
        if isinstance(self.board_power_source, Unset):
            board_power_source = UNSET
        else:
            board_power_source = self.board_power_source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "aliases": aliases,
                "board_power_w": board_power_w,
                "fp16_tensor_tflops": fp16_tensor_tflops,
                "id": id,
                "memory_bandwidth_gb_s": memory_bandwidth_gb_s,
                "name": name,
                "source": source,
                "vendor": vendor,
                "vram_gb": vram_gb,
            }
        )
        if board_power_source is not UNSET:
            field_dict["board_power_source"] = board_power_source

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        aliases = cast(list[str], d.pop("aliases"))

        board_power_w = d.pop("board_power_w")

        fp16_tensor_tflops = d.pop("fp16_tensor_tflops")

        id = d.pop("id")

        memory_bandwidth_gb_s = d.pop("memory_bandwidth_gb_s")

        name = d.pop("name")

        source = d.pop("source")

        vendor = d.pop("vendor")

        vram_gb = d.pop("vram_gb")

        def _parse_board_power_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        board_power_source = _parse_board_power_source(d.pop("board_power_source", UNSET))

        gpu_view = cls(
            aliases=aliases,
            board_power_w=board_power_w,
            fp16_tensor_tflops=fp16_tensor_tflops,
            id=id,
            memory_bandwidth_gb_s=memory_bandwidth_gb_s,
            name=name,
            source=source,
            vendor=vendor,
            vram_gb=vram_gb,
            board_power_source=board_power_source,
        )

        gpu_view.additional_properties = d
        return gpu_view

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
