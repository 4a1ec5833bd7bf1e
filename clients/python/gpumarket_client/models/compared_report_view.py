from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ComparedReportView")


@_attrs_define
class ComparedReportView:
    """
    Attributes:
        compliant (bool):
        gpu_model (str):
        id (UUID):
        listing_id (UUID):
        model (str):
        standard (None | str | Unset): The standard the signed report follows (`standard/2`); `null` when its envelope
            is
            withheld or does not read as a report.
    """

    compliant: bool
    gpu_model: str
    id: UUID
    listing_id: UUID
    model: str
    standard: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        compliant = self.compliant

        gpu_model = self.gpu_model

        id = str(self.id)

        listing_id = str(self.listing_id)

        model = self.model

        standard: None | str | Unset
        if isinstance(self.standard, Unset):
            standard = UNSET
        else:
            standard = self.standard

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "compliant": compliant,
                "gpu_model": gpu_model,
                "id": id,
                "listing_id": listing_id,
                "model": model,
            }
        )
        if standard is not UNSET:
            field_dict["standard"] = standard

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        compliant = d.pop("compliant")

        gpu_model = d.pop("gpu_model")

        id = UUID(d.pop("id"))

        listing_id = UUID(d.pop("listing_id"))

        model = d.pop("model")

        def _parse_standard(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        standard = _parse_standard(d.pop("standard", UNSET))

        compared_report_view = cls(
            compliant=compliant,
            gpu_model=gpu_model,
            id=id,
            listing_id=listing_id,
            model=model,
            standard=standard,
        )

        compared_report_view.additional_properties = d
        return compared_report_view

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
