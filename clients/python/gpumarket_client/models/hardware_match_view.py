from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="HardwareMatchView")


@_attrs_define
class HardwareMatchView:
    """How the machine compares with the listing's claim.

    Attributes:
        differences (list[str]): What differs, in words; empty when it matches.
        matches (bool): The GPU model by name through the catalog, their count, and each one's memory
            (`memory.total` ÷ 1024 within −7 % … +3 % of `vram_gb`) match the claim.
    """

    differences: list[str]
    matches: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        differences = self.differences

        matches = self.matches

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "differences": differences,
                "matches": matches,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        differences = cast(list[str], d.pop("differences"))

        matches = d.pop("matches")

        hardware_match_view = cls(
            differences=differences,
            matches=matches,
        )

        hardware_match_view.additional_properties = d
        return hardware_match_view

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
