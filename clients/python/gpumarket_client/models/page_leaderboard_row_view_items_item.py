from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PageLeaderboardRowViewItemsItem")


@_attrs_define
class PageLeaderboardRowViewItemsItem:
    """
    Attributes:
        concurrency (int):
        context_tokens (int):
        gpu_model (str):
        model (str):
        source (str): `verified` or `community`.
        total_tok_s (float):
        engine (None | str | Unset): The engine a row's report measured (`vllm`, `llamacpp`, `sglang`, `tgi`; a
            community
            run's as its submitter's report names it): rows are per GPU, model and engine. Absent
            for reports signed before engines were named, and for community reports naming none
            the standard knows.
        listing_id (None | Unset | UUID):
        per_request_tok_s (float | None | Unset):
        report_id (None | Unset | UUID): A verified row's report and listing.
        run_id (None | Unset | UUID): A community row's run.
    """

    concurrency: int
    context_tokens: int
    gpu_model: str
    model: str
    source: str
    total_tok_s: float
    engine: None | str | Unset = UNSET
    listing_id: None | Unset | UUID = UNSET
    per_request_tok_s: float | None | Unset = UNSET
    report_id: None | Unset | UUID = UNSET
    run_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        concurrency = self.concurrency

        context_tokens = self.context_tokens

        gpu_model = self.gpu_model

        model = self.model

        source = self.source

        total_tok_s = self.total_tok_s

        engine: None | str | Unset
        if isinstance(self.engine, Unset):
            engine = UNSET
        else:
            engine = self.engine

        listing_id: None | str | Unset
        if isinstance(self.listing_id, Unset):
            listing_id = UNSET
        elif isinstance(self.listing_id, UUID):
            listing_id = str(self.listing_id)
        else:
            listing_id = self.listing_id

        per_request_tok_s: float | None | Unset
        if isinstance(self.per_request_tok_s, Unset):
            per_request_tok_s = UNSET
        else:
            per_request_tok_s = self.per_request_tok_s

        report_id: None | str | Unset
        if isinstance(self.report_id, Unset):
            report_id = UNSET
        elif isinstance(self.report_id, UUID):
            report_id = str(self.report_id)
        else:
            report_id = self.report_id

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        elif isinstance(self.run_id, UUID):
            run_id = str(self.run_id)
        else:
            run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "concurrency": concurrency,
                "context_tokens": context_tokens,
                "gpu_model": gpu_model,
                "model": model,
                "source": source,
                "total_tok_s": total_tok_s,
            }
        )
        if engine is not UNSET:
            field_dict["engine"] = engine
        if listing_id is not UNSET:
            field_dict["listing_id"] = listing_id
        if per_request_tok_s is not UNSET:
            field_dict["per_request_tok_s"] = per_request_tok_s
        if report_id is not UNSET:
            field_dict["report_id"] = report_id
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        concurrency = d.pop("concurrency")

        context_tokens = d.pop("context_tokens")

        gpu_model = d.pop("gpu_model")

        model = d.pop("model")

        source = d.pop("source")

        total_tok_s = d.pop("total_tok_s")

        def _parse_engine(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        engine = _parse_engine(d.pop("engine", UNSET))

        def _parse_listing_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                listing_id_type_0 = UUID(data)

                return listing_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        listing_id = _parse_listing_id(d.pop("listing_id", UNSET))

        def _parse_per_request_tok_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        per_request_tok_s = _parse_per_request_tok_s(d.pop("per_request_tok_s", UNSET))

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

        def _parse_run_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_id_type_0 = UUID(data)

                return run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        page_leaderboard_row_view_items_item = cls(
            concurrency=concurrency,
            context_tokens=context_tokens,
            gpu_model=gpu_model,
            model=model,
            source=source,
            total_tok_s=total_tok_s,
            engine=engine,
            listing_id=listing_id,
            per_request_tok_s=per_request_tok_s,
            report_id=report_id,
            run_id=run_id,
        )

        page_leaderboard_row_view_items_item.additional_properties = d
        return page_leaderboard_row_view_items_item

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
