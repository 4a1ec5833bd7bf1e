from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.catalog_view import CatalogView
    from ..models.submit_run_request_report import SubmitRunRequestReport


T = TypeVar("T", bound="SubmitRunRequest")


@_attrs_define
class SubmitRunRequest:
    """A report and what its submitter says about the run.

    Attributes:
        report (SubmitRunRequestReport): The report as `gpumarket bench --out` writes it.
        catalog (CatalogView | None | Unset):
        hardware_notes (None | str | Unset):
        launch_command (None | str | Unset): How the engine was started, as on the reference page.
    """

    report: SubmitRunRequestReport
    catalog: CatalogView | None | Unset = UNSET
    hardware_notes: None | str | Unset = UNSET
    launch_command: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.catalog_view import CatalogView  # noqa: PLC0415

        report = self.report.to_dict()

        catalog: dict[str, Any] | None | Unset
        if isinstance(self.catalog, Unset):
            catalog = UNSET
        elif isinstance(self.catalog, CatalogView):
            catalog = self.catalog.to_dict()
        else:
            catalog = self.catalog

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

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "report": report,
            }
        )
        if catalog is not UNSET:
            field_dict["catalog"] = catalog
        if hardware_notes is not UNSET:
            field_dict["hardware_notes"] = hardware_notes
        if launch_command is not UNSET:
            field_dict["launch_command"] = launch_command

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.submit_run_request_report import SubmitRunRequestReport  # noqa: PLC0415

        d = dict(src_dict)
        report = SubmitRunRequestReport.from_dict(d.pop("report"))

        def _parse_catalog(data: object) -> CatalogView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                catalog_type_0 = CatalogView.from_dict(data)

                return catalog_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CatalogView | None | Unset, data)

        catalog = _parse_catalog(d.pop("catalog", UNSET))

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

        submit_run_request = cls(
            report=report,
            catalog=catalog,
            hardware_notes=hardware_notes,
            launch_command=launch_command,
        )

        return submit_run_request
