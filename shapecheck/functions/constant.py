"""Constant functions: the element type Cast names (``onnx_dtype``), and the values of Cast,
ConstantOfShape and Constant (its tensor attributes).

A constant array is cast exactly as numpy casts it; a symbolic dim passes through integer types
(where it stands for a size, which fits every integer type), never through floats or strings.

>>> from shapecheck.dims import symbol
>>> N = symbol("N")
>>> cast_value((N, 5), "int32"), cast_value((N, 5), "float16"), onnx_dtype(7)
((N, 5), Unknown(value), 'int64')
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..notation import NO_VALUE, EvalError, TensorVal, Unknown, compare_dims
from ..types import ONNX_CODES, numpy_dtype, tensor_type_of
from ..dims import LIGHT, is_unknown, unknown_dim
from .layout import _is_int

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy


def onnx_dtype(code: Any) -> Any:
    """The element type an ONNX ``TensorProto.DataType`` code names (Cast's ``to``).

    >>> onnx_dtype(17), onnx_dtype(22)
    ('float8e4m3fn', 'int4')
    """
    if isinstance(code, Unknown):
        return code
    if not _is_int(code):
        raise EvalError(f"an element type code is an integer, got {code!r}")
    if int(code) in ONNX_CODES:
        return ONNX_CODES[int(code)]
    raise EvalError(f"{code} is no ONNX element type code")


def onnx_dtype_name(name: Any) -> Any:
    """The element type a ``TensorProto.DataType`` name gives (Cast-1's ``to``: ``"FLOAT"``, ``"INT64"``).

    >>> onnx_dtype_name("FLOAT"), onnx_dtype_name("INT32"), onnx_dtype_name("FLOAT16")
    ('float', 'int32', 'float16')
    """
    if isinstance(name, Unknown):
        return name
    if not isinstance(name, str):
        raise EvalError(f"an element type name is a string, got {name!r}")
    found = [n for n in ONNX_CODES.values() if n.upper() == name.upper()] if name.isupper() else []
    if not found:
        raise EvalError(f"{name!r} is no TensorProto.DataType name")
    return found[0]


_BITS = {"bool": 8, "string": None, "complex64": 64, "complex128": 128, "int4": 4, "uint4": 4, "float4e2m1": 4,
         "int2": 2, "uint2": 2, "float6e2m3": 6, "float6e3m2": 6}


def bit_width(dtype: Any) -> Any:
    """The bits one element of an element type takes (BitCast's rule); a string has none.

    >>> bit_width("float"), bit_width("int4"), bit_width("float8e5m2"), bit_width("complex64")
    (32, 4, 8, 64)
    """
    if isinstance(dtype, Unknown):
        return dtype
    if dtype in _BITS:
        if _BITS[dtype] is None:
            raise EvalError("a string has no bit width")
        return _BITS[dtype]
    return numpy_dtype(dtype).itemsize * 8


_INTS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


# the floating types that hold a size exactly as long as it stays below 2**mantissa (float32: 2**24):
# a size cast to one keeps its symbolic value, under the check's stated assumption (``FLOAT_EXACT``)
FLOAT_EXACT = {"float": 24, "double": 53}


def cast_value(v: Any, dtype: Any) -> Any:
    """A value cast to ``dtype``: constant arrays exactly as numpy casts them, symbolic dims
    through integer types (where they stand for sizes, which fit every integer type) and through
    float and double (exact while a size stays below 2**24, 2**53: the check states that assumption
    for each model that relies on it), never through the narrower floats or strings.

    >>> from shapecheck.dims import symbol
    >>> W = symbol("W")
    >>> cast_value((W, 3), "float"), cast_value((W, 3), "float16")
    ((W, 3), Unknown(value))
    """
    if isinstance(v, Unknown) or not isinstance(dtype, str):
        return NO_VALUE
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "OUSc" or dtype == "string":
            return NO_VALUE   # string conversions are formatted by the runtime: left to the kernel
        with np.errstate(all="ignore"):
            return v.astype(numpy_dtype(dtype))
    elems = v if isinstance(v, tuple) else (v,)
    concrete = all(_is_int(e) or isinstance(e, (bool, np.bool_)) for e in elems)
    if concrete:
        if dtype == "string":
            return NO_VALUE
        arr = np.array(elems, dtype=np.bool_ if all(isinstance(e, (bool, np.bool_)) for e in elems) else np.int64)
        out = arr.astype(numpy_dtype(dtype))
        return out if isinstance(v, tuple) else out.reshape(())
    if dtype in _INTS:   # truncation toward zero: a float value that is not provably an integer is no size
        out = tuple(int(e) if isinstance(e, (bool, np.bool_)) else e if _integer_valued(e) else unknown_dim("cast")
                    for e in elems)
        return out if isinstance(v, tuple) else out[0]
    if dtype == "bool":
        truth = tuple(e if isinstance(e, (bool, np.bool_)) else compare_dims(e, "!=", 0) for e in elems)
        out = tuple(t if isinstance(t, bool) else unknown_dim("truth") for t in truth)
        return out if isinstance(v, tuple) else out[0]
    if dtype in FLOAT_EXACT:   # integer-valued: every op that keeps a float value keeps it an integer
        out = tuple(int(e) if isinstance(e, (bool, np.bool_)) else e for e in elems)
        return out if isinstance(v, tuple) else out[0]
    return NO_VALUE


def _integer_valued(e: Any) -> bool:
    """Whether a symbolic element is an integer for every value of its symbols (dims are integers)."""
    # a light check's dims are sums and products of names with integer coefficients (dims/light.py)
    return type(e) in LIGHT or is_unknown(e) or bool(getattr(sympy.sympify(e), "is_integer", False))


def full_value(value: Any, shape: Any) -> Any:
    """ConstantOfShape's value: the one element of the tensor attribute ``value`` over a concrete ``shape``."""
    fill = value.value if isinstance(value, TensorVal) else None
    if fill is None or not isinstance(shape, tuple) or not all(_is_int(d) and d >= 0 for d in shape):
        return NO_VALUE
    if int(np.prod(shape, dtype=np.int64)) > 64 or fill.size != 1:
        return NO_VALUE
    return np.full(tuple(int(d) for d in shape), fill.reshape(-1)[0], dtype=fill.dtype)


def constant_tensor(value: Any, sparse_value: Any = None, value_float: Any = None, value_floats: Any = None,
                    value_int: Any = None, value_ints: Any = None, value_string: Any = None,
                    value_strings: Any = None) -> Any:
    """Constant's output as a tensor: the first value attribute given (C1 says there is one), typed as
    ONNX does: value_float(s) float, value_int(s) int64, value_string(s) string, 1-D for the lists."""
    forms = [(value, None), (sparse_value, None), (value_float, np.float32), (value_floats, np.float32),
             (value_int, np.int64), (value_ints, np.int64), (value_string, object), (value_strings, object)]
    for v, dt in forms:
        if v is None:
            continue
        if isinstance(v, TensorVal):
            return v
        arr = np.array(v, dtype=dt)
        if dt is object:
            arr = np.array(list(v) if isinstance(v, tuple) else v, dtype=object)
        return TensorVal("value", tensor_type_of(arr))
    raise EvalError("Constant needs one value attribute")


NOTATION = (onnx_dtype, onnx_dtype_name, bit_width, cast_value, full_value, constant_tensor)
