from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.access_input import AccessInput
    from ..models.availability_window_view import AvailabilityWindowView
    from ..models.catalog_view import CatalogView
    from ..models.engine_input import EngineInput
    from ..models.guarantee_view import GuaranteeView
    from ..models.hardware_view import HardwareView
    from ..models.price_view import PriceView


T = TypeVar("T", bound="CreateListingRequest")


@_attrs_define
class CreateListingRequest:
    """
    Attributes:
        engine (EngineInput):
        hardware (HardwareView): A listing's hardware as the provider claims it.
        org_id (UUID):
        price (PriceView): A price per GPU-hour in integer minor units (cents) of an ISO 4217 currency.
        region (str):
        title (str):
        access (AccessInput | None | Unset):
        availability (AvailabilityWindowView | None | Unset):
        catalog (CatalogView | None | Unset):
        guarantee (GuaranteeView | None | Unset):
    """

    engine: EngineInput
    hardware: HardwareView
    org_id: UUID
    price: PriceView
    region: str
    title: str
    access: AccessInput | None | Unset = UNSET
    availability: AvailabilityWindowView | None | Unset = UNSET
    catalog: CatalogView | None | Unset = UNSET
    guarantee: GuaranteeView | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.access_input import AccessInput  # noqa: PLC0415
        from ..models.availability_window_view import AvailabilityWindowView  # noqa: PLC0415
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.guarantee_view import GuaranteeView  # noqa: PLC0415

        engine = self.engine.to_dict()

        hardware = self.hardware.to_dict()

        org_id = str(self.org_id)

        price = self.price.to_dict()

        region = self.region

        title = self.title

        access: dict[str, Any] | None | Unset
        if isinstance(self.access, Unset):
            access = UNSET
        elif isinstance(self.access, AccessInput):
            access = self.access.to_dict()
        else:
            access = self.access

        availability: dict[str, Any] | None | Unset
        if isinstance(self.availability, Unset):
            availability = UNSET
        elif isinstance(self.availability, AvailabilityWindowView):
            availability = self.availability.to_dict()
        else:
            availability = self.availability

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

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "engine": engine,
                "hardware": hardware,
                "org_id": org_id,
                "price": price,
                "region": region,
                "title": title,
            }
        )
        if access is not UNSET:
            field_dict["access"] = access
        if availability is not UNSET:
            field_dict["availability"] = availability
        if catalog is not UNSET:
            field_dict["catalog"] = catalog
        if guarantee is not UNSET:
            field_dict["guarantee"] = guarantee

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.access_input import AccessInput  # noqa: PLC0415
        from ..models.availability_window_view import AvailabilityWindowView  # noqa: PLC0415
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.engine_input import EngineInput  # noqa: PLC0415
        from ..models.guarantee_view import GuaranteeView  # noqa: PLC0415
        from ..models.hardware_view import HardwareView  # noqa: PLC0415
        from ..models.price_view import PriceView  # noqa: PLC0415

        d = dict(src_dict)
        engine = EngineInput.from_dict(d.pop("engine"))

        hardware = HardwareView.from_dict(d.pop("hardware"))

        org_id = UUID(d.pop("org_id"))

        price = PriceView.from_dict(d.pop("price"))

        region = d.pop("region")

        title = d.pop("title")

        def _parse_access(data: object) -> AccessInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                access_type_0 = AccessInput.from_dict(data)

                return access_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AccessInput | None | Unset, data)

        access = _parse_access(d.pop("access", UNSET))

        def _parse_availability(data: object) -> AvailabilityWindowView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                availability_type_0 = AvailabilityWindowView.from_dict(data)

                return availability_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AvailabilityWindowView | None | Unset, data)

        availability = _parse_availability(d.pop("availability", UNSET))

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

        create_listing_request = cls(
            engine=engine,
            hardware=hardware,
            org_id=org_id,
            price=price,
            region=region,
            title=title,
            access=access,
            availability=availability,
            catalog=catalog,
            guarantee=guarantee,
        )

        return create_listing_request
