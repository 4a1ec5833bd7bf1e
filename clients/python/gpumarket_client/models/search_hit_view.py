from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.access_view import AccessView
    from ..models.availability_window_view import AvailabilityWindowView
    from ..models.catalog_view import CatalogView
    from ..models.engine_view import EngineView
    from ..models.guarantee_view import GuaranteeView
    from ..models.hardware_view import HardwareView
    from ..models.liveness_view import LivenessView
    from ..models.match_view import MatchView
    from ..models.price_view import PriceView
    from ..models.verification_cost_view import VerificationCostView
    from ..models.verification_summary_view import VerificationSummaryView


T = TypeVar("T", bound="SearchHitView")


@_attrs_define
class SearchHitView:
    """
    Attributes:
        access (AccessView): How renters reach the machine. The details are shown to the provider's members and,
            through `GET /v1/bookings/{id}/access`, to renters; everyone sees `methods`.
        availability (AvailabilityWindowView): When the machine may be booked: `[from, until)`; an absent end is open.
        created_at (datetime.datetime):
        engine (EngineView): The engine verification measures. `base_url` is shown to the provider's members only;
            the API key never is, only whether one is set.
        hardware (HardwareView): A listing's hardware as the provider claims it.
        hardware_confirmed (bool): `true`: the machine's agent reports the hardware claimed ("confirmed by agent") — the
            machine's word, not a cryptographic attestation; `false`: as claimed by the provider.
        id (UUID):
        org_id (UUID):
        price (PriceView): A price per GPU-hour in integer minor units (cents) of an ISO 4217 currency.
        region (str):
        status (str): `active`, or `delisted` (no longer found or bookable).
        title (str):
        verification_state (str): `unverified`, `verified`, `expired` (no spot check renewed the badge in time) or
            `demoted` (a spot check found the machine or engine no longer as verified).
        verified (bool):
        match (MatchView): The measured figures a hit was found and ordered by.
        catalog (CatalogView | None | Unset):
        guarantee (GuaranteeView | None | Unset):
        last_verification_cost (None | Unset | VerificationCostView):
        liveness (LivenessView | None | Unset):
        reliability (float | None | Unset): The 30-day uptime from liveness probes, 0 to 1 (time in maintenance
            announced in
            time left out); `null` before the first probe. `GET /v1/listings/{id}/uptime` has
            the rest.
        verification (None | Unset | VerificationSummaryView):
    """

    access: AccessView
    availability: AvailabilityWindowView
    created_at: datetime.datetime
    engine: EngineView
    hardware: HardwareView
    hardware_confirmed: bool
    id: UUID
    org_id: UUID
    price: PriceView
    region: str
    status: str
    title: str
    verification_state: str
    verified: bool
    match: MatchView
    catalog: CatalogView | None | Unset = UNSET
    guarantee: GuaranteeView | None | Unset = UNSET
    last_verification_cost: None | Unset | VerificationCostView = UNSET
    liveness: LivenessView | None | Unset = UNSET
    reliability: float | None | Unset = UNSET
    verification: None | Unset | VerificationSummaryView = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.guarantee_view import GuaranteeView  # noqa: PLC0415
        from ..models.liveness_view import LivenessView  # noqa: PLC0415
        from ..models.verification_cost_view import VerificationCostView  # noqa: PLC0415
        from ..models.verification_summary_view import VerificationSummaryView  # noqa: PLC0415

        access = self.access.to_dict()

        availability = self.availability.to_dict()

        created_at = self.created_at.isoformat()

        engine = self.engine.to_dict()

        hardware = self.hardware.to_dict()

        hardware_confirmed = self.hardware_confirmed

        id = str(self.id)

        org_id = str(self.org_id)

        price = self.price.to_dict()

        region = self.region

        status = self.status

        title = self.title

        verification_state = self.verification_state

        verified = self.verified

        match = self.match.to_dict()

        catalog: dict[str, Any] | None | Unset
        if isinstance(self.catalog, Unset):
            catalog = UNSET
        elif isinstance(self.catalog, CatalogView):
            catalog = self.catalog.to_dict()
        else:
            catalog = self.catalog

        guarantee: dict[str, Any] | None | Unset
        if isinstance(self.guarantee, Unset):
            guarantee = UNSET
        elif isinstance(self.guarantee, GuaranteeView):
            guarantee = self.guarantee.to_dict()
        else:
            guarantee = self.guarantee

        last_verification_cost: dict[str, Any] | None | Unset
        if isinstance(self.last_verification_cost, Unset):
            last_verification_cost = UNSET
        elif isinstance(self.last_verification_cost, VerificationCostView):
            last_verification_cost = self.last_verification_cost.to_dict()
        else:
            last_verification_cost = self.last_verification_cost

        liveness: dict[str, Any] | None | Unset
        if isinstance(self.liveness, Unset):
            liveness = UNSET
        elif isinstance(self.liveness, LivenessView):
            liveness = self.liveness.to_dict()
        else:
            liveness = self.liveness

        reliability: float | None | Unset
        if isinstance(self.reliability, Unset):
            reliability = UNSET
        else:
            reliability = self.reliability

        verification: dict[str, Any] | None | Unset
        if isinstance(self.verification, Unset):
            verification = UNSET
        elif isinstance(self.verification, VerificationSummaryView):
            verification = self.verification.to_dict()
        else:
            verification = self.verification

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "access": access,
                "availability": availability,
                "created_at": created_at,
                "engine": engine,
                "hardware": hardware,
                "hardware_confirmed": hardware_confirmed,
                "id": id,
                "org_id": org_id,
                "price": price,
                "region": region,
                "status": status,
                "title": title,
                "verification_state": verification_state,
                "verified": verified,
                "match": match,
            }
        )
        if catalog is not UNSET:
            field_dict["catalog"] = catalog
        if guarantee is not UNSET:
            field_dict["guarantee"] = guarantee
        if last_verification_cost is not UNSET:
            field_dict["last_verification_cost"] = last_verification_cost
        if liveness is not UNSET:
            field_dict["liveness"] = liveness
        if reliability is not UNSET:
            field_dict["reliability"] = reliability
        if verification is not UNSET:
            field_dict["verification"] = verification

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.access_view import AccessView  # noqa: PLC0415
        from ..models.availability_window_view import AvailabilityWindowView  # noqa: PLC0415
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.engine_view import EngineView  # noqa: PLC0415
        from ..models.guarantee_view import GuaranteeView  # noqa: PLC0415
        from ..models.hardware_view import HardwareView  # noqa: PLC0415
        from ..models.liveness_view import LivenessView  # noqa: PLC0415
        from ..models.match_view import MatchView  # noqa: PLC0415
        from ..models.price_view import PriceView  # noqa: PLC0415
        from ..models.verification_cost_view import VerificationCostView  # noqa: PLC0415
        from ..models.verification_summary_view import VerificationSummaryView  # noqa: PLC0415

        d = dict(src_dict)
        access = AccessView.from_dict(d.pop("access"))

        availability = AvailabilityWindowView.from_dict(d.pop("availability"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        engine = EngineView.from_dict(d.pop("engine"))

        hardware = HardwareView.from_dict(d.pop("hardware"))

        hardware_confirmed = d.pop("hardware_confirmed")

        id = UUID(d.pop("id"))

        org_id = UUID(d.pop("org_id"))

        price = PriceView.from_dict(d.pop("price"))

        region = d.pop("region")

        status = d.pop("status")

        title = d.pop("title")

        verification_state = d.pop("verification_state")

        verified = d.pop("verified")

        match = MatchView.from_dict(d.pop("match"))

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

        def _parse_guarantee(data: object) -> GuaranteeView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                guarantee_type_0 = GuaranteeView.from_dict(data)

                return guarantee_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GuaranteeView | None | Unset, data)

        guarantee = _parse_guarantee(d.pop("guarantee", UNSET))

        def _parse_last_verification_cost(data: object) -> None | Unset | VerificationCostView:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_verification_cost_type_0 = VerificationCostView.from_dict(data)

                return last_verification_cost_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VerificationCostView, data)

        last_verification_cost = _parse_last_verification_cost(d.pop("last_verification_cost", UNSET))

        def _parse_liveness(data: object) -> LivenessView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                liveness_type_0 = LivenessView.from_dict(data)

                return liveness_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LivenessView | None | Unset, data)

        liveness = _parse_liveness(d.pop("liveness", UNSET))

        def _parse_reliability(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        reliability = _parse_reliability(d.pop("reliability", UNSET))

        def _parse_verification(data: object) -> None | Unset | VerificationSummaryView:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                verification_type_0 = VerificationSummaryView.from_dict(data)

                return verification_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VerificationSummaryView, data)

        verification = _parse_verification(d.pop("verification", UNSET))

        search_hit_view = cls(
            access=access,
            availability=availability,
            created_at=created_at,
            engine=engine,
            hardware=hardware,
            hardware_confirmed=hardware_confirmed,
            id=id,
            org_id=org_id,
            price=price,
            region=region,
            status=status,
            title=title,
            verification_state=verification_state,
            verified=verified,
            match=match,
            catalog=catalog,
            guarantee=guarantee,
            last_verification_cost=last_verification_cost,
            liveness=liveness,
            reliability=reliability,
            verification=verification,
        )

        search_hit_view.additional_properties = d
        return search_hit_view

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
