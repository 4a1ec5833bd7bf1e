from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.endpoint_view import EndpointView


T = TypeVar("T", bound="EndpointWithSecretView")


@_attrs_define
class EndpointWithSecretView:
    """An endpoint with its signing secret, shown this once.

    Attributes:
        endpoint (EndpointView): A registered endpoint (never its secret).
        secret (str): `whsec_` and the base64 key: verify deliveries with it (any Standard Webhooks
            library does). Shown this once; rotate to get a new one.
    """

    endpoint: EndpointView
    secret: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        endpoint = self.endpoint.to_dict()

        secret = self.secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "endpoint": endpoint,
                "secret": secret,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.endpoint_view import EndpointView  # noqa: PLC0415

        d = dict(src_dict)
        endpoint = EndpointView.from_dict(d.pop("endpoint"))

        secret = d.pop("secret")

        endpoint_with_secret_view = cls(
            endpoint=endpoint,
            secret=secret,
        )

        endpoint_with_secret_view.additional_properties = d
        return endpoint_with_secret_view

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
