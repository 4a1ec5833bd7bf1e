from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EnergyEstimateView")


@_attrs_define
class EnergyEstimateView:
    """The GPU's energy at the predicted speed, from its board power: a ceiling (a GPU draws at
    most its board power; what one machine measured is in its report, `source: agent`).

        Attributes:
            board_power_w (float): The catalog's board power, W.
            j_per_token_ceiling (float): Board power ÷ the predicted total tok/s, J per output token: at most this.
            cost_per_hour (float | None | Unset): With `electricity_per_mwh`: the board power's cost per hour, minor units.
            cost_per_mtok (float | None | Unset): With `electricity_per_mwh`: the ceiling's cost per million output tokens,
                minor units.
    """

    board_power_w: float
    j_per_token_ceiling: float
    cost_per_hour: float | None | Unset = UNSET
    cost_per_mtok: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        board_power_w = self.board_power_w

        j_per_token_ceiling = self.j_per_token_ceiling

        cost_per_hour: float | None | Unset
        if isinstance(self.cost_per_hour, Unset):
            cost_per_hour = UNSET
        else:
            cost_per_hour = self.cost_per_hour

        cost_per_mtok: float | None | Unset
        if isinstance(self.cost_per_mtok, Unset):
            cost_per_mtok = UNSET
        else:
            cost_per_mtok = self.cost_per_mtok

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "board_power_w": board_power_w,
                "j_per_token_ceiling": j_per_token_ceiling,
            }
        )
        if cost_per_hour is not UNSET:
            field_dict["cost_per_hour"] = cost_per_hour
        if cost_per_mtok is not UNSET:
            field_dict["cost_per_mtok"] = cost_per_mtok

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        board_power_w = d.pop("board_power_w")

        j_per_token_ceiling = d.pop("j_per_token_ceiling")

        def _parse_cost_per_hour(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cost_per_hour = _parse_cost_per_hour(d.pop("cost_per_hour", UNSET))

        def _parse_cost_per_mtok(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cost_per_mtok = _parse_cost_per_mtok(d.pop("cost_per_mtok", UNSET))

        energy_estimate_view = cls(
            board_power_w=board_power_w,
            j_per_token_ceiling=j_per_token_ceiling,
            cost_per_hour=cost_per_hour,
            cost_per_mtok=cost_per_mtok,
        )

        energy_estimate_view.additional_properties = d
        return energy_estimate_view

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
