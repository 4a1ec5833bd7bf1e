from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.agent_facts_view import AgentFactsView
    from ..models.hardware_match_view import HardwareMatchView
    from ..models.presence_view import PresenceView


T = TypeVar("T", bound="AgentView")


@_attrs_define
class AgentView:
    """What the listing's agent last reported.

    Attributes:
        facts (AgentFactsView): What a machine says it is, as `gpumarket agent facts` prints it. Texts are at most 128
            printable characters, at most 64 GPUs (422 naming the field otherwise).
        hardware (HardwareMatchView): How the machine compares with the listing's claim.
        listing_id (UUID):
        reported_at (datetime.datetime):
        source (str): Always `agent`: the machine's word, not an attestation.
        presence (None | PresenceView | Unset):
    """

    facts: AgentFactsView
    hardware: HardwareMatchView
    listing_id: UUID
    reported_at: datetime.datetime
    source: str
    presence: None | PresenceView | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.presence_view import PresenceView  # noqa: PLC0415

        facts = self.facts.to_dict()

        hardware = self.hardware.to_dict()

        listing_id = str(self.listing_id)

        reported_at = self.reported_at.isoformat()

        source = self.source

        presence: dict[str, Any] | None | Unset
        if isinstance(self.presence, Unset):
            presence = UNSET
        elif isinstance(self.presence, PresenceView):
            presence = self.presence.to_dict()
        else:
            presence = self.presence

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "facts": facts,
                "hardware": hardware,
                "listing_id": listing_id,
                "reported_at": reported_at,
                "source": source,
            }
        )
        if presence is not UNSET:
            field_dict["presence"] = presence

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_facts_view import AgentFactsView  # noqa: PLC0415
        from ..models.hardware_match_view import HardwareMatchView  # noqa: PLC0415
        from ..models.presence_view import PresenceView  # noqa: PLC0415

        d = dict(src_dict)
        facts = AgentFactsView.from_dict(d.pop("facts"))

        hardware = HardwareMatchView.from_dict(d.pop("hardware"))

        listing_id = UUID(d.pop("listing_id"))

        reported_at = datetime.datetime.fromisoformat(d.pop("reported_at"))

        source = d.pop("source")

        def _parse_presence(data: object) -> None | PresenceView | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                presence_type_0 = PresenceView.from_dict(data)

                return presence_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PresenceView | Unset, data)

        presence = _parse_presence(d.pop("presence", UNSET))

        agent_view = cls(
            facts=facts,
            hardware=hardware,
            listing_id=listing_id,
            reported_at=reported_at,
            source=source,
            presence=presence,
        )

        agent_view.additional_properties = d
        return agent_view

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
