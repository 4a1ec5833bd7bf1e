from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PlanLimitsView")


@_attrs_define
class PlanLimitsView:
    """What a plan allows.

    Attributes:
        private_reports (bool): Whether verifications may be asked for with `visibility: private`.
        rate_limit_scale (int): Each rate-limit class's requests a minute, times this.
        spot_check_every_secs (int): Each verified listing gets an unannounced spot check once in every period this
            long.
        verification_runs_per_day (int):
    """

    private_reports: bool
    rate_limit_scale: int
    spot_check_every_secs: int
    verification_runs_per_day: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        private_reports = self.private_reports

        rate_limit_scale = self.rate_limit_scale

        spot_check_every_secs = self.spot_check_every_secs

        verification_runs_per_day = self.verification_runs_per_day

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "private_reports": private_reports,
                "rate_limit_scale": rate_limit_scale,
                "spot_check_every_secs": spot_check_every_secs,
                "verification_runs_per_day": verification_runs_per_day,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        private_reports = d.pop("private_reports")

        rate_limit_scale = d.pop("rate_limit_scale")

        spot_check_every_secs = d.pop("spot_check_every_secs")

        verification_runs_per_day = d.pop("verification_runs_per_day")

        plan_limits_view = cls(
            private_reports=private_reports,
            rate_limit_scale=rate_limit_scale,
            spot_check_every_secs=spot_check_every_secs,
            verification_runs_per_day=verification_runs_per_day,
        )

        plan_limits_view.additional_properties = d
        return plan_limits_view

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
