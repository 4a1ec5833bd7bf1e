from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.env_var_view import EnvVarView


T = TypeVar("T", bound="BookingContainerView")


@_attrs_define
class BookingContainerView:
    """A container a booking runs on its GPUs: an image the listing allows
    (`access.containers.images`), an optional command and plain environment variables.

        Attributes:
            image (str): One of the listing's `access.containers.images`, exactly (422 `container.image`
                otherwise).
            command (list[str] | None | Unset): The command and its arguments (1 to 64, each at most 4096 printable
                characters); the
                image's own when absent.
            env (list[EnvVarView] | Unset): At most 64 variables (names of letters, digits and `_`, not `NVIDIA_*`).
    """

    image: str
    command: list[str] | None | Unset = UNSET
    env: list[EnvVarView] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        image = self.image

        command: list[str] | None | Unset
        if isinstance(self.command, Unset):
            command = UNSET
        elif isinstance(self.command, list):
            command = self.command

        else:
            command = self.command

        env: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = []
            for env_item_data in self.env:
                env_item = env_item_data.to_dict()
                env.append(env_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "image": image,
            }
        )
        if command is not UNSET:
            field_dict["command"] = command
        if env is not UNSET:
            field_dict["env"] = env

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.env_var_view import EnvVarView  # noqa: PLC0415

        d = dict(src_dict)
        image = d.pop("image")

        def _parse_command(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                command_type_0 = cast(list[str], data)

                return command_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        command = _parse_command(d.pop("command", UNSET))

        _env = d.pop("env", UNSET)
        env: list[EnvVarView] | Unset = UNSET
        if _env is not UNSET:
            env = []
            for env_item_data in _env:
                env_item = EnvVarView.from_dict(env_item_data)

                env.append(env_item)

        booking_container_view = cls(
            image=image,
            command=command,
            env=env,
        )

        return booking_container_view
