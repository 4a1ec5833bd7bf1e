from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EngineView")


@_attrs_define
class EngineView:
    """The engine verification measures. `base_url` is shown to the provider's members only;
    the API key never is, only whether one is set.

        Attributes:
            has_api_key (bool):
            model (str):
            base_url (None | str | Unset):
            name (None | str | Unset): The engine the provider states it runs (`vllm`, `llamacpp`, `sglang`, `tgi`); absent
                when it states none. The verified report names the engine it measured.
    """

    has_api_key: bool
    model: str
    base_url: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_api_key = self.has_api_key

        model = self.model

        base_url: None | str | Unset
        if isinstance(self.base_url, Unset):
            base_url = UNSET
        else:
            base_url = self.base_url

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "has_api_key": has_api_key,
                "model": model,
            }
        )
        if base_url is not UNSET:
            field_dict["base_url"] = base_url
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        has_api_key = d.pop("has_api_key")

        model = d.pop("model")

        def _parse_base_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_url = _parse_base_url(d.pop("base_url", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        engine_view = cls(
            has_api_key=has_api_key,
            model=model,
            base_url=base_url,
            name=name,
        )

        engine_view.additional_properties = d
        return engine_view

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
