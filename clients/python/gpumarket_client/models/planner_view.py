from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.planner_gpu_model_view import PlannerGpuModelView
    from ..models.planner_row_view import PlannerRowView


T = TypeVar("T", bound="PlannerView")


@_attrs_define
class PlannerView:
    """
    Attributes:
        context (int):
        items (list[PlannerRowView]): Every GPU of the catalog: measured rows first, then predicted; each by users
            served.
        itl_p99_ms (float):
        model (PlannerGpuModelView):
        ttft_p99_ms (float):
        users (int):
    """

    context: int
    items: list[PlannerRowView]
    itl_p99_ms: float
    model: PlannerGpuModelView
    ttft_p99_ms: float
    users: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context = self.context

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        itl_p99_ms = self.itl_p99_ms

        model = self.model.to_dict()

        ttft_p99_ms = self.ttft_p99_ms

        users = self.users

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context": context,
                "items": items,
                "itl_p99_ms": itl_p99_ms,
                "model": model,
                "ttft_p99_ms": ttft_p99_ms,
                "users": users,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.planner_gpu_model_view import PlannerGpuModelView  # noqa: PLC0415
        from ..models.planner_row_view import PlannerRowView  # noqa: PLC0415

        d = dict(src_dict)
        context = d.pop("context")

        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = PlannerRowView.from_dict(items_item_data)

            items.append(items_item)

        itl_p99_ms = d.pop("itl_p99_ms")

        model = PlannerGpuModelView.from_dict(d.pop("model"))

        ttft_p99_ms = d.pop("ttft_p99_ms")

        users = d.pop("users")

        planner_view = cls(
            context=context,
            items=items,
            itl_p99_ms=itl_p99_ms,
            model=model,
            ttft_p99_ms=ttft_p99_ms,
            users=users,
        )

        planner_view.additional_properties = d
        return planner_view

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
