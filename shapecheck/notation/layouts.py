"""Notation functions of the layout ops: Unsqueeze, Squeeze, Flatten, Transpose, Tile (shapes),
Cast and ConstantOfShape (values), and the tensor attributes of Constant.

Axes come as an attribute (a tuple of ints, or None when absent), as an input's value, or as
an optional input that is absent (None).  Each function is exact on ints, keeps symbolic dims
where the op only moves them, and says "not known" (an ``Unknown``) where a symbolic dim
decides the result: Squeeze without axes on ``[N, 3]`` removes N only if N is 1 at run time,
so its rank is not known statically.

>>> from shapecheck.types import symbol
>>> N = symbol("N")
>>> unsqueeze_shape((N, 3), (0, -1)), squeeze_shape((1, N, 1), (0,)), flatten_shape((N, 3, 4), 1)
((1, N, 3, 1), (N, 1), (N, 12))
>>> transpose_shape((N, 3, 4), None), tile_shape((N, 3), (2, 1)), relayout(N, (1,))
((4, 3, N), (2*N, 3), (N,))
>>> cast_value((N, 5), "int32"), cast_value((N, 5), "float")
((N, 5), Unknown(value))
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any


from ..types import (
    ONNX_CODES,
    normalize_dim,
    numpy_dtype,
    tensor_type_of,
    unknown_dim,
)
from .compare import compare_dims
from .core import _prod
from .logic import (
    NO_VALUE,
    UNKNOWN,
    EvalError,
    TensorVal,
    Unknown,
    UnknownDType,
    UnknownShape,
    and_,
)
from .operators import element_grid, value_of

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy

# element types ONNX defines whose values shapecheck does not model (float8*, int4, uint4, float4e2m1, ...)
UNMODELLED_CODES = {17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz",
                    21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0"}


def _is_int(x: Any) -> bool:
    return (type(x) is int or isinstance(x, np.integer)) and not isinstance(x, (bool, np.bool_))


def _value(x: Any) -> Any:
    """An input's value (``x.value``) or an attribute's; None stays None (absent)."""
    if isinstance(x, TensorVal):
        return value_of(x)
    return x


def _int_axes(axes: Any) -> tuple | Unknown | None:
    """Axes as a tuple of ints, None when absent, or an Unknown when not known statically."""
    v = _value(axes)
    if v is None or isinstance(v, Unknown):
        return v
    if isinstance(v, np.ndarray):
        v = tuple(v.reshape(-1).tolist())
    v = v if isinstance(v, tuple) else (v,)
    if not all(_is_int(a) for a in v):
        return NO_VALUE   # a symbolic axis: known only at run time
    return tuple(int(a) for a in v)


def _normalized(axes: tuple, rank: int, repeats: bool = False) -> tuple:
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise EvalError(f"axis {a} is outside [{-rank}, {rank - 1}]")
        out.append(a + rank if a < 0 else a)
    if len(set(out)) != len(out):
        if not repeats:
            raise EvalError(f"axes {list(axes)} name an axis twice")
        out = sorted(set(out))
    return tuple(out)


def absent(x: Any) -> bool:
    """True when an optional input (or an attribute without default) is not given."""
    return x is None


def valid_axes(axes: Any, rank: Any, repeats: Any = 0) -> Any:
    """True when every axis lies in [-rank, rank-1] and (unless ``repeats``) none repeats after adding rank to negatives."""
    ax = _int_axes(axes)
    if ax is None:
        return True
    if isinstance(ax, Unknown):
        return ax
    if isinstance(rank, Unknown):
        return UNKNOWN
    try:
        _normalized(ax, int(rank), bool(repeats))
    except EvalError:
        return False
    return True


def unsqueeze_shape(shape: Any, axes: Any) -> Any:
    """Unsqueeze's output: a 1 inserted at each axis of the output (of rank ``len(shape) + len(axes)``)."""
    ax = _int_axes(axes)
    if isinstance(shape, Unknown) or ax is None or isinstance(ax, Unknown):
        return UnknownShape(None)
    rank = len(shape) + len(ax)
    where = set(_normalized(ax, rank))
    it = iter(shape)
    return tuple(1 if i in where else next(it) for i in range(rank))


def _is_one(d: Any) -> Any:
    return compare_dims(d, "==", 1)


def squeeze_shape(shape: Any, axes: Any = None) -> Any:
    """Squeeze's output: the given axes removed, or (no axes, or an empty list) every dim that is 1.

    Without axes a symbolic dim that may or may not be 1 makes the rank unknown: never a guess.
    """
    ax = _int_axes(axes)
    if isinstance(shape, Unknown) or isinstance(ax, Unknown):
        return UnknownShape(None)
    if not ax:   # absent, or empty: onnxruntime squeezes every 1 (runtime-findings)
        ones = [_is_one(d) for d in shape]
        if any(not isinstance(o, bool) for o in ones):
            return UnknownShape(None)
        return tuple(d for d, o in zip(shape, ones) if not o)
    gone = set(_normalized(ax, len(shape), True))
    if any(_is_int(shape[i]) and shape[i] != 1 for i in gone):
        raise EvalError("a squeezed dim is not 1")
    return tuple(d for i, d in enumerate(shape) if i not in gone)


def squeezable(shape: Any, axes: Any) -> Any:
    """True when every dim named by ``axes`` is 1 (a condition ``N == 1`` on a symbolic dim)."""
    ax = _int_axes(axes)
    if ax is None or ax == ():
        return True
    if isinstance(ax, Unknown):
        return ax
    if isinstance(shape, Unknown):
        return UNKNOWN
    try:
        idx = _normalized(ax, len(shape), True)
    except EvalError:
        return UNKNOWN   # the axes rule reports it
    return and_([_is_one(shape[i]) for i in idx])


def flatten_shape(shape: Any, axis: Any) -> Any:
    """Flatten's 2-D output: ``[prod(shape[:axis]), prod(shape[axis:])]`` (negative axis + rank)."""
    if isinstance(shape, Unknown) or isinstance(axis, Unknown):
        return UnknownShape(None)
    r = len(shape)
    a = int(axis) + r if axis < 0 else int(axis)
    if not 0 <= a <= r:
        raise EvalError(f"axis {axis} is outside [{-r}, {r}]")
    return (_prod(shape[:a]), _prod(shape[a:]))


def _perm(perm: Any, rank: int) -> tuple:
    return tuple(range(rank - 1, -1, -1)) if perm is None else tuple(int(p) for p in perm)


def is_permutation(perm: Any, rank: Any) -> Any:
    """True when ``perm`` (absent: the reversed axes) is a permutation of 0..rank-1."""
    if perm is None:
        return True
    if isinstance(rank, Unknown):
        return UNKNOWN
    return sorted(int(p) for p in perm) == list(range(int(rank)))


def transpose_shape(shape: Any, perm: Any) -> Any:
    """Transpose's output: ``shape[perm[i]]`` for each i; no perm reverses the dims."""
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    p = _perm(perm, len(shape))
    if sorted(p) != list(range(len(shape))):
        raise EvalError(f"perm {list(p)} is not a permutation of the {len(shape)} axes")
    return tuple(shape[i] for i in p)


def tile_shape(shape: Any, repeats: Any) -> Any:
    """Tile's output: each dim times its repeat count (``repeats`` a vector value of dims)."""
    if isinstance(shape, Unknown):
        return UnknownShape(None)
    if isinstance(repeats, Unknown):
        return tuple(unknown_dim("tiled") for _ in shape)
    reps = repeats if isinstance(repeats, tuple) else (repeats,)
    if len(reps) != len(shape):
        raise EvalError(f"{len(reps)} repeats for a tensor of rank {len(shape)}")
    return tuple(d * k if _is_int(d) and _is_int(k) else normalize_dim(sympy.sympify(d) * k)
                 for d, k in zip(shape, reps))


def relayout(v: Any, shape: Any) -> Any:
    """The same elements in row-major order under ``shape`` (Unsqueeze, Squeeze, Flatten, Identity).

    Symbolic elements are kept where the result is a scalar or a vector (a shape tensor).
    """
    if isinstance(v, Unknown) or isinstance(shape, Unknown):
        return NO_VALUE
    if not all(_is_int(d) for d in shape):
        return NO_VALUE
    if isinstance(v, np.ndarray):
        dims = tuple(int(d) for d in shape)
        return v.reshape(dims) if v.size == int(np.prod(dims, dtype=np.int64)) else NO_VALUE
    elems = v if isinstance(v, tuple) else (v,)
    if len(shape) == 0:
        return elems[0] if len(elems) == 1 else NO_VALUE
    if len(shape) == 1:
        return tuple(elems)
    if all(_is_int(e) or isinstance(e, (bool, np.bool_)) for e in elems):
        return np.array(elems).reshape(tuple(int(d) for d in shape))
    return NO_VALUE


def transpose_value(v: Any, perm: Any, shape: Any = None) -> Any:
    """Transpose of a value: a constant array by ``perm``; a symbolic value (its elements in
    row-major order) of a tensor of ``shape`` reordered likewise; a scalar or a vector as is.

    >>> from shapecheck.types import symbol
    >>> transpose_value((symbol("N"), 1, 2, symbol("M")), None, (2, 2))
    (N, 2, 1, M)
    """
    if isinstance(v, Unknown):
        return NO_VALUE
    if isinstance(v, np.ndarray):
        if perm is not None and sorted(int(p) for p in perm) != list(range(v.ndim)):
            return NO_VALUE   # C2 refutes it
        return np.transpose(v, None if perm is None else tuple(int(p) for p in perm))
    if isinstance(v, tuple) and shape is not None and not isinstance(shape, Unknown) and len(shape) >= 2:
        if not all(_is_int(d) for d in shape) or (perm is not None and
                                                   sorted(int(p) for p in perm) != list(range(len(shape)))):
            return NO_VALUE
        order = None if perm is None else tuple(int(p) for p in perm)
        return tuple(element_grid(v, shape).transpose(order).reshape(-1))
    return v


def onnx_dtype(code: Any) -> Any:
    """The element type an ONNX ``TensorProto.DataType`` code names (Cast's ``to``).

    A code of a type shapecheck does not model (float8, int4...) gives an unknown element type.
    """
    if isinstance(code, Unknown):
        return code
    if not _is_int(code):
        raise EvalError(f"an element type code is an integer, got {code!r}")
    if int(code) in ONNX_CODES:
        return ONNX_CODES[int(code)]
    if int(code) in UNMODELLED_CODES:
        return UnknownDType(UNMODELLED_CODES[int(code)])
    raise EvalError(f"{code} is no ONNX element type code")


_INTS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def cast_value(v: Any, dtype: Any) -> Any:
    """A value cast to ``dtype``: constant arrays exactly as numpy casts them, symbolic dims
    through integer types (where they stand for sizes, which fit every integer type), never
    through floats or strings."""
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
    if dtype in _INTS:
        out = tuple(int(e) if isinstance(e, (bool, np.bool_)) else e for e in elems)
        return out if isinstance(v, tuple) else out[0]
    if dtype == "bool":
        truth = tuple(e if isinstance(e, (bool, np.bool_)) else compare_dims(e, "!=", 0) for e in elems)
        out = tuple(t if isinstance(t, bool) else unknown_dim("truth") for t in truth)
        return out if isinstance(v, tuple) else out[0]
    return NO_VALUE


def full_value(value: Any, shape: Any) -> Any:
    """ConstantOfShape's value: the one element of the tensor attribute ``value`` over a concrete ``shape``."""
    fill = value.value if isinstance(value, TensorVal) else None
    if fill is None or not isinstance(shape, tuple) or not all(_is_int(d) and d >= 0 for d in shape):
        return NO_VALUE
    if int(np.prod(shape, dtype=np.int64)) > 64 or fill.size != 1:
        return NO_VALUE
    return np.full(tuple(int(d) for d in shape), fill.reshape(-1)[0], dtype=fill.dtype)


def tile_value(v: Any, repeats: Any) -> Any:
    """Tile of a value: a vector's elements repeated, a constant array by ``np.tile``, a scalar as is."""
    if isinstance(v, Unknown) or isinstance(repeats, Unknown):
        return NO_VALUE
    reps = repeats if isinstance(repeats, tuple) else (repeats,)
    if not all(_is_int(k) for k in reps):
        return NO_VALUE
    if isinstance(v, np.ndarray):
        return np.tile(v, tuple(int(k) for k in reps)) if v.ndim == len(reps) and v.ndim else NO_VALUE
    if isinstance(v, tuple):
        return v * int(reps[0]) if len(reps) == 1 else NO_VALUE
    return v if reps == () else NO_VALUE


def given(*xs: Any) -> int:
    """How many of the arguments are given (not None): Constant's exactly-one-value rule."""
    return sum(x is not None for x in xs)


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


# the functions this module lends the notation (registered by notation/compile.py)
NOTATION = (absent, valid_axes, unsqueeze_shape, squeeze_shape, squeezable, flatten_shape, is_permutation, transpose_shape, tile_shape, relayout, transpose_value, onnx_dtype, cast_value, full_value, tile_value, given, constant_tensor,)
