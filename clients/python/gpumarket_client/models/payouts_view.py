from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PayoutsView")


@_attrs_define
class PayoutsView:
    """An organisation's Stripe Connect account.

    Attributes:
        account_id (str):
        charges_enabled (bool):
        payouts_enabled (bool):
        url (None | str | Unset): Stripe's onboarding page for this account (a fresh link on every onboarding call).
    """

    account_id: str
    charges_enabled: bool
    payouts_enabled: bool
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        account_id = self.account_id

        charges_enabled = self.charges_enabled

        payouts_enabled = self.payouts_enabled

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "account_id": account_id,
                "charges_enabled": charges_enabled,
                "payouts_enabled": payouts_enabled,
            }
        )
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account_id = d.pop("account_id")

        charges_enabled = d.pop("charges_enabled")

        payouts_enabled = d.pop("payouts_enabled")

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        payouts_view = cls(
            account_id=account_id,
            charges_enabled=charges_enabled,
            payouts_enabled=payouts_enabled,
            url=url,
        )

        payouts_view.additional_properties = d
        return payouts_view

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
