"""Attribute types beyond int, string, float and ints: ``tensor`` and ``sparse_tensor`` (Constant's
``value``/``sparse_value``, ConstantOfShape's ``value``), ``floats``, ``strings``, ``type`` (a
TypeProto: Optional's ``type``, as a type of ``shapecheck.containers``) and ``graph`` (a subgraph,
which the model check walks as a region).

A tensor attribute becomes a constant tensor the notation reads like an input (``dtype(value)``,
``value.shape``, ``value.value``); it comes from an ONNX TensorProto or SparseTensorProto (the
frontend passes them as they are), a numpy array, or a type text with a value (``"float[1] = [0]"``,
as spec files write defaults and cases).

>>> convert_attr("tensor", "int32[1] = [7]"), convert_attr("floats", [1, 2.5]), convert_attr("tensor", "float[2]")
(int32[1] = [7], (1.0, 2.5), None)
"""
from __future__ import annotations

from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..containers import type_attr
from ..errors import UsageError
from ..types import TensorType, parse_type, tensor_type_of
from ..tensor_data import proto_array
from ..notation import TensorVal


class TensorAttr(TensorVal):
    """A tensor attribute's value (Constant's ``value``, ConstantOfShape's): a constant tensor
    that compares and prints as its type text, so spec diffs show ``float[1] = [0.0]``."""

    __slots__ = ("text",)

    def __init__(self, t: TensorType):
        super().__init__("value", t)
        self.text = str(t)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorAttr) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return self.text


def tensor_attr(value: Any) -> TensorAttr | None:
    """A tensor attribute from an ONNX TensorProto, a SparseTensorProto, an array or a type text."""
    if isinstance(value, TensorAttr):
        return value
    if isinstance(value, np.ndarray):
        return TensorAttr(tensor_type_of(value))
    if isinstance(value, str):
        t = parse_type(value, "value")
        return TensorAttr(t) if t.value is not None else None
    kind = type(value).__name__
    if kind == "TensorProto":
        return TensorAttr(tensor_type_of(proto_array(value)))
    if kind == "SparseTensorProto":
        return TensorAttr(tensor_type_of(_dense(value)))
    return None


def _dense(sp: Any) -> np.ndarray:
    """A SparseTensorProto as a dense array (indices linear [NNZ] or coordinates [NNZ, rank])."""
    from onnx import numpy_helper
    vals = numpy_helper.to_array(sp.values)
    idx = numpy_helper.to_array(sp.indices).astype(np.int64)
    dims = tuple(int(d) for d in sp.dims)
    out = np.zeros(dims, dtype=vals.dtype)
    if idx.ndim == 2:
        out[tuple(idx.T)] = vals
    else:
        out.reshape(-1)[idx] = vals
    return out


_BOOL_TEXT = {"true": True, "1": True, "false": False, "0": False}


def bool_attr(value: Any) -> bool:
    """A boolean attribute (OpenVINO's; ONNX writes flags as ints): a bool, 0 or 1, or its IR text
    (true/false/1/0 in any case).  Other text raises ValueError: OpenVINO's IR reader would take it
    as true, which is never what was meant.

    >>> bool_attr(False), bool_attr("TRUE"), bool_attr("0"), bool_attr(1)
    (False, True, False, True)
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and int(value) in (0, 1):
        return bool(value)
    if isinstance(value, (str, bytes)):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if text.strip().lower() in _BOOL_TEXT:
            return _BOOL_TEXT[text.strip().lower()]
    raise ValueError(f"not a boolean: {value!r}")


ATTR_TYPES = {
    "bool": bool_attr,
    "type": type_attr,
    "graph": lambda v: v,   # a subgraph (SequenceMap's body): the model check walks it as a region
    "tensor": tensor_attr,
    "sparse_tensor": tensor_attr,
    "floats": lambda v: tuple(float(x) for x in v),
    "strings": lambda v: tuple(x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in v),
}


def convert_attr(atype: str, value: Any) -> Any:
    """An attribute value of one of the types above, or None when it is not of that type."""
    conv = ATTR_TYPES.get(atype)
    if conv is None or (atype in ("floats", "strings") and isinstance(value, (str, bytes))):
        return None
    try:
        return conv(value)
    except (TypeError, ValueError, AttributeError, UsageError):
        return None
