from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LogEntryView")


@_attrs_define
class LogEntryView:
    """
    Attributes:
        index (int):
        kind (str): `verification`, `spot_check`, `organisation` (an organisation report),
            `community_receipt` (the receipt of a community run), `uptime` (a listing's signed
            uptime statement over one period) or `log_rollback` (the signed statement that the log
            was restored behind a checkpoint it had published, and goes on from the restored tree).
        leaf (str): Standard base64 of the leaf's bytes: the report's DSSE envelope as RFC 8785 canonical
            JSON; for a `private` entry, the SHA-256 of that.
        private (bool): The leaf is a digest: the envelope itself is not public.
        report_id (None | Unset | UUID): The logged report: a listing's report, an organisation report, a community run
            or an
            uptime statement; `null` for a `private` entry (its existence and place are provable,
            nothing more).
    """

    index: int
    kind: str
    leaf: str
    private: bool
    report_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        kind = self.kind

        leaf = self.leaf

        private = self.private

        report_id: None | str | Unset
        if isinstance(self.report_id, Unset):
            report_id = UNSET
        elif isinstance(self.report_id, UUID):
            report_id = str(self.report_id)
        else:
            report_id = self.report_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "kind": kind,
                "leaf": leaf,
                "private": private,
            }
        )
        if report_id is not UNSET:
            field_dict["report_id"] = report_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        kind = d.pop("kind")

        leaf = d.pop("leaf")

        private = d.pop("private")

        def _parse_report_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                report_id_type_0 = UUID(data)

                return report_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        report_id = _parse_report_id(d.pop("report_id", UNSET))

        log_entry_view = cls(
            index=index,
            kind=kind,
            leaf=leaf,
            private=private,
            report_id=report_id,
        )

        log_entry_view.additional_properties = d
        return log_entry_view

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
