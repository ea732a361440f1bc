"""A TensorProto's values as a numpy array, read from its protobuf fields without importing onnx.

The common element types are read directly: raw bytes (little-endian, as ONNX stores them) or
their typed field (``float_data``, ``int64_data``...).  The rest (strings, packed 4-bit types,
segments, big-endian hosts) go to onnx's ``numpy_helper``, which is imported only then.  Both
frontends (a model's initializers and Constant nodes) and the attribute converters of the
registry (a ConstantOfShape ``value``) read tensors here, so a CLI check of an export never pays
for onnx's import.

>>> from onnx import numpy_helper
>>> import numpy as np
>>> tp = numpy_helper.from_array(np.arange(6, dtype=np.int64).reshape(2, 3))
>>> read_directly(tp), proto_array(tp).tolist()
(True, [[0, 1, 2], [3, 4, 5]])
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from .deferred import numpy as np

# element types whose raw bytes are one numpy dtype (little-endian, as ONNX stores them)
_RAW_DTYPES = {1: "<f4", 2: "u1", 3: "i1", 4: "<u2", 5: "<i2", 6: "<i4", 7: "<i8", 9: "?", 10: "<f2",
               11: "<f8", 12: "<u4", 13: "<u8"}
_TYPED_FIELDS = {1: ("float_data", "float32"), 6: ("int32_data", "int32"), 7: ("int64_data", "int64"),
                 11: ("double_data", "float64")}


def holds_integers(v: np.ndarray, limit: int = 4096) -> bool:
    """Whether every element of an array is an integer: an integer or bool type, or a float holding
    integers (a size counted in float), read only where the float is small (at most ``limit`` elements:
    a scalar or a shape, never a weight).

    >>> import numpy as np
    >>> holds_integers(np.array([1.0, 4.0])), holds_integers(np.array([0.5])), holds_integers(np.array([np.inf]))
    (True, False, False)
    """
    if v.dtype.kind in "iub":
        return True
    return v.dtype.kind == "f" and v.size <= limit and bool(np.all(np.isfinite(v))) and bool(np.all(v == np.floor(v)))


def read_directly(tp: Any) -> bool:
    """Whether ``proto_array`` reads this TensorProto's values without onnx (the common element
    types, in raw bytes or their typed field)."""
    code = tp.data_type
    return sys.byteorder == "little" and code in _RAW_DTYPES and not tp.HasField("segment") and \
        (tp.HasField("raw_data") or code in _TYPED_FIELDS)


def proto_array(tp: Any, shape: tuple | None = None) -> np.ndarray:
    """A TensorProto's values (``shape``: its dims, when the caller has read them): the common
    element types read directly, the rest by onnx."""
    if shape is None:
        shape = tuple(tp.dims)
    if read_directly(tp):
        if tp.HasField("raw_data"):
            return np.frombuffer(tp.raw_data, dtype=_RAW_DTYPES[tp.data_type]).reshape(shape)
        field, dtype = _TYPED_FIELDS[tp.data_type]
        return np.array(getattr(tp, field), dtype=dtype).reshape(shape)
    from onnx import numpy_helper
    return numpy_helper.to_array(tp)


__all__ = ["proto_array", "read_directly"]
