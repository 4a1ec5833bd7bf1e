from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.usage_bucket_view import UsageBucketView
    from ..models.usage_totals_view import UsageTotalsView


T = TypeVar("T", bound="UsageView")


@_attrs_define
class UsageView:
    """
    Attributes:
        booking_id (UUID):
        buckets (list[UsageBucketView]):
        totals (UsageTotalsView):
    """

    booking_id: UUID
    buckets: list[UsageBucketView]
    totals: UsageTotalsView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        booking_id = str(self.booking_id)

        buckets = []
        for buckets_item_data in self.buckets:
            buckets_item = buckets_item_data.to_dict()
            buckets.append(buckets_item)

        totals = self.totals.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "booking_id": booking_id,
                "buckets": buckets,
                "totals": totals,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.usage_bucket_view import UsageBucketView  # noqa: PLC0415
        from ..models.usage_totals_view import UsageTotalsView  # noqa: PLC0415

        d = dict(src_dict)
        booking_id = UUID(d.pop("booking_id"))

        buckets = []
        _buckets = d.pop("buckets")
        for buckets_item_data in _buckets:
            buckets_item = UsageBucketView.from_dict(buckets_item_data)

            buckets.append(buckets_item)

        totals = UsageTotalsView.from_dict(d.pop("totals"))

        usage_view = cls(
            booking_id=booking_id,
            buckets=buckets,
            totals=totals,
        )

        usage_view.additional_properties = d
        return usage_view

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
