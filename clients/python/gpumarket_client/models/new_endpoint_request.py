from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewEndpointRequest")


@_attrs_define
class NewEndpointRequest:
    """An endpoint to register.

    Attributes:
        events (list[str]): The event types to receive (`booking.confirmed`, ...), or `["*"]` for every type the
            owner can hear of (a person's endpoint: `booking.*` only).
        url (str): Where deliveries are POSTed: an `http://` or `https://` URL without credentials,
            query or fragment, on an address the platform may connect to (internal addresses
            only with `webhook_allow_private`).
    """

    events: list[str]
    url: str

    def to_dict(self) -> dict[str, Any]:
        events = self.events

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events": events,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = cast(list[str], d.pop("events"))

        url = d.pop("url")

        new_endpoint_request = cls(
            events=events,
            url=url,
        )

        return new_endpoint_request
