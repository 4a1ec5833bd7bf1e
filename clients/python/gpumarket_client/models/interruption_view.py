from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.money_view import MoneyView


T = TypeVar("T", bound="InterruptionView")


@_attrs_define
class InterruptionView:
    """The part of a booking a maintenance window took.

    Attributes:
        from_ (datetime.datetime): No access over `[from, until)`.
        refund (MoneyView): A money amount in integer minor units.
        until (datetime.datetime):
        window_id (UUID):
        refunded_at (datetime.datetime | None | Unset): When it was given back; `null` while owed (a booking awaiting
            its payment is given it
            once paid).
    """

    from_: datetime.datetime
    refund: MoneyView
    until: datetime.datetime
    window_id: UUID
    refunded_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        refund = self.refund.to_dict()

        until = self.until.isoformat()

        window_id = str(self.window_id)

        refunded_at: None | str | Unset
        if isinstance(self.refunded_at, Unset):
            refunded_at = UNSET
        elif isinstance(self.refunded_at, datetime.datetime):
            refunded_at = self.refunded_at.isoformat()
        else:
            refunded_at = self.refunded_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "refund": refund,
                "until": until,
                "window_id": window_id,
            }
        )
        if refunded_at is not UNSET:
            field_dict["refunded_at"] = refunded_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.money_view import MoneyView  # noqa: PLC0415

        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        refund = MoneyView.from_dict(d.pop("refund"))

        until = datetime.datetime.fromisoformat(d.pop("until"))

        window_id = UUID(d.pop("window_id"))

        def _parse_refunded_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                refunded_at_type_0 = datetime.datetime.fromisoformat(data)

                return refunded_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        refunded_at = _parse_refunded_at(d.pop("refunded_at", UNSET))

        interruption_view = cls(
            from_=from_,
            refund=refund,
            until=until,
            window_id=window_id,
            refunded_at=refunded_at,
        )

        interruption_view.additional_properties = d
        return interruption_view

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
