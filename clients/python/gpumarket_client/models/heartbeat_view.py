from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_report_view import AccountReportView
    from ..models.container_report_view import ContainerReportView
    from ..models.gpu_health_view import GpuHealthView


T = TypeVar("T", bound="HeartbeatView")


@_attrs_define
class HeartbeatView:
    """A heartbeat, every 15 s: at most 256 accounts.

    Attributes:
        agent_version (str): 1–64 characters of letters, digits and `. - + _`.
        accounts (list[AccountReportView] | Unset):
        containers (list[ContainerReportView] | None | Unset): Each booking's container as the agent runs it; at most
            256.
        gpus (list[GpuHealthView] | None | Unset): Each GPU's health as the agent read it (preflight's `gpu_health`); at
            most 64.
        sent_at (datetime.datetime | None | Unset): The machine's clock when it sent the beat (RFC 3339, with
            milliseconds): the server
            compares it with its own (preflight's `clock_offset`).
    """

    agent_version: str
    accounts: list[AccountReportView] | Unset = UNSET
    containers: list[ContainerReportView] | None | Unset = UNSET
    gpus: list[GpuHealthView] | None | Unset = UNSET
    sent_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_version = self.agent_version

        accounts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.accounts, Unset):
            accounts = []
            for accounts_item_data in self.accounts:
                accounts_item = accounts_item_data.to_dict()
                accounts.append(accounts_item)

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

        sent_at: None | str | Unset
        if isinstance(self.sent_at, Unset):
            sent_at = UNSET
        elif isinstance(self.sent_at, datetime.datetime):
            sent_at = self.sent_at.isoformat()
        else:
            sent_at = self.sent_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_version": agent_version,
            }
        )
        if accounts is not UNSET:
            field_dict["accounts"] = accounts
        if containers is not UNSET:
            field_dict["containers"] = containers
        if gpus is not UNSET:
            field_dict["gpus"] = gpus
        if sent_at is not UNSET:
            field_dict["sent_at"] = sent_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.account_report_view import AccountReportView  # noqa: PLC0415
        from ..models.container_report_view import ContainerReportView  # noqa: PLC0415
        from ..models.gpu_health_view import GpuHealthView  # noqa: PLC0415

        d = dict(src_dict)
        agent_version = d.pop("agent_version")

        _accounts = d.pop("accounts", UNSET)
        accounts: list[AccountReportView] | Unset = UNSET
        if _accounts is not UNSET:
            accounts = []
            for accounts_item_data in _accounts:
                accounts_item = AccountReportView.from_dict(accounts_item_data)

                accounts.append(accounts_item)

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

        def _parse_sent_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sent_at_type_0 = datetime.datetime.fromisoformat(data)

                return sent_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        sent_at = _parse_sent_at(d.pop("sent_at", UNSET))

        heartbeat_view = cls(
            agent_version=agent_version,
            accounts=accounts,
            containers=containers,
            gpus=gpus,
            sent_at=sent_at,
        )

        return heartbeat_view
