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


T = TypeVar("T", bound="BookingGuaranteeView")


@_attrs_define
class BookingGuaranteeView:
    """A booking's performance guarantee and its credits.

    Attributes:
        credit (MoneyView): A money amount in integer minor units.
        credited_buckets (int): Buckets credited.
        min_fraction (float):
        report_id (UUID): The verified report whose figures the delivery is compared with.
        settled (MoneyView | None | Unset):
        settled_at (datetime.datetime | None | Unset): When the credits were paid back (a partial refund), once the
            booking was over.
    """

    credit: MoneyView
    credited_buckets: int
    min_fraction: float
    report_id: UUID
    settled: MoneyView | None | Unset = UNSET
    settled_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.money_view import MoneyView  # noqa: PLC0415

        credit = self.credit.to_dict()

        credited_buckets = self.credited_buckets

        min_fraction = self.min_fraction

        report_id = str(self.report_id)

        settled: dict[str, Any] | None | Unset
        if isinstance(self.settled, Unset):
            settled = UNSET
        elif isinstance(self.settled, MoneyView):
            settled = self.settled.to_dict()
        else:
            settled = self.settled

        settled_at: None | str | Unset
        if isinstance(self.settled_at, Unset):
            settled_at = UNSET
        elif isinstance(self.settled_at, datetime.datetime):
            settled_at = self.settled_at.isoformat()
        else:
            settled_at = self.settled_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "credit": credit,
                "credited_buckets": credited_buckets,
                "min_fraction": min_fraction,
                "report_id": report_id,
            }
        )
        if settled is not UNSET:
            field_dict["settled"] = settled
        if settled_at is not UNSET:
            field_dict["settled_at"] = settled_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.money_view import MoneyView  # noqa: PLC0415

        d = dict(src_dict)
        credit = MoneyView.from_dict(d.pop("credit"))

        credited_buckets = d.pop("credited_buckets")

        min_fraction = d.pop("min_fraction")

        report_id = UUID(d.pop("report_id"))

        def _parse_settled(data: object) -> MoneyView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                settled_type_0 = MoneyView.from_dict(data)

                return settled_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MoneyView | None | Unset, data)

        settled = _parse_settled(d.pop("settled", UNSET))

        def _parse_settled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                settled_at_type_0 = datetime.datetime.fromisoformat(data)

                return settled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        settled_at = _parse_settled_at(d.pop("settled_at", UNSET))

        booking_guarantee_view = cls(
            credit=credit,
            credited_buckets=credited_buckets,
            min_fraction=min_fraction,
            report_id=report_id,
            settled=settled,
            settled_at=settled_at,
        )

        booking_guarantee_view.additional_properties = d
        return booking_guarantee_view

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
