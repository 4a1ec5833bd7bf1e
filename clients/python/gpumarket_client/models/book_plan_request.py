from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BookPlanRequest")


@_attrs_define
class BookPlanRequest:
    """The objective (as `GET /v1/offers` takes it) and the interval to book.

    Attributes:
        context (int): The longest prompt, tokens.
        ends_at (datetime.datetime):
        itl_p99_ms (float):
        model (str): A catalog model's id, name or alias, or the name an engine serves.
        starts_at (datetime.datetime): Start of the half-open interval `[starts_at, ends_at)`, RFC 3339.
        ttft_p99_ms (float):
        users (int): Users to serve at once (1–10,000).
        currency (None | str | Unset): Prices in this ISO 4217 currency (default `USD`).
        direct_access (bool | None | Unset): Give the bookings the machines' SSH and HTTPS access (default `true`).
            `false` waives
            them: only the gateway reaches the engines, and the bookings carry the listings'
            performance guarantees (a booking with direct access has none).
        expected_price_per_hour (int | None | Unset): The price per hour of the whole plan you expect to pay (as `GET
            /v1/offers`'s `plan`
            showed it), minor units: if the plan costs another now, 409 `price_changed` with
            `price`, the plan's price now, and nothing is booked.
        max_price_per_hour (int | None | Unset): At most this price per hour for each whole machine, minor units.
        min_reliability (float | None | Unset): Only machines whose 30-day uptime (`reliability`) is at least this, 0 to
            1.
    """

    context: int
    ends_at: datetime.datetime
    itl_p99_ms: float
    model: str
    starts_at: datetime.datetime
    ttft_p99_ms: float
    users: int
    currency: None | str | Unset = UNSET
    direct_access: bool | None | Unset = UNSET
    expected_price_per_hour: int | None | Unset = UNSET
    max_price_per_hour: int | None | Unset = UNSET
    min_reliability: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        context = self.context

        ends_at = self.ends_at.isoformat()

        itl_p99_ms = self.itl_p99_ms

        model = self.model

        starts_at = self.starts_at.isoformat()

        ttft_p99_ms = self.ttft_p99_ms

        users = self.users

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        else:
            currency = self.currency

        direct_access: bool | None | Unset
        if isinstance(self.direct_access, Unset):
            direct_access = UNSET
        else:
            direct_access = self.direct_access

        expected_price_per_hour: int | None | Unset
        if isinstance(self.expected_price_per_hour, Unset):
            expected_price_per_hour = UNSET
        else:
            expected_price_per_hour = self.expected_price_per_hour

        max_price_per_hour: int | None | Unset
        if isinstance(self.max_price_per_hour, Unset):
            max_price_per_hour = UNSET
        else:
            max_price_per_hour = self.max_price_per_hour

        min_reliability: float | None | Unset
        if isinstance(self.min_reliability, Unset):
            min_reliability = UNSET
        else:
            min_reliability = self.min_reliability

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "context": context,
                "ends_at": ends_at,
                "itl_p99_ms": itl_p99_ms,
                "model": model,
                "starts_at": starts_at,
                "ttft_p99_ms": ttft_p99_ms,
                "users": users,
            }
        )
        if currency is not UNSET:
            field_dict["currency"] = currency
        if direct_access is not UNSET:
            field_dict["direct_access"] = direct_access
        if expected_price_per_hour is not UNSET:
            field_dict["expected_price_per_hour"] = expected_price_per_hour
        if max_price_per_hour is not UNSET:
            field_dict["max_price_per_hour"] = max_price_per_hour
        if min_reliability is not UNSET:
            field_dict["min_reliability"] = min_reliability

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        context = d.pop("context")

        ends_at = datetime.datetime.fromisoformat(d.pop("ends_at"))

        itl_p99_ms = d.pop("itl_p99_ms")

        model = d.pop("model")

        starts_at = datetime.datetime.fromisoformat(d.pop("starts_at"))

        ttft_p99_ms = d.pop("ttft_p99_ms")

        users = d.pop("users")

        def _parse_currency(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        currency = _parse_currency(d.pop("currency", UNSET))

        def _parse_direct_access(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        direct_access = _parse_direct_access(d.pop("direct_access", UNSET))

        def _parse_expected_price_per_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expected_price_per_hour = _parse_expected_price_per_hour(d.pop("expected_price_per_hour", UNSET))

        def _parse_max_price_per_hour(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_price_per_hour = _parse_max_price_per_hour(d.pop("max_price_per_hour", UNSET))

        def _parse_min_reliability(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_reliability = _parse_min_reliability(d.pop("min_reliability", UNSET))

        book_plan_request = cls(
            context=context,
            ends_at=ends_at,
            itl_p99_ms=itl_p99_ms,
            model=model,
            starts_at=starts_at,
            ttft_p99_ms=ttft_p99_ms,
            users=users,
            currency=currency,
            direct_access=direct_access,
            expected_price_per_hour=expected_price_per_hour,
            max_price_per_hour=max_price_per_hour,
            min_reliability=min_reliability,
        )

        return book_plan_request
