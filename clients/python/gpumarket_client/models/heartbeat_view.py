from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_report_view import AccountReportView


T = TypeVar("T", bound="HeartbeatView")


@_attrs_define
class HeartbeatView:
    """A heartbeat, every 15 s: at most 256 accounts.

    Attributes:
        agent_version (str): 1–64 characters of letters, digits and `. - + _`.
        accounts (list[AccountReportView] | Unset):
    """

    agent_version: str
    accounts: list[AccountReportView] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_version = self.agent_version

        accounts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.accounts, Unset):
            accounts = []
            for accounts_item_data in self.accounts:
                accounts_item = accounts_item_data.to_dict()
                accounts.append(accounts_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_version": agent_version,
            }
        )
        if accounts is not UNSET:
            field_dict["accounts"] = accounts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.account_report_view import AccountReportView  # noqa: PLC0415

        d = dict(src_dict)
        agent_version = d.pop("agent_version")

        _accounts = d.pop("accounts", UNSET)
        accounts: list[AccountReportView] | Unset = UNSET
        if _accounts is not UNSET:
            accounts = []
            for accounts_item_data in _accounts:
                accounts_item = AccountReportView.from_dict(accounts_item_data)

                accounts.append(accounts_item)

        heartbeat_view = cls(
            agent_version=agent_version,
            accounts=accounts,
        )

        return heartbeat_view
