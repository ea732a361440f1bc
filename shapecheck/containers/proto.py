"""ONNX's TypeProto of any kind, read by its fields (onnx is never imported): ``from_proto``; and a
TYPE_PROTO attribute's value (Optional's ``type``): ``type_attr``.
"""
from __future__ import annotations

from typing import Any, Callable

from ..dims import unknown_dim
from ..types import TensorType
from .kinds import CONTAINERS, MapType, OptionalType, SequenceType
from .text import parse_value_type

__all__ = ["from_proto", "type_attr"]

_CODES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string", 9: "bool",
          10: "float16", 11: "double", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128", 16: "bfloat16"}


def from_proto(tp: Any, tensor: Callable[[Any], TensorType] | None = None) -> Any:
    """An ONNX TypeProto (read by its fields, without importing onnx) -> a type of any kind;
    ``tensor`` reads a tensor's TypeProto (the frontend's, which names unknown dims where they
    stand), by default with ``dim_param`` names as symbols."""
    read = tensor or _tensor_from_proto
    field = tp.WhichOneof("value") if hasattr(tp, "WhichOneof") else None
    if field == "sequence_type":
        return SequenceType(from_proto(tp.sequence_type.elem_type, read)
                            if tp.sequence_type.HasField("elem_type") else None)
    if field == "optional_type":
        return OptionalType(from_proto(tp.optional_type.elem_type, read)
                            if tp.optional_type.HasField("elem_type") else None)
    if field == "map_type":
        return MapType(_CODES.get(tp.map_type.key_type), from_proto(tp.map_type.value_type, read)
                       if tp.map_type.HasField("value_type") else None)
    if field == "tensor_type":
        return read(tp)
    return TensorType(None, None)


def _tensor_from_proto(tp: Any) -> TensorType:
    from ..dims import symbol
    tt = tp.tensor_type
    dtype = _CODES.get(tt.elem_type)
    if not tt.HasField("shape"):
        return TensorType(dtype, None)
    dims: list = []
    for i, d in enumerate(tt.shape.dim):
        if d.HasField("dim_value") and d.dim_value >= 0:
            dims.append(int(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param:
            dims.append(symbol(d.dim_param))
        else:
            dims.append(unknown_dim(f"elem.shape[{i}]"))
    return TensorType(dtype, tuple(dims))


def type_attr(value: Any) -> Any:
    """A TYPE_PROTO attribute's value (Optional's ``type``): a TypeProto, a type or its text."""
    if isinstance(value, str):
        return parse_value_type(value)
    if isinstance(value, (TensorType, *CONTAINERS)):
        return value
    if type(value).__name__ == "TypeProto":
        return from_proto(value)
    raise ValueError(f"not a type: {value!r}")
