from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MatchView")


@_attrs_define
class MatchView:
    """The measured figures a hit was found and ordered by.

    Attributes:
        energy_j_per_token (float | None | Unset): Energy per output token at the requested cell, J: the GPUs' energy
            over the cell's
            window as the machine's agent sampled it (`source: agent`); `null` without a cell, or
            where the report has none.
        price_per_mtok (float | None | Unset): Price per million output tokens in minor units: the machine's price per
            hour
            (price per GPU-hour × GPUs) ÷ (total tok/s × 3600) × 10⁶.
        total_tok_s (float | None | Unset): Verified total tok/s at the requested cell, or the listing's best.
    """

    energy_j_per_token: float | None | Unset = UNSET
    price_per_mtok: float | None | Unset = UNSET
    total_tok_s: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        energy_j_per_token: float | None | Unset
        if isinstance(self.energy_j_per_token, Unset):
            energy_j_per_token = UNSET
        else:
            energy_j_per_token = self.energy_j_per_token

        price_per_mtok: float | None | Unset
        if isinstance(self.price_per_mtok, Unset):
            price_per_mtok = UNSET
        else:
            price_per_mtok = self.price_per_mtok

        total_tok_s: float | None | Unset
        if isinstance(self.total_tok_s, Unset):
            total_tok_s = UNSET
        else:
            total_tok_s = self.total_tok_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if energy_j_per_token is not UNSET:
            field_dict["energy_j_per_token"] = energy_j_per_token
        if price_per_mtok is not UNSET:
            field_dict["price_per_mtok"] = price_per_mtok
        if total_tok_s is not UNSET:
            field_dict["total_tok_s"] = total_tok_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_energy_j_per_token(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        energy_j_per_token = _parse_energy_j_per_token(d.pop("energy_j_per_token", UNSET))

        def _parse_price_per_mtok(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        price_per_mtok = _parse_price_per_mtok(d.pop("price_per_mtok", UNSET))

        def _parse_total_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        total_tok_s = _parse_total_tok_s(d.pop("total_tok_s", UNSET))

        match_view = cls(
            energy_j_per_token=energy_j_per_token,
            price_per_mtok=price_per_mtok,
            total_tok_s=total_tok_s,
        )

        match_view.additional_properties = d
        return match_view

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
