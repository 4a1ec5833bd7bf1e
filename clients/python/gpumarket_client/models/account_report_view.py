from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="AccountReportView")


@_attrs_define
class AccountReportView:
    """One booking's account, as the agent says.

    Attributes:
        account (str): `gm-` and the last 12 hex digits of the booking's id.
        booking_id (UUID):
        state (str): `ready` (made), `ending` (access ended; processes and files going), `removed`,
            `conflict` (an account of that name exists that the agent did not make: left alone),
            `failed` (the agent's log says why).
    """

    account: str
    booking_id: UUID
    state: str

    def to_dict(self) -> dict[str, Any]:
        account = self.account

        booking_id = str(self.booking_id)

        state = self.state

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "account": account,
                "booking_id": booking_id,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account = d.pop("account")

        booking_id = UUID(d.pop("booking_id"))

        state = d.pop("state")

        account_report_view = cls(
            account=account,
            booking_id=booking_id,
            state=state,
        )

        return account_report_view
