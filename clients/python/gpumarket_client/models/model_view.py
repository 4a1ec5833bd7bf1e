from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ModelView")


@_attrs_define
class ModelView:
    """A model's architecture, as the calculator uses it.

    Attributes:
        aliases (list[str]):
        attention_layers (int): Layers with a KV cache (fewer than `layers` in hybrid models).
        head_dim (int):
        id (str): URL-safe slug, e.g. `nvidia-nemotron-nano-12b-v2-awq`.
        kv_bytes_per_token (float): KV-cache bytes per token at 16 bits.
        kv_heads (int):
        layers (int):
        name (str):
        parameters_b (float): Billions of parameters.
        recurrent_state_bytes (float): Per sequence, over the recurrent (e.g. Mamba) layers.
        source (str): The model card the facts come from.
        unquantized_params_b (float): Billions of parameters kept at 16 bits (the output head of a quantised
            checkpoint).
        weight_bits (float): Bits per quantised weight (16: not quantised).
        weight_bytes (float): Bytes of weights one decode step reads.
    """

    aliases: list[str]
    attention_layers: int
    head_dim: int
    id: str
    kv_bytes_per_token: float
    kv_heads: int
    layers: int
    name: str
    parameters_b: float
    recurrent_state_bytes: float
    source: str
    unquantized_params_b: float
    weight_bits: float
    weight_bytes: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        aliases = self.aliases

        attention_layers = self.attention_layers

        head_dim = self.head_dim

        id = self.id

        kv_bytes_per_token = self.kv_bytes_per_token

        kv_heads = self.kv_heads

        layers = self.layers

        name = self.name

        parameters_b = self.parameters_b

        recurrent_state_bytes = self.recurrent_state_bytes

        source = self.source

        unquantized_params_b = self.unquantized_params_b

        weight_bits = self.weight_bits

        weight_bytes = self.weight_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "aliases": aliases,
                "attention_layers": attention_layers,
                "head_dim": head_dim,
                "id": id,
                "kv_bytes_per_token": kv_bytes_per_token,
                "kv_heads": kv_heads,
                "layers": layers,
                "name": name,
                "parameters_b": parameters_b,
                "recurrent_state_bytes": recurrent_state_bytes,
                "source": source,
                "unquantized_params_b": unquantized_params_b,
                "weight_bits": weight_bits,
                "weight_bytes": weight_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        aliases = cast(list[str], d.pop("aliases"))

        attention_layers = d.pop("attention_layers")

        head_dim = d.pop("head_dim")

        id = d.pop("id")

        kv_bytes_per_token = d.pop("kv_bytes_per_token")

        kv_heads = d.pop("kv_heads")

        layers = d.pop("layers")

        name = d.pop("name")

        parameters_b = d.pop("parameters_b")

        recurrent_state_bytes = d.pop("recurrent_state_bytes")

        source = d.pop("source")

        unquantized_params_b = d.pop("unquantized_params_b")

        weight_bits = d.pop("weight_bits")

        weight_bytes = d.pop("weight_bytes")

        model_view = cls(
            aliases=aliases,
            attention_layers=attention_layers,
            head_dim=head_dim,
            id=id,
            kv_bytes_per_token=kv_bytes_per_token,
            kv_heads=kv_heads,
            layers=layers,
            name=name,
            parameters_b=parameters_b,
            recurrent_state_bytes=recurrent_state_bytes,
            source=source,
            unquantized_params_b=unquantized_params_b,
            weight_bits=weight_bits,
            weight_bytes=weight_bytes,
        )

        model_view.additional_properties = d
        return model_view

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
