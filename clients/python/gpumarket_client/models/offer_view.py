from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.goodput_view import GoodputView
    from ..models.listing_view import ListingView
    from ..models.money_view import MoneyView


T = TypeVar("T", bound="OfferView")


@_attrs_define
class OfferView:
    """
    Attributes:
        listing (ListingView):
        meets (bool): Whether the machine meets the objective at some measured load.
        price_per_hour (MoneyView): A money amount in integer minor units.
        best_ms (float | None | Unset): The closest it came: the best estimated TTFT or stutter, ms (with the reasons
            that
            have one).
        cost_per_user_hour (float | None | Unset): Price per hour ÷ users served, minor units: what offers are sorted
            by.
        goodput (GoodputView | None | Unset):
        price_per_mtok (float | None | Unset): Price per million output tokens at that load, minor units.
        reason (None | str | Unset): Why it cannot (with `meets: false`): `context_not_measured`,
            `prefill_not_measured`,
            `no_valid_cell`, `ttft_too_slow` or `stutter_too_long`.
    """

    listing: ListingView
    meets: bool
    price_per_hour: MoneyView
    best_ms: float | None | Unset = UNSET
    cost_per_user_hour: float | None | Unset = UNSET
    goodput: GoodputView | None | Unset = UNSET
    price_per_mtok: float | None | Unset = UNSET
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.goodput_view import GoodputView  # noqa: PLC0415

        listing = self.listing.to_dict()

        meets = self.meets

        price_per_hour = self.price_per_hour.to_dict()

        best_ms: float | None | Unset
        if isinstance(self.best_ms, Unset):
            best_ms = UNSET
        else:
            best_ms = self.best_ms

        cost_per_user_hour: float | None | Unset
        if isinstance(self.cost_per_user_hour, Unset):
            cost_per_user_hour = UNSET
        else:
            cost_per_user_hour = self.cost_per_user_hour

        goodput: dict[str, Any] | None | Unset
        if isinstance(self.goodput, Unset):
            goodput = UNSET
        elif isinstance(self.goodput, GoodputView):
            goodput = self.goodput.to_dict()
        else:
            goodput = self.goodput

        price_per_mtok: float | None | Unset
        if isinstance(self.price_per_mtok, Unset):
            price_per_mtok = UNSET
        else:
            price_per_mtok = self.price_per_mtok

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "listing": listing,
                "meets": meets,
                "price_per_hour": price_per_hour,
            }
        )
        if best_ms is not UNSET:
            field_dict["best_ms"] = best_ms
        if cost_per_user_hour is not UNSET:
            field_dict["cost_per_user_hour"] = cost_per_user_hour
        if goodput is not UNSET:
            field_dict["goodput"] = goodput
        if price_per_mtok is not UNSET:
            field_dict["price_per_mtok"] = price_per_mtok
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.goodput_view import GoodputView  # noqa: PLC0415
        from ..models.listing_view import ListingView  # noqa: PLC0415
        from ..models.money_view import MoneyView  # noqa: PLC0415

        d = dict(src_dict)
        listing = ListingView.from_dict(d.pop("listing"))

        meets = d.pop("meets")

        price_per_hour = MoneyView.from_dict(d.pop("price_per_hour"))

        def _parse_best_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        best_ms = _parse_best_ms(d.pop("best_ms", UNSET))

        def _parse_cost_per_user_hour(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        cost_per_user_hour = _parse_cost_per_user_hour(d.pop("cost_per_user_hour", UNSET))

        def _parse_goodput(data: object) -> GoodputView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                goodput_type_0 = GoodputView.from_dict(data)

                return goodput_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GoodputView | None | Unset, data)

        goodput = _parse_goodput(d.pop("goodput", UNSET))

        def _parse_price_per_mtok(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        price_per_mtok = _parse_price_per_mtok(d.pop("price_per_mtok", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        offer_view = cls(
            listing=listing,
            meets=meets,
            price_per_hour=price_per_hour,
            best_ms=best_ms,
            cost_per_user_hour=cost_per_user_hour,
            goodput=goodput,
            price_per_mtok=price_per_mtok,
            reason=reason,
        )

        offer_view.additional_properties = d
        return offer_view

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
