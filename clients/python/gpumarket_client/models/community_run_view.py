from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.catalog_view import CatalogView
    from ..models.community_run_view_receipt import CommunityRunViewReceipt
    from ..models.community_run_view_report import CommunityRunViewReport
    from ..models.log_position_view import LogPositionView
    from ..models.submitter_view import SubmitterView


T = TypeVar("T", bound="CommunityRunView")


@_attrs_define
class CommunityRunView:
    """A community run.

    Attributes:
        catalog (CatalogView): A listing's catalog entries: ids of `GET /v1/hardware` and `GET /v1/models`.
        created_at (datetime.datetime):
        id (UUID):
        label (str): Always `community`: measured by its submitter, not verified by the platform.
        model (str): The model the engine served.
        receipt (CommunityRunViewReceipt): The platform's signed receipt (DSSE envelope): who submitted what, when.
        report (CommunityRunViewReport): The report as submitted, without any engine address.
        report_sha256 (str): SHA-256 (hex) of the report as RFC 8785 JSON: the receipt's subject digest.
        submitter (SubmitterView): Who submitted a run.
        hardware_notes (None | str | Unset):
        launch_command (None | str | Unset):
        log (LogPositionView | None | Unset):
    """

    catalog: CatalogView
    created_at: datetime.datetime
    id: UUID
    label: str
    model: str
    receipt: CommunityRunViewReceipt
    report: CommunityRunViewReport
    report_sha256: str
    submitter: SubmitterView
    hardware_notes: None | str | Unset = UNSET
    launch_command: None | str | Unset = UNSET
    log: LogPositionView | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.log_position_view import LogPositionView  # noqa: PLC0415

        catalog = self.catalog.to_dict()

        created_at = self.created_at.isoformat()

        id = str(self.id)

        label = self.label

        model = self.model

        receipt = self.receipt.to_dict()

        report = self.report.to_dict()

        report_sha256 = self.report_sha256

        submitter = self.submitter.to_dict()

        hardware_notes: None | str | Unset
        if isinstance(self.hardware_notes, Unset):
            hardware_notes = UNSET
        else:
            hardware_notes = self.hardware_notes

        launch_command: None | str | Unset
        if isinstance(self.launch_command, Unset):
            launch_command = UNSET
        else:
            launch_command = self.launch_command

        log: dict[str, Any] | None | Unset
        if isinstance(self.log, Unset):
            log = UNSET
        elif isinstance(self.log, LogPositionView):
            log = self.log.to_dict()
        else:
            log = self.log

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catalog": catalog,
                "created_at": created_at,
                "id": id,
                "label": label,
                "model": model,
                "receipt": receipt,
                "report": report,
                "report_sha256": report_sha256,
                "submitter": submitter,
            }
        )
        if hardware_notes is not UNSET:
            field_dict["hardware_notes"] = hardware_notes
        if launch_command is not UNSET:
            field_dict["launch_command"] = launch_command
        if log is not UNSET:
            field_dict["log"] = log

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.community_run_view_receipt import CommunityRunViewReceipt  # noqa: PLC0415
        from ..models.community_run_view_report import CommunityRunViewReport  # noqa: PLC0415
        from ..models.log_position_view import LogPositionView  # noqa: PLC0415
        from ..models.submitter_view import SubmitterView  # noqa: PLC0415

        d = dict(src_dict)
        catalog = CatalogView.from_dict(d.pop("catalog"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        label = d.pop("label")

        model = d.pop("model")

        receipt = CommunityRunViewReceipt.from_dict(d.pop("receipt"))

        report = CommunityRunViewReport.from_dict(d.pop("report"))

        report_sha256 = d.pop("report_sha256")

        submitter = SubmitterView.from_dict(d.pop("submitter"))

        def _parse_hardware_notes(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hardware_notes = _parse_hardware_notes(d.pop("hardware_notes", UNSET))

        def _parse_launch_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        launch_command = _parse_launch_command(d.pop("launch_command", UNSET))

        def _parse_log(data: object) -> LogPositionView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                log_type_0 = LogPositionView.from_dict(data)

                return log_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LogPositionView | None | Unset, data)

        log = _parse_log(d.pop("log", UNSET))

        community_run_view = cls(
            catalog=catalog,
            created_at=created_at,
            id=id,
            label=label,
            model=model,
            receipt=receipt,
            report=report,
            report_sha256=report_sha256,
            submitter=submitter,
            hardware_notes=hardware_notes,
            launch_command=launch_command,
            log=log,
        )

        community_run_view.additional_properties = d
        return community_run_view

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
