"""onnx_ir objects <-> shapecheck types: a value's type and shape, a constant tensor, an attribute.

The IR twin of ``onnx_types``: the IR reader (``onnx_ir_model``) converts through here, and reads
the same things the protobuf reader reads, the same way (a ``dim_param`` that is an expression is
parsed, ``unk__`` names and negative dims are unknown, constants above ``MAX_CONST`` elements and
external tensors are kept as types only).  Nothing here imports onnx.

>>> import onnx_ir as ir
>>> v = ir.Value(name="x", type=ir.TensorType(ir.DataType.FLOAT), shape=ir.Shape(["N", 4, None]))
>>> str(value_type(v, "x"))
'float[N,4,?]'
>>> str(tensor_type(ir.tensor([3, 4], dtype=ir.DataType.INT64)))
'int64[2] = [3, 4]'
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import onnx_ir as ir

from ..dims import unknown_dim
from ..types import ONNX_CODES, TensorType, tensor_type_of
from ..tensor_data import read_directly
from .onnx_types import MADE_UP, MAX_CONST, const_type, dim_from_param

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


def dtype_name(dtype: Any) -> str | None:
    """The element type's name (``float``) of an ``ir.DataType``; None when undefined or unknown."""
    return ONNX_CODES.get(int(dtype)) if dtype is not None else None


def value_type(value: ir.Value, tensor: str, source: bool = False) -> TensorType:
    """A value's declared type as a ``TensorType``: its symbolic dims are the user's symbols, as
    ``onnx_types.tensor_type_from_proto`` reads them (``unk__N`` a name on a graph input, ``source``,
    unknown elsewhere); a sequence or optional type is unknown."""
    t = value.type
    if t is not None and not isinstance(t, ir.TensorType):
        return TensorType(None, None)
    dtype = dtype_name(t.dtype) if t is not None else None
    shape = value.shape
    if shape is None:
        return TensorType(dtype, None)
    dims: list = []
    for i, d in enumerate(shape):
        if isinstance(d, int):
            dims.append(d if d >= 0 else unknown_dim(f"{tensor}.shape[{i}]"))
            continue
        text = d.value if isinstance(d, ir.SymbolicDim) else None
        if text and (source or not text.startswith(MADE_UP)):
            dims.append(dim_from_param(text))
        else:
            dims.append(unknown_dim(f"{tensor}.shape[{i}]"))
    return TensorType(dtype, tuple(dims))


def tensor_type(tensor: Any, shape: tuple | None = None) -> TensorType:
    """A constant tensor's type, with its value unless it is external or larger than ``MAX_CONST``
    elements (``onnx_types.const_type``'s rule); ``shape``: its dims, when the caller has them (a
    tensor builds a ``Shape`` each time it is asked), checked against the data when it is read."""
    raw = getattr(tensor, "raw", None)
    if type(raw).__name__ == "TensorProto" and read_directly(raw):   # from its protobuf, as the ONNX reader reads it
        return const_type(raw, raw.name)
    dtype = dtype_name(tensor.dtype)
    if shape is None:
        shape = tuple(tensor.shape)
    if isinstance(tensor, ir.ExternalTensor) or math.prod(shape) > MAX_CONST:
        return TensorType(dtype, shape)
    try:
        value = np.asarray(tensor.numpy())
    except Exception:  # unreadable data: keep the type
        return TensorType(dtype, shape)
    return TensorType(dtype, value.shape, value)


def initializer_type(value: ir.Value, tensor: str) -> TensorType:
    """An initializer's type and value; its declared type where it holds no tensor."""
    const = value.const_value
    if const is None:
        return value_type(value, tensor)
    shape = value.shape   # the tensor's, unless a graph input of the same name declared another
    dims = tuple(shape) if shape is not None and not value.is_graph_input() else None
    return tensor_type(const, dims if dims is not None and all(type(d) is int for d in dims) else None)


# attribute types (as ints: an enum hashes in Python) whose value is used as it is, those read as tuples
_AS_IS = frozenset(int(k) for k in (ir.AttributeType.INT, ir.AttributeType.FLOAT, ir.AttributeType.STRING))
_AS_TUPLE = frozenset(int(k) for k in (ir.AttributeType.INTS, ir.AttributeType.FLOATS, ir.AttributeType.STRINGS))
_TENSOR, _TENSORS = int(ir.AttributeType.TENSOR), int(ir.AttributeType.TENSORS)


def attribute_value(attr: ir.Attr) -> Any:
    """An attribute's value as the model checker reads it: lists as tuples, tensors as arrays."""
    kind, value = int(attr.type), attr.value
    if kind in _AS_IS:
        return value
    if kind in _AS_TUPLE:
        return tuple(value)
    if kind == _TENSOR:
        return np.asarray(value.numpy())
    if kind == _TENSORS:
        return tuple(np.asarray(t.numpy()) for t in value)
    return value


def constant_node_type(attrs: dict[str, ir.Attr]) -> TensorType | None:
    """The type (and value) a Constant node with these attributes produces (``onnx_types.constant_node_value``)."""
    for name, a in attrs.items():
        if name == "value":
            return tensor_type(a.value)
        if name in ("value_int", "value_float", "value_ints", "value_floats"):
            return tensor_type_of(np.array(a.value, dtype=np.int64 if "int" in name else np.float32))
    return None


__all__ = ["dtype_name", "value_type", "tensor_type", "initializer_type", "attribute_value",
           "constant_node_type"]
