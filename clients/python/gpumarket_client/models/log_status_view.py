from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LogStatusView")


@_attrs_define
class LogStatusView:
    """
    Attributes:
        signing (str): `active`, or `held`: the log was restored behind a checkpoint it had published, and
            nothing is signed (reports, statements, checkpoints) until the rollback is accepted.
        size (int): The log's leaves.
        checkpoint_size (int | None | Unset): The latest signed checkpoint's size (`null` before the first).
        held_behind (int | None | Unset): While `held`: the size of the published checkpoint the restored log is behind.
    """

    signing: str
    size: int
    checkpoint_size: int | None | Unset = UNSET
    held_behind: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signing = self.signing

        size = self.size

        checkpoint_size: int | None | Unset
        if isinstance(self.checkpoint_size, Unset):
            checkpoint_size = UNSET
        else:
            checkpoint_size = self.checkpoint_size

        held_behind: int | None | Unset
        if isinstance(self.held_behind, Unset):
            held_behind = UNSET
        else:
            held_behind = self.held_behind

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signing": signing,
                "size": size,
            }
        )
        if checkpoint_size is not UNSET:
            field_dict["checkpoint_size"] = checkpoint_size
        if held_behind is not UNSET:
            field_dict["held_behind"] = held_behind

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        signing = d.pop("signing")

        size = d.pop("size")

        def _parse_checkpoint_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        checkpoint_size = _parse_checkpoint_size(d.pop("checkpoint_size", UNSET))

        def _parse_held_behind(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        held_behind = _parse_held_behind(d.pop("held_behind", UNSET))

        log_status_view = cls(
            signing=signing,
            size=size,
            checkpoint_size=checkpoint_size,
            held_behind=held_behind,
        )

        log_status_view.additional_properties = d
        return log_status_view

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
