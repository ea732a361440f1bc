"""Element types and tensor types (``TensorType``), with ONNX's text syntax.

Dimensions are ``shapecheck.dims``'s; import their names from there.

>>> t = parse_type("float[N,4]")
>>> t.dtype, t.shape[1], str(t)
('float', 4, 'float[N,4]')
>>> str(parse_type("int64[2,1] = [[0],[3]]"))
'int64[2,1] = [[0], [3]]'
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from .deferred import numpy as np

from .errors import UsageError

from .dims import Dim, dim_str, is_symbolic, normalize_dim, parse_dim, short_text

__all__ = ["ELEMENT_TYPES", "ONNX_CODES",
           "ONNX_CODE_OF", "canonical_dtype", "numpy_dtype", "dtype_of_array", "TensorType", "MAX_SYM_ELEMENTS",
           "valued", "sym_str", "value_str", "parse_type", "tensor_type_of", "as_tensor_type"]


# ONNX element type names, in the order ONNX's docs list them.
ELEMENT_TYPES: tuple[str, ...] = (
    "bfloat16", "bool", "complex128", "complex64", "double", "float", "float16", "float4e2m1",
    "float6e2m3", "float6e3m2", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0",
    "int16", "int2", "int32", "int4", "int64", "int8", "string", "uint16", "uint2", "uint32", "uint4", "uint64", "uint8",
)

# the narrow types numpy lacks, as ml_dtypes names them (ONNX name -> ml_dtypes name)
_ML_DTYPES = {"bfloat16": "bfloat16", "float8e4m3fn": "float8_e4m3fn", "float8e4m3fnuz": "float8_e4m3fnuz",
              "float8e5m2": "float8_e5m2", "float8e5m2fnuz": "float8_e5m2fnuz", "float8e8m0": "float8_e8m0fnu",
              "float4e2m1": "float4_e2m1fn", "float6e2m3": "float6_e2m3fn", "float6e3m2": "float6_e3m2fn",
              "int4": "int4", "uint4": "uint4", "int2": "int2", "uint2": "uint2"}
_ML_NAMES = {v: k for k, v in _ML_DTYPES.items()}


_ALIASES = {
    "float32": "float", "f32": "float", "fp32": "float",
    "float64": "double", "f64": "double", "fp64": "double",
    "half": "float16", "f16": "float16", "fp16": "float16",
    "bf16": "bfloat16",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "u1": "bool", "boolean": "bool", "str": "string",
}


# ONNX TensorProto.DataType codes (stable, part of the protobuf schema).
ONNX_CODES: dict[int, str] = {
    1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
    8: "string", 9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64",
    14: "complex64", 15: "complex128", 16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz",
    19: "float8e5m2", 20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0",
    25: "uint2", 26: "int2", 27: "float6e2m3", 28: "float6e3m2",
}


ONNX_CODE_OF: dict[str, int] = {v: k for k, v in ONNX_CODES.items()}


def canonical_dtype(name: str) -> str:
    """Canonical ONNX name of an element type, accepting numpy and OpenVINO spellings.

    >>> canonical_dtype("float32"), canonical_dtype("FP16"), canonical_dtype("int64")
    ('float', 'float16', 'int64')
    """
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in ELEMENT_TYPES:
        raise UsageError(f"unknown element type {name!r}; expected one of {', '.join(ELEMENT_TYPES)} "
                         "(numpy names such as float32 are accepted too)")
    return key


def numpy_dtype(elem: str) -> np.dtype:
    """The numpy dtype that holds an ONNX element type (bfloat16, the float8, float6 and float4
    types, int4, uint4, int2 and uint2 from ml_dtypes)."""
    if elem in _ML_DTYPES:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, _ML_DTYPES[elem]))
    if elem == "string":
        return np.dtype(object)
    return np.dtype({"float": "float32", "double": "float64"}.get(elem, elem))


def dtype_of_array(arr: np.ndarray) -> str:
    """ONNX element type name of a numpy array."""
    return _dtype_name(arr.dtype)


@lru_cache(maxsize=64)   # keyed by the numpy dtype: its name depends on nothing else
def _dtype_name(kind: np.dtype) -> str:
    # numpy builds a dtype's name in Python each time it is asked; a model asks for a few dtypes
    if kind.kind in "OUS":
        return "string"
    if kind.name in _ML_NAMES:
        return _ML_NAMES[kind.name]
    return canonical_dtype(kind.name)


# ---------------------------------------------------------------- tensor types

@dataclass(eq=False)
class TensorType:
    """An element type, a shape (None = unknown rank) and, where known, a value.

    ``value`` is a numpy array when every element is known.  An integer tensor of rank
    <= 1 (a shape tensor, a length, an index) may instead carry ``sym``: its elements in
    row-major order as dims (``(N, 12)``), unknown elements as unknown dims, booleans as
    ``True``/``False``.  Use ``valued`` to build either from a tuple of elements.

    ``bounds`` is ``(lo, hi)``, dims, when the elements are not known but lie between two dims:
    ``Range(0, seq)`` gives ``[0, seq - 1]``, and an index into a table of 64 rows is then in
    range where ``seq <= 64``.  An empty tensor has no elements; its bounds claim nothing.
    """

    dtype: str | None
    shape: tuple[Dim, ...] | None
    value: np.ndarray | None = field(default=None, repr=False)
    sym: tuple | None = field(default=None, repr=False)
    bounds: tuple | None = field(default=None, repr=False)

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @property
    def is_static(self) -> bool:
        return self.shape is not None and all(type(d) is int for d in self.shape)

    def shape_str(self) -> str:
        if self.shape is None:
            return ""
        return "[" + ",".join(dim_str(d) for d in self.shape) + "]"

    def __str__(self) -> str:
        # reports print the same type many times; types are never mutated once built
        text = self.__dict__.get("_text")
        if text is None:
            text = (self.dtype or "?") + self.shape_str()
            if self.value is not None:
                text += " = " + value_str(self.value)
            elif self.sym is not None:
                text += " = " + sym_str(self.sym, self.shape)
            self.__dict__["_text"] = text
        return text

    def signature(self) -> tuple:
        """A hashable key for caching solver results (kept: a weight's bytes are read once)."""
        sig = self.__dict__.get("_sig")
        if sig is None:
            val = None
            if self.value is not None:
                val = (self.value.dtype.str, self.value.shape, self.value.tobytes())
            sig = self.__dict__["_sig"] = (self.dtype, self.shape, val, self.sym, self.bounds)
        return sig

    def elements(self) -> tuple | None:
        """The value as a flat tuple of dims (ints, symbols, bools) when it is known and small."""
        if self.sym is not None:
            return self.sym
        if self.value is not None and self.value.size <= MAX_SYM_ELEMENTS and self.value.dtype.kind in "iub":
            return tuple(bool(x) if self.value.dtype.kind == "b" else int(x) for x in self.value.reshape(-1))
        return None


MAX_SYM_ELEMENTS = 64   # symbolic values are tracked for shape-like tensors, not for data


def valued(dtype: str | None, shape: tuple | None, elems: tuple | None) -> TensorType:
    """A type whose value is ``elems`` (flat, row-major): an array when every element is concrete.

    >>> from shapecheck.dims import symbol
    >>> str(valued("int64", (2,), (symbol("N"), 12)))
    'int64[2] = [N, 12]'
    >>> valued("int64", (2,), (3, 12)).value.tolist()
    [3, 12]
    """
    if elems is None or shape is None or dtype is None or any(type(d) is not int for d in shape):
        return TensorType(dtype, shape)
    n = 1
    for d in shape:
        n *= d
    if len(elems) != n or n > MAX_SYM_ELEMENTS:
        return TensorType(dtype, shape)
    if not all(isinstance(e, (bool, int, np.bool_, np.integer)) or is_symbolic(e) for e in elems):
        return TensorType(dtype, shape)   # a float or complex element: only integer contents are tracked
    elems = tuple(normalize_dim(e) if not isinstance(e, (bool, np.bool_)) else bool(e) for e in elems)
    if all(type(e) in (int, bool) for e in elems):
        try:
            return TensorType(dtype, shape, np.array(elems, dtype=numpy_dtype(dtype)).reshape(shape))
        except (OverflowError, ValueError, TypeError):
            return TensorType(dtype, shape)
    return TensorType(dtype, shape, None, elems)


def sym_str(elems: tuple, shape: tuple | None) -> str:
    """Text of a symbolic value: ``[N, 12]``, ``N`` for a scalar; unknown elements as ``?``."""
    parts = [("true" if e else "false") if isinstance(e, bool) else dim_str(e) for e in elems]
    if shape == ():
        return parts[0]
    return "[" + ", ".join(parts) + "]"


def value_str(v: np.ndarray, limit: int = 12) -> str:
    flat = np.asarray(v).ravel()
    if flat.size > limit:
        return f"<{flat.size} values, min {flat.min()} max {flat.max()}>" if flat.dtype.kind in "iuf" else f"<{flat.size} values>"
    return json.dumps(np.asarray(v).tolist(), default=_complex_json).replace('"', "'")


def _complex_json(z: Any) -> Any:
    """JSON has no complex numbers: a real one prints as its real part (parses back), others as text."""
    if isinstance(z, complex):
        return z.real if z.imag == 0 else str(z)
    return str(z)   # any other element (an ml_dtypes float, an object) prints as its text


_TYPE_RE = re.compile(r"^\s*([A-Za-z?][A-Za-z0-9_]*|\?)\s*(?:\[(.*?)\])?\s*(?:=\s*(.+))?\s*$", re.S)


def parse_type(text: str, name: str = "", light: bool = False) -> TensorType:
    """Parse ``float[N,4]``, ``int64[2,1] = [[0],[3]]``, ``float`` (unknown rank), ``?[N]``.

    ``name`` labels unknown dims (``updates.shape[0]``) so conditions can name them; ``light``
    gives named dims as ``names.Name``s (``dims.parse_dim``).
    """
    m = _TYPE_RE.match(text)
    if not m:
        raise UsageError(f"bad tensor type {short_text(text)}{_for(name)}: expected ELEMTYPE[DIM,...] such as float[N,4], "
                         "optionally followed by '= VALUE' for a constant")
    elem, dims_text, value_text = m.group(1), m.group(2), m.group(3)
    try:
        dtype = None if elem == "?" else canonical_dtype(elem)
    except UsageError as exc:
        raise UsageError(f"bad tensor type {short_text(text)}{_for(name)}: {exc}") from None
    shape: tuple[Dim, ...] | None = None
    if dims_text is not None:
        parts = [p for p in dims_text.split(",")] if dims_text.strip() else []
        if any(not p.strip() for p in parts):
            raise UsageError(f"bad tensor type {short_text(text)}{_for(name)}: an empty dimension; write ? for an unknown dim")
        try:
            shape = tuple(parse_dim(p, f"{name}.shape[{i}]" if name else "?", light) for i, p in enumerate(parts))
        except UsageError as exc:  # say which type (and input) the bad dim is in
            raise UsageError(f"bad tensor type {short_text(text)}{_for(name)}: {exc}") from None
        for d in shape:
            if type(d) is int and d < 0:
                raise UsageError(f"bad tensor type {short_text(text)}{_for(name)}: dims cannot be negative")
    value = None
    if value_text is not None:
        try:
            raw = json.loads(value_text.replace("'", '"'))
        except json.JSONDecodeError as exc:
            sym = _symbolic_value(value_text, dtype, shape)
            if sym is not None:
                return sym
            raise UsageError(f"bad constant value in {short_text(text)}{_for(name)}: {exc.msg}; "
                             "write it as a JSON list such as [[0],[3]], or dims such as [N, 12]") from None
        except (ValueError, RecursionError) as exc:   # past 4300 digits; lists nested too deeply
            why = "lists nest too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
            raise UsageError(f"bad constant value in {short_text(text)}{_for(name)}: {why}") from None
        if dtype is None:
            raise UsageError(f"constant {short_text(text)}{_for(name)} needs an element type")
        try:
            value = np.array(raw, dtype=numpy_dtype(dtype))
        except (ValueError, TypeError, OverflowError) as exc:
            raise UsageError(f"bad constant value in {short_text(text)}{_for(name)}: {exc}") from None
        if shape is None:
            shape = tuple(value.shape)
        elif all(type(d) is int for d in shape) and value.size == 0 and 0 in shape:
            value = value.reshape(shape)   # no nested list spells [1,0,1]: an empty value fits any empty shape
        elif all(type(d) is int for d in shape) and tuple(shape) != value.shape:
            raise UsageError(f"constant {short_text(text)}{_for(name)}: the value has shape {list(value.shape)}, "
                             f"not {[dim_str(d) for d in shape]}")
        else:
            shape = tuple(value.shape)
    return TensorType(dtype, shape, value)


def _symbolic_value(text: str, dtype: str | None, shape: tuple | None) -> TensorType | None:
    """``[N, 12]`` or ``N``: the value of an integer tensor of rank <= 1 given as dims."""
    body = text.strip()
    vector = body.startswith("[") and body.endswith("]")
    if vector:
        body = body[1:-1]
    if dtype is None or dtype not in ("int64", "int32") or "[" in body:
        return None
    try:
        elems = tuple(parse_dim(p) for p in body.split(",")) if body.strip() else ()
    except UsageError:
        return None
    want = (len(elems),) if vector else ()
    if (not vector and len(elems) != 1) or (shape is not None and tuple(shape) != want):
        return None
    return valued(dtype, want, elems)


def _for(name: str) -> str:
    return f" for {name}" if name else ""


def tensor_type_of(arr: np.ndarray) -> TensorType:
    """The (static) type of a concrete array, carrying its value."""
    arr = np.asarray(arr)
    return TensorType(dtype_of_array(arr), tuple(int(d) for d in arr.shape), arr)


def as_tensor_type(t: Any, name: str = "") -> TensorType:
    """Accept a TensorType, a type string, or a numpy array."""
    if isinstance(t, TensorType):
        return t
    if isinstance(t, str):
        return parse_type(t, name)
    if isinstance(t, (np.ndarray, np.generic)):
        return tensor_type_of(np.asarray(t))
    raise UsageError(f"input {name!r}: expected a type string such as 'float[N,4]' or a numpy array, "
                     f"got {type(t).__name__}")
