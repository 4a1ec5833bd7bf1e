from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.container_access_view import ContainerAccessView
    from ..models.ssh_view import SshView


T = TypeVar("T", bound="AccessInput")


@_attrs_define
class AccessInput:
    """How renters reach the machine: SSH and/or an HTTPS endpoint.

    Attributes:
        containers (ContainerAccessView | None | Unset):
        https_url (None | str | Unset):
        ssh (None | SshView | Unset):
    """

    containers: ContainerAccessView | None | Unset = UNSET
    https_url: None | str | Unset = UNSET
    ssh: None | SshView | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.container_access_view import ContainerAccessView  # noqa: PLC0415
        from ..models.ssh_view import SshView  # noqa: PLC0415

        containers: dict[str, Any] | None | Unset
        if isinstance(self.containers, Unset):
            containers = UNSET
        elif isinstance(self.containers, ContainerAccessView):
            containers = self.containers.to_dict()
        else:
            containers = self.containers

        https_url: None | str | Unset
        if isinstance(self.https_url, Unset):
            https_url = UNSET
        else:
            https_url = self.https_url

        ssh: dict[str, Any] | None | Unset
        if isinstance(self.ssh, Unset):
            ssh = UNSET
        elif isinstance(self.ssh, SshView):
            ssh = self.ssh.to_dict()
        else:
            ssh = self.ssh

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if containers is not UNSET:
            field_dict["containers"] = containers
        if https_url is not UNSET:
            field_dict["https_url"] = https_url
        if ssh is not UNSET:
            field_dict["ssh"] = ssh

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.container_access_view import ContainerAccessView  # noqa: PLC0415
        from ..models.ssh_view import SshView  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_containers(data: object) -> ContainerAccessView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                containers_type_0 = ContainerAccessView.from_dict(data)

                return containers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContainerAccessView | None | Unset, data)

        containers = _parse_containers(d.pop("containers", UNSET))

        def _parse_https_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        https_url = _parse_https_url(d.pop("https_url", UNSET))

        def _parse_ssh(data: object) -> None | SshView | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ssh_type_0 = SshView.from_dict(data)

                return ssh_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SshView | Unset, data)

        ssh = _parse_ssh(d.pop("ssh", UNSET))

        access_input = cls(
            containers=containers,
            https_url=https_url,
            ssh=ssh,
        )

        return access_input
