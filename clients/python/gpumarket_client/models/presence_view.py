from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.account_report_view import AccountReportView


T = TypeVar("T", bound="PresenceView")


@_attrs_define
class PresenceView:
    """Whether the listing's agent is heard.

    Attributes:
        accounts (list[AccountReportView]): Each booking's account as the agent last said (kept when it changes, or once
            a
            minute).
        agent_version (str):
        last_seen_at (datetime.datetime):
        state (str): `online` when heard within the last three heartbeats (45 s, `[agent]
            agent_silent_after_secs`), else `silent`: its machine is then counted down.
    """

    accounts: list[AccountReportView]
    agent_version: str
    last_seen_at: datetime.datetime
    state: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accounts = []
        for accounts_item_data in self.accounts:
            accounts_item = accounts_item_data.to_dict()
            accounts.append(accounts_item)

        agent_version = self.agent_version

        last_seen_at = self.last_seen_at.isoformat()

        state = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accounts": accounts,
                "agent_version": agent_version,
                "last_seen_at": last_seen_at,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.account_report_view import AccountReportView  # noqa: PLC0415

        d = dict(src_dict)
        accounts = []
        _accounts = d.pop("accounts")
        for accounts_item_data in _accounts:
            accounts_item = AccountReportView.from_dict(accounts_item_data)

            accounts.append(accounts_item)

        agent_version = d.pop("agent_version")

        last_seen_at = datetime.datetime.fromisoformat(d.pop("last_seen_at"))

        state = d.pop("state")

        presence_view = cls(
            accounts=accounts,
            agent_version=agent_version,
            last_seen_at=last_seen_at,
            state=state,
        )

        presence_view.additional_properties = d
        return presence_view

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
