from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_report_view import AccountReportView
    from ..models.container_report_view import ContainerReportView
    from ..models.gpu_health_view import GpuHealthView


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
        clock_offset_ms (int | None | Unset): How far the machine's clock is ahead of the server's (negative: behind),
            within a
            network delay; `null` when the agent does not say its time.
        containers (list[ContainerReportView] | None | Unset): Each booking's container as the agent last said (its
            GPUs, its state); `null` when
            it runs none.
        gpus (list[GpuHealthView] | None | Unset): Each GPU's health as the agent last said; `null` when it does not
            read it.
    """

    accounts: list[AccountReportView]
    agent_version: str
    last_seen_at: datetime.datetime
    state: str
    clock_offset_ms: int | None | Unset = UNSET
    containers: list[ContainerReportView] | None | Unset = UNSET
    gpus: list[GpuHealthView] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accounts = []
        for accounts_item_data in self.accounts:
            accounts_item = accounts_item_data.to_dict()
            accounts.append(accounts_item)

        agent_version = self.agent_version

        last_seen_at = self.last_seen_at.isoformat()

        state = self.state

        clock_offset_ms: int | None | Unset
        if isinstance(self.clock_offset_ms, Unset):
            clock_offset_ms = UNSET
        else:
            clock_offset_ms = self.clock_offset_ms

        containers: list[dict[str, Any]] | None | Unset
        if isinstance(self.containers, Unset):
            containers = UNSET
        elif isinstance(self.containers, list):
            containers = []
            for containers_type_0_item_data in self.containers:
                containers_type_0_item = containers_type_0_item_data.to_dict()
                containers.append(containers_type_0_item)

        else:
            containers = self.containers

        gpus: list[dict[str, Any]] | None | Unset
        if isinstance(self.gpus, Unset):
            gpus = UNSET
        elif isinstance(self.gpus, list):
            gpus = []
            for gpus_type_0_item_data in self.gpus:
                gpus_type_0_item = gpus_type_0_item_data.to_dict()
                gpus.append(gpus_type_0_item)

        else:
            gpus = self.gpus

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
        if clock_offset_ms is not UNSET:
            field_dict["clock_offset_ms"] = clock_offset_ms
        if containers is not UNSET:
            field_dict["containers"] = containers
        if gpus is not UNSET:
            field_dict["gpus"] = gpus

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.account_report_view import AccountReportView  # noqa: PLC0415
        from ..models.container_report_view import ContainerReportView  # noqa: PLC0415
        from ..models.gpu_health_view import GpuHealthView  # noqa: PLC0415

        d = dict(src_dict)
        accounts = []
        _accounts = d.pop("accounts")
        for accounts_item_data in _accounts:
            accounts_item = AccountReportView.from_dict(accounts_item_data)

            accounts.append(accounts_item)

        agent_version = d.pop("agent_version")

        last_seen_at = datetime.datetime.fromisoformat(d.pop("last_seen_at"))

        state = d.pop("state")

        def _parse_clock_offset_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        clock_offset_ms = _parse_clock_offset_ms(d.pop("clock_offset_ms", UNSET))

        def _parse_containers(data: object) -> list[ContainerReportView] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                containers_type_0 = []
                _containers_type_0 = data
                for containers_type_0_item_data in _containers_type_0:
                    containers_type_0_item = ContainerReportView.from_dict(containers_type_0_item_data)

                    containers_type_0.append(containers_type_0_item)

                return containers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContainerReportView] | None | Unset, data)

        containers = _parse_containers(d.pop("containers", UNSET))

        def _parse_gpus(data: object) -> list[GpuHealthView] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                gpus_type_0 = []
                _gpus_type_0 = data
                for gpus_type_0_item_data in _gpus_type_0:
                    gpus_type_0_item = GpuHealthView.from_dict(gpus_type_0_item_data)

                    gpus_type_0.append(gpus_type_0_item)

                return gpus_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[GpuHealthView] | None | Unset, data)

        gpus = _parse_gpus(d.pop("gpus", UNSET))

        presence_view = cls(
            accounts=accounts,
            agent_version=agent_version,
            last_seen_at=last_seen_at,
            state=state,
            clock_offset_ms=clock_offset_ms,
            containers=containers,
            gpus=gpus,
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
