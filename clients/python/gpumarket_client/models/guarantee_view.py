from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="GuaranteeView")


@_attrs_define
class GuaranteeView:
    """A listing's performance guarantee.

    Attributes:
        min_fraction (float): The share of the verified per-stream speed guaranteed (above 0, at most 1): a
            five-minute bucket delivered below it, at a load the report measured as valid and to
            a client reading fast enough, credits the booking that bucket's share of its price.
    """

    min_fraction: float

    def to_dict(self) -> dict[str, Any]:
        min_fraction = self.min_fraction

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "min_fraction": min_fraction,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        min_fraction = d.pop("min_fraction")

        guarantee_view = cls(
            min_fraction=min_fraction,
        )

        return guarantee_view
