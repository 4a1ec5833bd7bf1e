from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PreflightCheckView")


@_attrs_define
class PreflightCheckView:
    """One check's answer.

    Attributes:
        check (str): `engine_reachable`, `model_served`, `metrics_dialect`, `completion`, `kv_capacity`,
            `agent_online`, `hardware_match`, `clock_offset` or `gpu_health`.
        evidence (str): What was seen (an engine's words bounded and clipped; the agent's are the machine's
            word, not an attestation).
        state (str): `pass`, `warn` (would not stop a verification), `fail` (would) or `skip` (not asked:
            no agent, or an earlier check failed). Example: fail.
        suggested_steps (list[str]): What to do about it; empty when nothing is needed.
    """

    check: str
    evidence: str
    state: str
    suggested_steps: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        check = self.check

        evidence = self.evidence

        state = self.state

        suggested_steps = self.suggested_steps

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "check": check,
                "evidence": evidence,
                "state": state,
                "suggested_steps": suggested_steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        check = d.pop("check")

        evidence = d.pop("evidence")

        state = d.pop("state")

        suggested_steps = cast(list[str], d.pop("suggested_steps"))

        preflight_check_view = cls(
            check=check,
            evidence=evidence,
            state=state,
            suggested_steps=suggested_steps,
        )

        preflight_check_view.additional_properties = d
        return preflight_check_view

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
