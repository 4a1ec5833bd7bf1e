from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="VerificationCostView")


@_attrs_define
class VerificationCostView:
    """What the listing's last verification (or spot check) cost its GPU (standard, "Cost").

    Attributes:
        cells_run (int): Decode cells measured.
        cells_skipped (int): Decode cells skipped as over capacity.
        gpu_s_estimate (float): Seconds the engine had at least one of the harness's requests open.
        wall_s (float): Seconds the run took.
    """

    cells_run: int
    cells_skipped: int
    gpu_s_estimate: float
    wall_s: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cells_run = self.cells_run

        cells_skipped = self.cells_skipped

        gpu_s_estimate = self.gpu_s_estimate

        wall_s = self.wall_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cells_run": cells_run,
                "cells_skipped": cells_skipped,
                "gpu_s_estimate": gpu_s_estimate,
                "wall_s": wall_s,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cells_run = d.pop("cells_run")

        cells_skipped = d.pop("cells_skipped")

        gpu_s_estimate = d.pop("gpu_s_estimate")

        wall_s = d.pop("wall_s")

        verification_cost_view = cls(
            cells_run=cells_run,
            cells_skipped=cells_skipped,
            gpu_s_estimate=gpu_s_estimate,
            wall_s=wall_s,
        )

        verification_cost_view.additional_properties = d
        return verification_cost_view

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
