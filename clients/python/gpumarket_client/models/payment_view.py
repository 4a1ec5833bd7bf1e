from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PaymentView")


@_attrs_define
class PaymentView:
    """How a booking is paid. With no payment provider configured, `provider` is `none` and the
    booking is confirmed at once. With `stripe`, the renter completes the PaymentIntent with
    `client_secret` (shown while the booking waits for its payment) and the booking is
    confirmed when Stripe reports the payment.

        Attributes:
            amount (int):
            currency (str):
            provider (str): `stripe` or `none`.
            client_secret (None | str | Unset):
            error (None | str | Unset): The last payment failure (Stripe's answer, or that it did not answer).
            payment_intent_id (None | str | Unset):
            platform_fee (int | None | Unset): The platform's fee out of `amount`.
    """

    amount: int
    currency: str
    provider: str
    client_secret: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    payment_intent_id: None | str | Unset = UNSET
    platform_fee: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        currency = self.currency

        provider = self.provider

        client_secret: None | str | Unset
        if isinstance(self.client_secret, Unset):
            client_secret = UNSET
        else:
            client_secret = self.client_secret

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        payment_intent_id: None | str | Unset
        if isinstance(self.payment_intent_id, Unset):
            payment_intent_id = UNSET
        else:
            payment_intent_id = self.payment_intent_id

        platform_fee: int | None | Unset
        if isinstance(self.platform_fee, Unset):
            platform_fee = UNSET
        else:
            platform_fee = self.platform_fee

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "amount": amount,
                "currency": currency,
                "provider": provider,
            }
        )
        if client_secret is not UNSET:
            field_dict["client_secret"] = client_secret
        if error is not UNSET:
            field_dict["error"] = error
        if payment_intent_id is not UNSET:
            field_dict["payment_intent_id"] = payment_intent_id
        if platform_fee is not UNSET:
            field_dict["platform_fee"] = platform_fee

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount = d.pop("amount")

        currency = d.pop("currency")

        provider = d.pop("provider")

        def _parse_client_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_secret = _parse_client_secret(d.pop("client_secret", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_payment_intent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        payment_intent_id = _parse_payment_intent_id(d.pop("payment_intent_id", UNSET))

        def _parse_platform_fee(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        platform_fee = _parse_platform_fee(d.pop("platform_fee", UNSET))

        payment_view = cls(
            amount=amount,
            currency=currency,
            provider=provider,
            client_secret=client_secret,
            error=error,
            payment_intent_id=payment_intent_id,
            platform_fee=platform_fee,
        )

        payment_view.additional_properties = d
        return payment_view

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
