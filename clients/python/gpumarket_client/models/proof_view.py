from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ProofView")


@_attrs_define
class ProofView:
    """
    Attributes:
        checkpoint (str): The signed checkpoint (C2SP signed note) whose root the proof leads to.
        inclusion_proof (list[str]): RFC 9162 inclusion proof, leaf to root, standard base64 of each hash.
        leaf_index (int):
        tree_size (int):
    """

    checkpoint: str
    inclusion_proof: list[str]
    leaf_index: int
    tree_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint = self.checkpoint

        inclusion_proof = self.inclusion_proof

        leaf_index = self.leaf_index

        tree_size = self.tree_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint": checkpoint,
                "inclusion_proof": inclusion_proof,
                "leaf_index": leaf_index,
                "tree_size": tree_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        checkpoint = d.pop("checkpoint")

        inclusion_proof = cast(list[str], d.pop("inclusion_proof"))

        leaf_index = d.pop("leaf_index")

        tree_size = d.pop("tree_size")

        proof_view = cls(
            checkpoint=checkpoint,
            inclusion_proof=inclusion_proof,
            leaf_index=leaf_index,
            tree_size=tree_size,
        )

        proof_view.additional_properties = d
        return proof_view

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
