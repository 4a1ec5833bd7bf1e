from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.desired_container_view import DesiredContainerView


T = TypeVar("T", bound="DesiredBookingView")


@_attrs_define
class DesiredBookingView:
    """One booking the machine serves.

    Attributes:
        access_until (datetime.datetime): The one moment access ends: the booking's end or a maintenance window's start
            (a
            cancelled booking leaves the state).
        booking_id (UUID):
        gpu_count (int):
        ssh_keys (list[str]): The renter's SSH public keys (`algorithm base64`), for an account or an entry account
            only.
        starts_at (datetime.datetime): When access begins.
        account (None | str | Unset): Its Unix account when it rents the whole machine with direct access; `null`: the
            gateway only (bookings that share a machine).
        container (DesiredContainerView | None | Unset):
        entry_account (None | str | Unset): A container booking's *entry account* (`gm-` + 12 hex) when it has direct
            access: a
            Unix account whose every SSH login is forced into the booking's container (`gpumarket
            agent enter`), never a shell on the machine; `null` otherwise.
    """

    access_until: datetime.datetime
    booking_id: UUID
    gpu_count: int
    ssh_keys: list[str]
    starts_at: datetime.datetime
    account: None | str | Unset = UNSET
    container: DesiredContainerView | None | Unset = UNSET
    entry_account: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.desired_container_view import DesiredContainerView  # noqa: PLC0415

        access_until = self.access_until.isoformat()

        booking_id = str(self.booking_id)

        gpu_count = self.gpu_count

        ssh_keys = self.ssh_keys

        starts_at = self.starts_at.isoformat()

        account: None | str | Unset
        if isinstance(self.account, Unset):
            account = UNSET
        else:
            account = self.account

        container: dict[str, Any] | None | Unset
        if isinstance(self.container, Unset):
            container = UNSET
        elif isinstance(self.container, DesiredContainerView):
            container = self.container.to_dict()
        else:
            container = self.container

        entry_account: None | str | Unset
        if isinstance(self.entry_account, Unset):
            entry_account = UNSET
        else:
            entry_account = self.entry_account

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "access_until": access_until,
                "booking_id": booking_id,
                "gpu_count": gpu_count,
                "ssh_keys": ssh_keys,
                "starts_at": starts_at,
            }
        )
        if account is not UNSET:
            field_dict["account"] = account
        if container is not UNSET:
            field_dict["container"] = container
        if entry_account is not UNSET:
            field_dict["entry_account"] = entry_account

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.desired_container_view import DesiredContainerView  # noqa: PLC0415

        d = dict(src_dict)
        access_until = datetime.datetime.fromisoformat(d.pop("access_until"))

        booking_id = UUID(d.pop("booking_id"))

        gpu_count = d.pop("gpu_count")

        ssh_keys = cast(list[str], d.pop("ssh_keys"))

        starts_at = datetime.datetime.fromisoformat(d.pop("starts_at"))

        def _parse_account(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        account = _parse_account(d.pop("account", UNSET))

        def _parse_container(data: object) -> DesiredContainerView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                container_type_0 = DesiredContainerView.from_dict(data)

                return container_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DesiredContainerView | None | Unset, data)

        container = _parse_container(d.pop("container", UNSET))

        def _parse_entry_account(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        entry_account = _parse_entry_account(d.pop("entry_account", UNSET))

        desired_booking_view = cls(
            access_until=access_until,
            booking_id=booking_id,
            gpu_count=gpu_count,
            ssh_keys=ssh_keys,
            starts_at=starts_at,
            account=account,
            container=container,
            entry_account=entry_account,
        )

        desired_booking_view.additional_properties = d
        return desired_booking_view

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
