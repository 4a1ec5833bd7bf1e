from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field_error import FieldError
    from ..models.money_view import MoneyView
    from ..models.preflight_check_view import PreflightCheckView


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """The body of every error response.

    Attributes:
        code (str): The stable code; match on this, not on the text.
        detail (str):
        status (int):
        title (str):
        type_ (str): A URI naming the problem type: `urn:gpumarket:problem:<code>`.
        checks (list[PreflightCheckView] | None | Unset): Present on `preflight_failed`: every check, the failed ones
            with what to do.
        earliest_starts_at (datetime.datetime | None | Unset): Present on a `booking_conflict` that a later start would
            avoid: the earliest start
            that could hold (a running interruptible booking keeps its GPUs through its notice).
        errors (list[FieldError] | Unset): Present on validation errors: each offending field.
        left (MoneyView | None | Unset):
        price (MoneyView | None | Unset):
    """

    code: str
    detail: str
    status: int
    title: str
    type_: str
    checks: list[PreflightCheckView] | None | Unset = UNSET
    earliest_starts_at: datetime.datetime | None | Unset = UNSET
    errors: list[FieldError] | Unset = UNSET
    left: MoneyView | None | Unset = UNSET
    price: MoneyView | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.money_view import MoneyView  # noqa: PLC0415

        code = self.code

        detail = self.detail

        status = self.status

        title = self.title

        type_ = self.type_

        checks: list[dict[str, Any]] | None | Unset
        if isinstance(self.checks, Unset):
            checks = UNSET
        elif isinstance(self.checks, list):
            checks = []
            for checks_type_0_item_data in self.checks:
                checks_type_0_item = checks_type_0_item_data.to_dict()
                checks.append(checks_type_0_item)

        else:
            checks = self.checks

        earliest_starts_at: None | str | Unset
        if isinstance(self.earliest_starts_at, Unset):
            earliest_starts_at = UNSET
        elif isinstance(self.earliest_starts_at, datetime.datetime):
            earliest_starts_at = self.earliest_starts_at.isoformat()
        else:
            earliest_starts_at = self.earliest_starts_at

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)

        left: dict[str, Any] | None | Unset
        if isinstance(self.left, Unset):
            left = UNSET
        elif isinstance(self.left, MoneyView):
            left = self.left.to_dict()
        else:
            left = self.left

        price: dict[str, Any] | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        elif isinstance(self.price, MoneyView):
            price = self.price.to_dict()
        else:
            price = self.price

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "detail": detail,
                "status": status,
                "title": title,
                "type": type_,
            }
        )
        if checks is not UNSET:
            field_dict["checks"] = checks
        if earliest_starts_at is not UNSET:
            field_dict["earliest_starts_at"] = earliest_starts_at
        if errors is not UNSET:
            field_dict["errors"] = errors
        if left is not UNSET:
            field_dict["left"] = left
        if price is not UNSET:
            field_dict["price"] = price

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.field_error import FieldError  # noqa: PLC0415
        from ..models.money_view import MoneyView  # noqa: PLC0415
        from ..models.preflight_check_view import PreflightCheckView  # noqa: PLC0415

        d = dict(src_dict)
        code = d.pop("code")

        detail = d.pop("detail")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        def _parse_checks(data: object) -> list[PreflightCheckView] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                checks_type_0 = []
                _checks_type_0 = data
                for checks_type_0_item_data in _checks_type_0:
                    checks_type_0_item = PreflightCheckView.from_dict(checks_type_0_item_data)

                    checks_type_0.append(checks_type_0_item)

                return checks_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PreflightCheckView] | None | Unset, data)

        checks = _parse_checks(d.pop("checks", UNSET))

        def _parse_earliest_starts_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                earliest_starts_at_type_0 = datetime.datetime.fromisoformat(data)

                return earliest_starts_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        earliest_starts_at = _parse_earliest_starts_at(d.pop("earliest_starts_at", UNSET))

        _errors = d.pop("errors", UNSET)
        errors: list[FieldError] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = FieldError.from_dict(errors_item_data)

                errors.append(errors_item)

        def _parse_left(data: object) -> MoneyView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                left_type_0 = MoneyView.from_dict(data)

                return left_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MoneyView | None | Unset, data)

        left = _parse_left(d.pop("left", UNSET))

        def _parse_price(data: object) -> MoneyView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                price_type_0 = MoneyView.from_dict(data)

                return price_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MoneyView | None | Unset, data)

        price = _parse_price(d.pop("price", UNSET))

        problem = cls(
            code=code,
            detail=detail,
            status=status,
            title=title,
            type_=type_,
            checks=checks,
            earliest_starts_at=earliest_starts_at,
            errors=errors,
            left=left,
            price=price,
        )

        problem.additional_properties = d
        return problem

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
