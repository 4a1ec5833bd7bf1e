from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.log_position_view import LogPositionView
    from ..models.page_report_view_items_item_envelope import PageReportViewItemsItemEnvelope
    from ..models.page_report_view_items_item_summary import PageReportViewItemsItemSummary


T = TypeVar("T", bound="PageReportViewItemsItem")


@_attrs_define
class PageReportViewItemsItem:
    """A signed report. `envelope` is the DSSE envelope; verify it against `/v1/signing-keys`.

    Attributes:
        compliant (bool):
        created_at (datetime.datetime):
        envelope (PageReportViewItemsItemEnvelope): `null` when withheld.
        hardware_confirmed (bool): `true`: when the report was made, the machine's agent reported the hardware the
            listing claimed ("confirmed by agent" — the machine's word, not a cryptographic
            attestation, and not part of the signed report); `false`: as claimed.
        id (UUID):
        key_id (str):
        kind (str): `verification`, or `spot_check` (an unannounced re-measurement; never a headline).
        listing_id (UUID):
        org_id (UUID):
        run_id (UUID):
        summary (PageReportViewItemsItemSummary):
        visibility (str): `public`, or `private` (shown to the organisation's members and share links only;
            its log leaf is the SHA-256 of its envelope).
        envelope_withheld (bool | Unset): Only the listing's organisation is shown this (older) report's envelope: it
            names
            the engine's address.
        log (LogPositionView | None | Unset):
    """

    compliant: bool
    created_at: datetime.datetime
    envelope: PageReportViewItemsItemEnvelope
    hardware_confirmed: bool
    id: UUID
    key_id: str
    kind: str
    listing_id: UUID
    org_id: UUID
    run_id: UUID
    summary: PageReportViewItemsItemSummary
    visibility: str
    envelope_withheld: bool | Unset = UNSET
    log: LogPositionView | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.log_position_view import LogPositionView  # noqa: PLC0415

        compliant = self.compliant

        created_at = self.created_at.isoformat()

        envelope = self.envelope.to_dict()

        hardware_confirmed = self.hardware_confirmed

        id = str(self.id)

        key_id = self.key_id

        kind = self.kind

        listing_id = str(self.listing_id)

        org_id = str(self.org_id)

        run_id = str(self.run_id)

        summary = self.summary.to_dict()

        visibility = self.visibility

        envelope_withheld = self.envelope_withheld

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
                "compliant": compliant,
                "created_at": created_at,
                "envelope": envelope,
                "hardware_confirmed": hardware_confirmed,
                "id": id,
                "key_id": key_id,
                "kind": kind,
                "listing_id": listing_id,
                "org_id": org_id,
                "run_id": run_id,
                "summary": summary,
                "visibility": visibility,
            }
        )
        if envelope_withheld is not UNSET:
            field_dict["envelope_withheld"] = envelope_withheld
        if log is not UNSET:
            field_dict["log"] = log

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.log_position_view import LogPositionView  # noqa: PLC0415
        from ..models.page_report_view_items_item_envelope import PageReportViewItemsItemEnvelope  # noqa: PLC0415
        from ..models.page_report_view_items_item_summary import PageReportViewItemsItemSummary  # noqa: PLC0415

        d = dict(src_dict)
        compliant = d.pop("compliant")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        envelope = PageReportViewItemsItemEnvelope.from_dict(d.pop("envelope"))

        hardware_confirmed = d.pop("hardware_confirmed")

        id = UUID(d.pop("id"))

        key_id = d.pop("key_id")

        kind = d.pop("kind")

        listing_id = UUID(d.pop("listing_id"))

        org_id = UUID(d.pop("org_id"))

        run_id = UUID(d.pop("run_id"))

        summary = PageReportViewItemsItemSummary.from_dict(d.pop("summary"))

        visibility = d.pop("visibility")

        envelope_withheld = d.pop("envelope_withheld", UNSET)

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

        page_report_view_items_item = cls(
            compliant=compliant,
            created_at=created_at,
            envelope=envelope,
            hardware_confirmed=hardware_confirmed,
            id=id,
            key_id=key_id,
            kind=kind,
            listing_id=listing_id,
            org_id=org_id,
            run_id=run_id,
            summary=summary,
            visibility=visibility,
            envelope_withheld=envelope_withheld,
            log=log,
        )

        page_report_view_items_item.additional_properties = d
        return page_report_view_items_item

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
