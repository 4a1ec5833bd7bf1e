from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.access_patch import AccessPatch
    from ..models.availability_patch import AvailabilityPatch
    from ..models.catalog_view import CatalogView
    from ..models.engine_patch import EnginePatch
    from ..models.guarantee_view import GuaranteeView
    from ..models.hardware_patch import HardwarePatch
    from ..models.price_patch import PricePatch


T = TypeVar("T", bound="UpdateListingRequest")


@_attrs_define
class UpdateListingRequest:
    """The fields to change; everything absent stays as it is.

    Attributes:
        access (AccessPatch | None | Unset):
        availability (AvailabilityPatch | None | Unset):
        catalog (CatalogView | None | Unset):
        engine (EnginePatch | None | Unset):
        guarantee (GuaranteeView | None | Unset):
        hardware (HardwarePatch | None | Unset):
        price (None | PricePatch | Unset):
        region (None | str | Unset):
        title (None | str | Unset):
    """

    access: AccessPatch | None | Unset = UNSET
    availability: AvailabilityPatch | None | Unset = UNSET
    catalog: CatalogView | None | Unset = UNSET
    engine: EnginePatch | None | Unset = UNSET
    guarantee: GuaranteeView | None | Unset = UNSET
    hardware: HardwarePatch | None | Unset = UNSET
    price: None | PricePatch | Unset = UNSET
    region: None | str | Unset = UNSET
    title: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.access_patch import AccessPatch  # noqa: PLC0415
        from ..models.availability_patch import AvailabilityPatch  # noqa: PLC0415
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.engine_patch import EnginePatch  # noqa: PLC0415
        from ..models.guarantee_view import GuaranteeView  # noqa: PLC0415
        from ..models.hardware_patch import HardwarePatch  # noqa: PLC0415
        from ..models.price_patch import PricePatch  # noqa: PLC0415

        access: dict[str, Any] | None | Unset
        if isinstance(self.access, Unset):
            access = UNSET
        elif isinstance(self.access, AccessPatch):
            access = self.access.to_dict()
        else:
            access = self.access

        availability: dict[str, Any] | None | Unset
        if isinstance(self.availability, Unset):
            availability = UNSET
        elif isinstance(self.availability, AvailabilityPatch):
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

        engine: dict[str, Any] | None | Unset
        if isinstance(self.engine, Unset):
            engine = UNSET
        elif isinstance(self.engine, EnginePatch):
            engine = self.engine.to_dict()
        else:
            engine = self.engine

        guarantee: dict[str, Any] | None | Unset
        if isinstance(self.guarantee, Unset):
            guarantee = UNSET
        elif isinstance(self.guarantee, GuaranteeView):
            guarantee = self.guarantee.to_dict()
        else:
            guarantee = self.guarantee

        hardware: dict[str, Any] | None | Unset
        if isinstance(self.hardware, Unset):
            hardware = UNSET
        elif isinstance(self.hardware, HardwarePatch):
            hardware = self.hardware.to_dict()
        else:
            hardware = self.hardware

        price: dict[str, Any] | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        elif isinstance(self.price, PricePatch):
            price = self.price.to_dict()
        else:
            price = self.price

        region: None | str | Unset
        if isinstance(self.region, Unset):
            region = UNSET
        else:
            region = self.region

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if access is not UNSET:
            field_dict["access"] = access
        if availability is not UNSET:
            field_dict["availability"] = availability
        if catalog is not UNSET:
            field_dict["catalog"] = catalog
        if engine is not UNSET:
            field_dict["engine"] = engine
        if guarantee is not UNSET:
            field_dict["guarantee"] = guarantee
        if hardware is not UNSET:
            field_dict["hardware"] = hardware
        if price is not UNSET:
            field_dict["price"] = price
        if region is not UNSET:
            field_dict["region"] = region
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.access_patch import AccessPatch  # noqa: PLC0415
        from ..models.availability_patch import AvailabilityPatch  # noqa: PLC0415
        from ..models.catalog_view import CatalogView  # noqa: PLC0415
        from ..models.engine_patch import EnginePatch  # noqa: PLC0415
        from ..models.guarantee_view import GuaranteeView  # noqa: PLC0415
        from ..models.hardware_patch import HardwarePatch  # noqa: PLC0415
        from ..models.price_patch import PricePatch  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_access(data: object) -> AccessPatch | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                access_type_0 = AccessPatch.from_dict(data)

                return access_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AccessPatch | None | Unset, data)

        access = _parse_access(d.pop("access", UNSET))

        def _parse_availability(data: object) -> AvailabilityPatch | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                availability_type_0 = AvailabilityPatch.from_dict(data)

                return availability_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AvailabilityPatch | None | Unset, data)

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

        def _parse_engine(data: object) -> EnginePatch | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                engine_type_0 = EnginePatch.from_dict(data)

                return engine_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EnginePatch | None | Unset, data)

        engine = _parse_engine(d.pop("engine", UNSET))

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

        def _parse_hardware(data: object) -> HardwarePatch | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                hardware_type_0 = HardwarePatch.from_dict(data)

                return hardware_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HardwarePatch | None | Unset, data)

        hardware = _parse_hardware(d.pop("hardware", UNSET))

        def _parse_price(data: object) -> None | PricePatch | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                price_type_0 = PricePatch.from_dict(data)

                return price_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PricePatch | Unset, data)

        price = _parse_price(d.pop("price", UNSET))

        def _parse_region(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        region = _parse_region(d.pop("region", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        update_listing_request = cls(
            access=access,
            availability=availability,
            catalog=catalog,
            engine=engine,
            guarantee=guarantee,
            hardware=hardware,
            price=price,
            region=region,
            title=title,
        )

        return update_listing_request
