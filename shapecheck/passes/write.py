"""Inferred types written into an onnx_ir model, in place.

Every value the check gave a type gets it (``value.type``, ``value.shape``), as ``annotate``
writes a ``ModelProto``'s ``value_info``: a dim is an ``int``, or an ``ir.SymbolicDim`` named with
its text (``batch``, ``2*seq``, ``nnz_1``, ``dims.dim_str``'s), or unnamed (``SymbolicDim(None)``)
where it is unknown.  The main graph's inputs and the initializers are left as they are (they are
what the check started from), and so is a value of another kind than a tensor (a sequence) or one
the check knows nothing about.  A model-local function's value gets what its call sites agree on
(``regions.merge``: a dim they differ on is unknown).

Known values of shape tensors (integer and boolean tensors of rank <= 1) are recorded on the value
(never on one that has a ``const_value`` already): an integer value known element by element as
the value's ``const_value``, which is where passes downstream read constants (onnx-shape-inference
does the same; it is not serialized, the node stays); any other as JSON under
``metadata_props["pkg.shapecheck.value"]`` (``[batch, seq, -1, 8]`` is ``["batch", "seq", -1, 8]``,
an unknown element ``null``), which is saved with the model.

>>> import onnx_ir as ir
>>> from shapecheck.types import parse_type
>>> v = ir.Value(name="shape")
>>> write_type(v, parse_type("int64[4] = [batch, seq, -1, 8]")), v.shape, v.metadata_props[VALUE_KEY]
(True, Shape([4]), '["batch", "seq", -1, 8]')
"""
from __future__ import annotations

import json
from functools import lru_cache, reduce
from typing import Any

import onnx_ir as ir

from ..dims import dim_str
from ..frontends.onnx_ir_model import IRGraph
from ..model.regions import merge
from ..types import ONNX_CODE_OF, TensorType

VALUE_KEY = "pkg.shapecheck.value"
_INT64 = 1 << 63
_UNKNOWN = ir.SymbolicDim(None)
_LEFT = frozenset({"graph input", "initializer"})   # sources a pass leaves as they are
_VALUED = frozenset({"int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8", "bool"})
_DTYPES = {name: ir.DataType(code) for name, code in ONNX_CODE_OF.items()}


def write_types(read: IRGraph, types: dict[str, TensorType]) -> bool:
    """Write ``types`` (the check's, by tensor name) into the values of ``read``; True when something
    changed."""
    kinds = read.graph.source_kind
    changed = False
    for name, value in read.values.items():
        t = types.get(name)
        if t is not None and kinds.get(name) not in _LEFT:
            changed |= write_type(value, t)
    for value, names in read.in_functions.items():
        found = [types[n] for n in names if n in types]
        if found:
            changed |= write_type(value, reduce(merge, found) if len(found) > 1 else found[0], record=False)
    return changed


def write_type(value: ir.Value, t: TensorType, record: bool = True) -> bool:
    """Set ``value``'s type and shape to ``t`` (and, with ``record``, its known value); True when changed."""
    old = value.type
    if old is not None and type(old) is not ir.TensorType:
        return False   # a sequence, an optional, a map: the check models tensors only
    changed = False
    if t.dtype is not None:
        dtype = _DTYPES[t.dtype]
        if old is None or old.dtype != dtype:   # a type of its own: types are mutable (value.dtype = ...)
            value.type, changed = ir.TensorType(dtype), True
    if t.shape is None:
        if t.dtype is not None and value.shape is not None:
            value.shape, changed = None, True
        return changed
    dims = tuple(d if type(d) is int and -_INT64 <= d < _INT64 else _ir_dim(d) for d in t.shape)
    have = value.shape
    if have is None or tuple(have) != dims:
        value.shape, changed = ir.Shape(dims), True
    if record and len(dims) <= 1 and t.dtype in _VALUED and value.const_value is None:
        changed |= _record_value(value, t)
    return changed


@lru_cache(maxsize=8192, typed=True)   # typed: an int past int64 is unknown, a numpy integer is its value
def _ir_dim(d: Any) -> Any:
    """A dim as the IR holds it (see the module's text)."""
    if type(d) is int:
        return _UNKNOWN   # past int64: its node's finding, never written
    text = dim_str(d)
    if text == "?":
        return _UNKNOWN
    if text.lstrip("-").isdigit():   # a numpy integer
        return int(text)
    return ir.SymbolicDim(text)


def _record_value(value: ir.Value, t: TensorType) -> bool:
    """Record the elements of a shape tensor whose value is known (see the module's text)."""
    if t.value is not None and t.dtype is not None and t.dtype != "bool" and t.value.dtype.kind in "iu":
        try:
            value.const_value = ir.Tensor(t.value, dtype=_DTYPES[t.dtype], name=value.name)
        except (TypeError, ValueError):   # an array of another element type than the value's: not a constant of it
            return False
        return True
    elements = t.elements()
    if elements is None:
        return False
    listed = [_element(e) for e in elements]
    if all(e is None for e in listed):
        return False   # nothing known beyond the shape
    text = json.dumps(listed)
    if value.metadata_props.get(VALUE_KEY) == text:
        return False
    value.metadata_props[VALUE_KEY] = text
    return True


def _element(e: Any) -> Any:
    """An element as JSON holds it: an int or a bool, a dim's text, None where unknown."""
    if type(e) in (int, bool):
        return e
    text = dim_str(e)
    return None if text == "?" else (int(text) if text.lstrip("-").isdigit() else text)


__all__ = ["write_types", "write_type", "VALUE_KEY"]
