from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.energy_estimate_view import EnergyEstimateView
    from ..models.formula_view import FormulaView
    from ..models.measured_cell_view import MeasuredCellView
    from ..models.predicted_view import PredictedView


T = TypeVar("T", bound="DecodeEstimateView")


@_attrs_define
class DecodeEstimateView:
    """
    Attributes:
        concurrency (int):
        context (int):
        energy (EnergyEstimateView): The GPU's energy at the predicted speed, from its board power: a ceiling (a GPU
            draws at
            most its board power; what one machine measured is in its report, `source: agent`).
        formula (FormulaView):
        gpu (str):
        max_concurrency (int): The most streams whose KV cache fits at this context.
        measured (list[MeasuredCellView]): Figures measured for this pair at this cell: verified ones first, then
            community
            runs (`source` tells which).
        model (str):
        physical_limit_total_tok_s (float): What no measurement may exceed: the roofline at full bandwidth plus the
            margin
            verification allows (`exceeds_hardware_roofline`).
        predicted (PredictedView):
    """

    concurrency: int
    context: int
    energy: EnergyEstimateView
    formula: FormulaView
    gpu: str
    max_concurrency: int
    measured: list[MeasuredCellView]
    model: str
    physical_limit_total_tok_s: float
    predicted: PredictedView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        concurrency = self.concurrency

        context = self.context

        energy = self.energy.to_dict()

        formula = self.formula.to_dict()

        gpu = self.gpu

        max_concurrency = self.max_concurrency

        measured = []
        for measured_item_data in self.measured:
            measured_item = measured_item_data.to_dict()
            measured.append(measured_item)

        model = self.model

        physical_limit_total_tok_s = self.physical_limit_total_tok_s

        predicted = self.predicted.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "concurrency": concurrency,
                "context": context,
                "energy": energy,
                "formula": formula,
                "gpu": gpu,
                "max_concurrency": max_concurrency,
                "measured": measured,
                "model": model,
                "physical_limit_total_tok_s": physical_limit_total_tok_s,
                "predicted": predicted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.energy_estimate_view import EnergyEstimateView  # noqa: PLC0415
        from ..models.formula_view import FormulaView  # noqa: PLC0415
        from ..models.measured_cell_view import MeasuredCellView  # noqa: PLC0415
        from ..models.predicted_view import PredictedView  # noqa: PLC0415

        d = dict(src_dict)
        concurrency = d.pop("concurrency")

        context = d.pop("context")

        energy = EnergyEstimateView.from_dict(d.pop("energy"))

        formula = FormulaView.from_dict(d.pop("formula"))

        gpu = d.pop("gpu")

        max_concurrency = d.pop("max_concurrency")

        measured = []
        _measured = d.pop("measured")
        for measured_item_data in _measured:
            measured_item = MeasuredCellView.from_dict(measured_item_data)

            measured.append(measured_item)

        model = d.pop("model")

        physical_limit_total_tok_s = d.pop("physical_limit_total_tok_s")

        predicted = PredictedView.from_dict(d.pop("predicted"))

        decode_estimate_view = cls(
            concurrency=concurrency,
            context=context,
            energy=energy,
            formula=formula,
            gpu=gpu,
            max_concurrency=max_concurrency,
            measured=measured,
            model=model,
            physical_limit_total_tok_s=physical_limit_total_tok_s,
            predicted=predicted,
        )

        decode_estimate_view.additional_properties = d
        return decode_estimate_view

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
