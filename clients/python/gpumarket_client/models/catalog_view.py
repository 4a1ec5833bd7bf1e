from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CatalogView")


@_attrs_define
class CatalogView:
    """A listing's catalog entries: ids of `GET /v1/hardware` and `GET /v1/models`.

    Attributes:
        gpu (None | str | Unset):
        model (None | str | Unset):
    """

    gpu: None | str | Unset = UNSET
    model: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        gpu: None | str | Unset
        if isinstance(self.gpu, Unset):
            gpu = UNSET
        else:
            gpu = self.gpu

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if gpu is not UNSET:
            field_dict["gpu"] = gpu
        if model is not UNSET:
            field_dict["model"] = model

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_gpu(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gpu = _parse_gpu(d.pop("gpu", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        catalog_view = cls(
            gpu=gpu,
            model=model,
        )

        return catalog_view
