"""ONNX protos <-> shapecheck types: TypeProto, TensorProto and attribute values as ``TensorType``s.

Both the model reader (``onnx_model``) and the per-node inference (``onnx_forward``) convert
through here; nothing else in the package knows ONNX's protobuf types.

>>> from onnx import helper, TensorProto as T
>>> str(tensor_type_from_proto(helper.make_tensor_type_proto(T.FLOAT, ["N", 4, None]), "x"))
'float[N,4,?]'
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..errors import UsageError
from ..dims import Name, NeedsAlgebra, parse_dim, symbol, unknown_dim
from ..containers import from_proto
from ..types import ONNX_CODES, TensorType, tensor_type_of
from ..tensor_data import proto_array

MAX_CONST = 1 << 20   # constants larger than this are kept as types only


@lru_cache(maxsize=1 << 14)   # keyed by the text and the mode, all the result depends on
def dim_from_param(param: str, light: bool = False):
    """A dim_param is a name (``batch``) or, as shapecheck and torch write them, an expression
    (``2*N``, torch dynamo's ``((frames - 1)//4) + 1``).  In a light check (``light``) a name is a
    ``names.Name``, and an expression stops the light check.

    >>> dim_from_param("2*N"), dim_from_param("((frames - 1)//4) + 1"), dim_from_param("batch-size")
    (2*N, floor(frames/4 - 1/4) + 1, batch-size)
    >>> dim_from_param("Min(64, seq)"), dim_from_param("f(64, seq)")
    (Min(64, seq), f(64, seq))
    >>> type(dim_from_param("batch", light=True)).__name__
    'Name'
    """
    if not (re.fullmatch(r"[A-Za-z0-9_ +*/%(),-]+", param) and re.search(r"[+*%(]|//", param)):
        # a plain name, or one with characters that are not arithmetic ("batch-size")
        return Name(param) if light else symbol(param)
    if light:
        raise NeedsAlgebra(f"dim_param {param!r} is an expression")
    try:
        return parse_dim(param)
    except UsageError:
        return symbol(param)


MADE_UP = "unk__"   # the prefix of the dim names onnx's shape inference makes up, one per tensor


def tensor_type_from_proto(tp, tensor: str, light: bool = False, source: bool = False) -> TensorType:
    """An ONNX TypeProto -> TensorType; ``dim_param`` names become the user's symbols
    (``names.Name``s when ``light``).

    A ``unk__N`` name in a declaration (value_info, a graph output) is one onnx's inference made up for
    that tensor alone, so it is unknown; on a graph input (``source``) it is the exporter's name for a
    dim (tf2onnx names the batch ``unk__214``), which onnxruntime keeps, so it is a symbol like any other.

    >>> from onnx import helper, TensorProto as T
    >>> tp = helper.make_tensor_type_proto(T.FLOAT, ["unk__7", 3])
    >>> str(tensor_type_from_proto(tp, "x", source=True)), str(tensor_type_from_proto(tp, "x"))
    ('float[unk__7,3]', 'float[?,3]')
    """
    if not tp.HasField("tensor_type"):
        return TensorType(None, None)
    tt = tp.tensor_type
    dtype = ONNX_CODES.get(tt.elem_type) if tt.elem_type else None
    if not tt.HasField("shape"):
        return TensorType(dtype, None)
    dims = []
    for i, d in enumerate(tt.shape.dim):
        if d.HasField("dim_value") and d.dim_value >= 0:
            dims.append(int(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param and (source or not d.dim_param.startswith(MADE_UP)):
            dims.append(dim_from_param(d.dim_param, light))
        else:
            dims.append(unknown_dim(f"{tensor}.shape[{i}]"))
    return TensorType(dtype, tuple(dims))


def value_type_from_proto(tp, tensor: str, light: bool = False, source: bool = False) -> Any:
    """An ONNX TypeProto of any kind -> a ``TensorType`` or a sequence, optional or map type
    (``shapecheck.containers``); a tensor inside one names its unknown dims where it stands.

    >>> from onnx import helper, TensorProto as T
    >>> str(value_type_from_proto(helper.make_sequence_type_proto(helper.make_tensor_type_proto(T.FLOAT, ["N", 4])), "s"))
    'seq(float[?,4])'
    """
    if tp.HasField("tensor_type"):
        return tensor_type_from_proto(tp, tensor, light, source)
    return from_proto(tp, lambda inner: _element_type(inner, f"{tensor}.elem", light))


def _element_type(tp, tensor: str, light: bool) -> TensorType:
    """A sequence's (an optional's, a map's) tensor type: a named dim there is each element's own
    (onnx's node tests declare seq(float[N]) and feed elements of 6, 9 and 4), so it is unknown."""
    t = tensor_type_from_proto(tp, tensor, False)
    if t.shape is None:
        return t
    return TensorType(t.dtype, tuple(d if type(d) is int else unknown_dim(f"{tensor}.shape[{i}]")
                                     for i, d in enumerate(t.shape)))


def attr_value(attr) -> Any:
    """An AttributeProto's value: strings decoded, lists as tuples, tensors (and other messages) as
    ``detached`` copies."""
    kind = attr.type
    if kind == 2:        # INT
        return attr.i
    if kind == 7:        # INTS
        return tuple(attr.ints)
    if kind == 1:        # FLOAT
        return attr.f
    if kind == 3:        # STRING
        return attr.s.decode("utf-8", "replace")
    if kind == 6:        # FLOATS
        return tuple(attr.floats)
    if kind == 4:        # TENSOR
        return detached(attr.t)
    from onnx import helper
    v = helper.get_attribute_value(attr)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, list):
        return tuple(x.decode("utf-8", "replace") if isinstance(x, bytes) else _own(x) for x in v)
    return _own(v)


def detached(message: Any) -> Any:
    """A copy of a protobuf message that keeps nothing else alive.  protobuf (upb) keeps a parsed
    model's whole arena while any message in it is referenced: a node's tensor attribute kept
    by the check would keep a 60k-node model's 30 MB (``ModelGraph.drop_model``)."""
    copy = type(message)()
    copy.CopyFrom(message)
    return copy


def _own(v: Any) -> Any:
    return detached(v) if hasattr(v, "CopyFrom") else v


def const_type(tensor_proto, name: str) -> TensorType:
    dtype = ONNX_CODES.get(tensor_proto.data_type)
    shape = tuple(tensor_proto.dims)
    external = tensor_proto.data_location == 1  # TensorProto.EXTERNAL
    if external or math.prod(shape) > MAX_CONST:
        return TensorType(dtype, shape)
    try:
        value = proto_array(tensor_proto, shape)
    except Exception:  # unreadable raw data: keep the type
        return TensorType(dtype, shape)
    return TensorType(dtype, shape, value)


_CONSTANT_FIELDS = {"value_int": "i", "value_float": "f", "value_ints": "ints", "value_floats": "floats"}


def constant_node_value(node, name: str) -> TensorType | None:
    """The type (and value) a Constant node produces (its attribute read from the protobuf fields,
    without importing onnx)."""
    for a in node.attribute:
        if a.name == "value":
            return const_type(a.t, name)
        field = _CONSTANT_FIELDS.get(a.name)
        if field is not None:
            v = getattr(a, field)
            arr = np.array(list(v) if a.name.endswith("s") else v, dtype=np.int64 if "int" in a.name else np.float32)
            return tensor_type_of(arr)
    return None
