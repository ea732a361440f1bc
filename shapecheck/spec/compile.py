"""Expression trees -> closures that evaluate over concrete or symbolic values.

One evaluator serves the solver and the executor.  Values are:

* dims: ``int`` (the fast path, never wrapped) or sympy expressions;
* shapes: tuples of dims, or ``UnknownShape`` when a rank is unknown;
* element types: ``str``; type sets: ``frozenset``; attribute values: ``int``/``str``;
* tensors: ``TensorVal`` (type + optional constant value); index values: ``numpy.ndarray``;
* truth: ``True``/``False``, or ``Cond`` -- true under stated relations, or undecidable here.

Anything not known evaluates to an ``Unknown`` that says why (static: unknown rank or
type; value: a tensor's contents, checkable only at run time).

>>> from shapecheck.spec.notation import parse
>>> f = compile_expr(parse("a + 1 <= b"))
>>> f({"a": 2, "b": 3})
True
"""
from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any, Callable

import numpy as np
import sympy

from ..types import Dim, expr_str, normalize_dim, unknown_dim
from .logic import (NO_VALUE, UNKNOWN, Cond, Env, EvalError, NeedInt, Rel, TensorVal, Unknown, UnknownDType,
                    UnknownRank, UnknownShape, and_, as_cond, lazy, lookup, not_, or_)
from . import attention, conv, layouts, more_ops, shapes, tensor_ops, values
from .notation import Node

Fn = Callable[[Env], Any]
__all__ = ["NO_VALUE", "UNKNOWN", "Cond", "EvalError", "NeedInt", "Rel", "TensorVal", "Unknown", "UnknownDType",
           "UnknownRank", "UnknownShape", "and_", "as_cond", "lazy", "lookup", "not_", "or_", "compile_expr",
           "compare", "compare_dims", "make_rel", "FUNCTIONS", "SPECIAL_FORMS", "fresh_shape"]


# ---------------------------------------------------------------- comparisons

_PYOP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
         ">": operator.gt, ">=": operator.ge}


def _is_dim(x) -> bool:
    return type(x) is int or isinstance(x, (sympy.Basic, np.integer))


def compare_dims(a, op: str, b):
    """Compare two dims: ints directly, symbols by sympy's assumptions, else a Cond."""
    if type(a) is int and type(b) is int:
        return _PYOP[op](a, b)
    return _compare_symbolic(a, op, b)


@lru_cache(maxsize=1 << 16)
def _compare_symbolic(a, op: str, b):
    # a large model asks the same few questions (N >= 1, M <= N) thousands of times
    d = sympy.expand(sympy.sympify(a) - sympy.sympify(b))
    if d.is_Integer:
        return _PYOP[op](int(d), 0)
    if op == "==":
        known = True if d.is_zero else (False if d.is_zero is False else None)
    elif op == "!=":
        known = False if d.is_zero else (True if d.is_zero is False else None)
    elif op == "<":
        known = True if d.is_negative else (False if d.is_nonnegative else None)
    elif op == "<=":
        known = True if d.is_nonpositive else (False if d.is_positive else None)
    elif op == ">":
        known = True if d.is_positive else (False if d.is_nonpositive else None)
    else:
        known = True if d.is_nonnegative else (False if d.is_negative else None)
    if known is not None:
        return known
    return Cond((make_rel(op, a, b),))


_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def make_rel(op: str, a, b) -> Rel:
    """A relation in a readable form: one symbol alone on the left when that is possible.

    >>> from shapecheck.types import symbol
    >>> str(make_rel("<=", 3, symbol("N") - 1)), str(make_rel("==", 12 * symbol("N"), 12 * symbol("M")))
    ('N >= 4', 'N == M')
    """
    a, b = sympy.sympify(a), sympy.sympify(b)
    d = sympy.expand(a - b)
    syms = d.free_symbols
    if len(syms) == 1:
        s = next(iter(syms))
        coeff = d.coeff(s)
        rest = sympy.expand(d - coeff * s)
        if coeff in (1, -1) and rest.is_Integer:
            # coeff*s + rest  op  0
            value = normalize_dim(-rest * coeff)
            return Rel(op if coeff == 1 else _FLIP[op], s, value)
    if d.is_Add and not any(isinstance(t, (sympy.Min, sympy.Max)) for t in d.atoms(sympy.Min, sympy.Max)):
        # 12*N - 12*M op 0 -> N op M: the common factor out, positive terms left, negative right
        content, prim = d.as_content_primitive()
        if content > 0 and prim.is_Add:
            pos = [t for t in prim.args if t.could_extract_minus_sign() is False]
            neg = [-t for t in prim.args if t.could_extract_minus_sign()]
            if pos and neg and len(pos) + len(neg) == len(prim.args):
                lhs, rhs = sympy.Add(*pos), sympy.Add(*neg)
                if lhs.is_Integer:
                    return Rel(_FLIP[op], normalize_dim(rhs), normalize_dim(lhs))
                return Rel(op, normalize_dim(lhs), normalize_dim(rhs))
    if not a.free_symbols and b.free_symbols:
        return Rel(_FLIP[op], normalize_dim(b), normalize_dim(a))
    return Rel(op, normalize_dim(a), normalize_dim(b))


def compare(a, op: str, b):
    if type(a) is int and type(b) is int:
        return _PYOP[op](a, b)
    if type(a) is TensorVal:
        a = _values(a)
    if type(b) is TensorVal:
        b = _values(b)
    if op in ("in", "not in"):
        return _member(a, b, op == "not in")
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        if isinstance(a, Unknown) and isinstance(b, Unknown):
            return a if a.reason == "static" else b
        return a if isinstance(a, Unknown) else b
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _compare_array(a, op, b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        if op not in ("==", "!="):
            raise EvalError("shapes can only be compared with == or !=")
        if len(a) != len(b):
            return op == "!="
        # an element not known here (a dim of a tensor of unknown rank) leaves the comparison open
        eq = and_(x if isinstance(x, Unknown) else y if isinstance(y, Unknown) else compare_dims(x, "==", y)
                  for x, y in zip(a, b))
        return eq if op == "==" else not_(eq)
    if _is_dim(a) and _is_dim(b):
        return compare_dims(int(a) if isinstance(a, np.integer) else a, op,
                            int(b) if isinstance(b, np.integer) else b)
    if isinstance(a, (float, np.floating)) and isinstance(b, (int, float, np.number)) or \
            isinstance(b, (float, np.floating)) and isinstance(a, (int, float, np.number)):
        return bool(_PYOP[op](float(a), float(b)))   # a float value (a Resize scale) against a number
    if op in ("==", "!="):
        return _PYOP[op](a, b)
    raise EvalError(f"cannot compare {_show(a)} {op} {_show(b)}")


def _member(a, s, negate: bool):
    if isinstance(a, Unknown):
        return a
    if isinstance(s, Unknown):
        return s
    if isinstance(a, np.ndarray):
        raise EvalError(f"'in' tests one value, got an array of shape {list(a.shape)}")
    if isinstance(s, np.ndarray):
        s = tuple(s.reshape(-1).tolist())
    if isinstance(s, (frozenset, set, list, tuple, range)):
        if isinstance(s, tuple) and any(isinstance(x, sympy.Basic) for x in s):
            # a symbolic element may equal a: a in (N, 4) is a condition, not False
            return or_([compare(a, "==", x) for x in s]) if not negate else and_([compare(a, "!=", x) for x in s])
        r = a in s
        return (not r) if negate else r
    raise EvalError(f"'in' needs a set on its right, got {_show(s)}")


def _compare_array(a, op: str, b):
    """Compare every element of an index tensor against a dim (possibly symbolic)."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.all(_PYOP[op](a, b)))
    arr, other, flipped = (a, b, False) if isinstance(a, np.ndarray) else (b, a, True)
    if arr.dtype.kind in "OUSc":  # strings and complex numbers have no order: a rule error, not a crash
        raise EvalError(f"cannot compare values of element type {arr.dtype} with a dim")
    if arr.size == 0:
        return True
    if flipped:
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
    if type(other) is int or isinstance(other, np.integer):
        return bool(np.all(_PYOP[op](arr, other)))
    lo, hi = int(arr.min()), int(arr.max())
    if op in ("<", "<="):
        return compare_dims(hi, op, other)
    if op in (">", ">="):
        return compare_dims(lo, op, other)
    if op == "==":
        return and_([compare_dims(lo, "==", other), compare_dims(hi, "==", other)])
    raise EvalError("'!=' between a tensor and a dim is not supported")


# ---------------------------------------------------------------- arithmetic

def arith(op: str, a, b):
    if type(a) is int and type(b) is int:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if b == 0:
            raise EvalError(f"division by zero in {a} {op} {b}")
        return a // b if op == "//" else a % b
    for x in (a, b):
        if isinstance(x, Unknown):
            return x
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return {"+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide, "%": np.mod}[op](a, b)
    if not (_is_dim(a) and _is_dim(b)):
        raise EvalError(f"cannot compute {_show(a)} {op} {_show(b)}")
    if op == "+":
        return normalize_dim(sympy.sympify(a) + b)
    if op == "-":
        return normalize_dim(sympy.sympify(a) - b)
    if op == "*":
        return normalize_dim(sympy.sympify(a) * b)
    # floor division and modulo of symbols need integers (ranks, axis values) in practice
    raise NeedInt(a if not isinstance(a, int) else b)


def need_int(x) -> int:
    if type(x) is int:
        return x
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, sympy.Basic):
        if x.is_Integer:
            return int(x)
        raise NeedInt(x)
    raise EvalError(f"expected an integer, got {_show(x)}")


# ---------------------------------------------------------------- subscripts

def subscript(obj, subs: list):
    if isinstance(obj, Unknown):
        if isinstance(obj, UnknownShape) and len(subs) == 1 and isinstance(subs[0], slice):
            return UnknownShape(None)
        return Unknown(obj.reason)
    if isinstance(obj, TensorVal):
        if obj.value is None:
            if obj.sym is None or len(subs) != 1:
                return NO_VALUE
            obj = obj.sym     # a symbolic vector value: subscripted like a shape
        else:
            obj = obj.value
    if isinstance(obj, tuple):
        if len(subs) != 1:
            raise EvalError("a shape takes one subscript")
        s = subs[0]
        if isinstance(s, Unknown):
            return s if not isinstance(s, slice) else UnknownShape(None)
        if isinstance(s, slice):
            lo = None if s.start is None else need_int(s.start)
            hi = None if s.stop is None else need_int(s.stop)
            return obj[lo:hi]
        i = need_int(s)
        if not -len(obj) <= i < len(obj):
            raise EvalError(f"index {i} is outside a shape of rank {len(obj)}")
        return obj[i]
    if isinstance(obj, np.ndarray):
        idx = []
        for s in subs:
            if isinstance(s, Unknown):
                return s
            if s is Ellipsis or isinstance(s, slice):
                idx.append(s)
            else:
                idx.append(need_int(s))
        try:
            return obj[tuple(idx)]
        except IndexError as exc:
            raise EvalError(str(exc)) from None
    raise EvalError(f"cannot subscript {_show(obj)}")


# ---------------------------------------------------------------- functions

def _rank(t):
    if isinstance(t, TensorVal):
        return UnknownRank(t.name) if t.shape is None else len(t.shape)
    if isinstance(t, tuple):
        return len(t)
    if isinstance(t, Unknown):
        return UNKNOWN
    raise EvalError(f"rank() takes a tensor, got {_show(t)}")


def _dtype(t):
    if isinstance(t, TensorVal):
        return UnknownDType(t.name) if t.dtype is None else t.dtype
    raise EvalError(f"dtype() takes a tensor, got {_show(t)}")


def _item(t):
    """The single value of a scalar or one-element tensor (OpenVINO's axis input)."""
    if isinstance(t, TensorVal):
        if t.value is None:
            return NO_VALUE
        t = t.value
    if isinstance(t, np.ndarray):
        if t.size != 1:
            raise EvalError(f"expected one value, got {t.size}")
        return int(t.reshape(-1)[0])
    return t


def _len(x):
    if isinstance(x, Unknown):
        return UNKNOWN
    if not isinstance(x, (tuple, list, frozenset, range, np.ndarray, str)):
        raise EvalError(f"len() takes a shape, a value or a list of tensors, got {_show(x)}")
    return len(x)


def _range(*args):
    for a in args:
        if isinstance(a, Unknown):
            return a
    return range(*(need_int(a) for a in args))


def _minmax(fn):
    def f(*args):
        if len(args) == 1 and isinstance(args[0], TensorVal):
            v = args[0].value
            return NO_VALUE if v is None else (fn(v) if v.size else UNKNOWN)
        if len(args) == 1 and isinstance(args[0], np.ndarray):
            return fn(args[0]) if args[0].size else UNKNOWN
        if all(type(a) is int for a in args):
            return (max if fn is np.max else min)(args)
        for a in args:
            if isinstance(a, Unknown):
                return a
        return normalize_dim((sympy.Max if fn is np.max else sympy.Min)(*args))
    return f


def _prod(shape):
    if isinstance(shape, Unknown):
        return shape
    out = 1
    for d in shape:
        out = arith("*", out, d)
    return out


def value_of(t):
    """``x.value``: a scalar's value as one dim, a vector's as a tuple of dims, else the array.

    Integer tensors of rank <= 1 carry symbolic values (``(N, 12)``); other constants
    their arrays; anything else is known only at run time.
    """
    if isinstance(t, Unknown):
        return NO_VALUE if t.reason == "value" else t
    if not isinstance(t, TensorVal):
        raise EvalError(f".value needs a tensor, got {_show(t)}")
    if t.sym is not None:
        return t.sym[0] if t.shape == () else t.sym
    v = t.value
    if v is None:
        return NO_VALUE
    if v.ndim <= 1 and v.dtype.kind in "iub" and v.size <= 64:
        elems = tuple(bool(x) for x in v.reshape(-1).tolist()) if v.dtype.kind == "b" else tuple(int(x) for x in v.reshape(-1).tolist())
        return elems[0] if v.ndim == 0 else elems
    return v


def _values(t):
    if isinstance(t, TensorVal):
        return NO_VALUE if t.value is None else t.value
    return t


def _unique_rows(t, shape):
    """True when no two index tuples (rows over the last axis) address the same slice."""
    v = _values(t)
    if isinstance(v, Unknown):
        return v
    if isinstance(shape, Unknown) or v.ndim == 0 or v.dtype.kind in "OUSc":  # non-integer indices: C-rule's job
        return UNKNOWN
    k = v.shape[-1]
    dims = shape[:k]
    if len(dims) < k:
        return UNKNOWN
    n = int(np.prod(v.shape[:-1], dtype=np.int64))
    if k == 0:  # every row is the empty tuple, which addresses the whole tensor
        return n <= 1
    rows = v.reshape(n, k).astype(np.int64, copy=False)
    if all(type(d) is int for d in dims):
        sizes = np.maximum(np.array(dims, dtype=np.int64), 1)
        if n and rows.min() < 0:
            rows = rows % sizes
        # one linear offset per row: a 1-D unique is much faster than unique(axis=0)
        strides = np.cumprod(np.concatenate([sizes[1:], [1]])[::-1])[::-1]
        lin = rows[:, 0] if k == 1 else rows @ strides
        return _all_distinct(lin, int(np.prod(sizes, dtype=np.int64)))
    if rows.size and rows.min() < 0:
        return UNKNOWN  # -1 and s-1 may be the same row; that depends on the symbolic dim
    return len(np.unique(rows, axis=0)) == n


def _all_distinct(lin: np.ndarray, bound: int) -> bool:
    """No value of ``lin`` (all in [0, bound)) repeats: a count when bound is small, else a sort.

    np.unique hashes: ~30 ms for 200k values, where bincount takes 0.5 ms and sort 3 ms.
    """
    if lin.size <= 1:
        return True
    if bound <= 8 * lin.size:
        return int(np.bincount(lin, minlength=bound).max()) <= 1
    s = np.sort(lin)
    return not bool(np.any(s[1:] == s[:-1]))


def _unique_along(t, axis, size):
    """True when no two entries of an index tensor land on the same element (ScatterElements)."""
    v = _values(t)
    for x in (v, axis, size):
        if isinstance(x, Unknown):
            return x
    if type(axis) is not int or v.ndim == 0 or size == 0 or v.dtype.kind in "OUSc":
        return UNKNOWN
    if not -v.ndim <= axis < v.ndim:  # indices of another rank than data: C2 refutes it, W1 says nothing
        return UNKNOWN
    idx = v.astype(np.int64)
    if type(size) is int:
        idx = idx % size
    elif idx.size and idx.min() < 0:
        return UNKNOWN  # -1 and s-1 may be the same element; that depends on the symbolic size
    norm = np.sort(idx, axis=axis)
    return not bool(np.any(np.diff(norm, axis=axis) == 0))


def _slice_region_shape(shape, start, stop, step, axes):
    """The shape of ``data[start:stop:step]`` on ``axes`` (Slice-8 clamping), from constant inputs.

    A symbolic dim is known only for the whole-axis slice (start 0, stop >= 2**31-1, step 1).
    """
    vals = [_values(x) for x in (start, stop, step)] + [_values(axes) if axes is not None else None]
    for x in (shape, *vals):
        if isinstance(x, Unknown):
            return x if not isinstance(x, UnknownShape) else UNKNOWN
    starts, stops, steps = (np.asarray(v).reshape(-1).tolist() for v in vals[:3])
    ax = list(range(len(starts))) if vals[3] is None else np.asarray(vals[3]).reshape(-1).tolist()
    if not len(starts) == len(stops) == len(steps) == len(ax) or 0 in steps:
        raise EvalError("start, stop, step and axes must have one value per sliced axis and step must not be 0")
    from ..kernels.slice_scatter import slice_range
    out = list(shape)
    for a, lo, hi, st in zip(ax, starts, stops, steps):
        if not -len(out) <= a < len(out):
            raise EvalError(f"axis {a} is outside a shape of rank {len(out)}")
        d = out[a]
        if type(d) is int:
            out[a] = len(slice_range(d, lo, hi, st))
        elif not (lo == 0 and hi >= 2**31 - 1 and st == 1):
            return UNKNOWN
    return tuple(out)


FUNCTIONS: dict[str, Callable] = {
    "slice_region_shape": _slice_region_shape,   # SliceScatter: start/stop/step/axes as tensors
    "rank": _rank,
    "dtype": _dtype,
    "item": _item,
    "len": _len,
    "range": _range,
    "min": _minmax(np.min),
    "max": _minmax(np.max),
    "prod": _prod,
    "unique_rows": _unique_rows,
    "unique_along": _unique_along,
    # the notation's libraries: each module lists its functions in NOTATION
    **{f.__name__: f for lib in (values, shapes, layouts, tensor_ops, conv, attention, more_ops) for f in lib.NOTATION},
}

# Functions handled by the compiler itself (they take a comprehension or short-circuit).
SPECIAL_FORMS = {"all", "any"}


def _show(x) -> str:
    if isinstance(x, TensorVal):
        return x.name
    if isinstance(x, tuple):
        return "[" + ", ".join(expr_str(d) for d in x) + "]"
    return repr(x)


# ---------------------------------------------------------------- compiler

def compile_expr(node: Node) -> Fn:
    """Compile a tree into a closure ``env -> value``; names resolve through ``lookup``."""
    k = node.kind
    if k == "num" or k == "str" or k == "bool":
        v = node.value
        return lambda env: v
    if k == "name":
        name = node.value
        return lambda env: lookup(env, name)
    if k == "attr":
        obj = compile_expr(node.children[0])
        field_ = node.value
        if field_ == "shape":
            def shape_of(env):
                t = obj(env)
                if isinstance(t, TensorVal):
                    return UnknownShape(t.name) if t.shape is None else t.shape
                if isinstance(t, Unknown):
                    return UnknownShape(None)
                raise EvalError(f"{_show(t)} has no shape")
            return shape_of
        if field_ == "value":
            return lambda env: value_of(obj(env))
        if field_ == "dtype":
            return lambda env: _dtype(obj(env))
        if field_ == "rank":
            return lambda env: _rank(obj(env))
        raise EvalError(f"unknown field .{field_}")
    if k == "index":
        obj = compile_expr(node.children[0])
        subs = [_compile_sub(s) for s in node.children[1:]]
        return lambda env: subscript(obj(env), [s(env) for s in subs])
    if k == "unary":
        x = compile_expr(node.children[0])
        return lambda env: arith("-", 0, x(env))
    if k == "binop":
        a, b = (compile_expr(c) for c in node.children)
        op = node.value
        return lambda env: arith(op, a(env), b(env))
    if k == "concat":
        parts = [compile_expr(c) for c in node.children]

        def concat(env):
            out: tuple = ()
            for p in parts:
                v = p(env)
                if isinstance(v, Unknown):
                    return UnknownShape(None) if v.reason == "static" else v
                if not isinstance(v, tuple):
                    raise EvalError(f"'++' joins shapes, got {_show(v)}")
                out += v
            return out
        return concat
    if k == "compare":
        ops = node.value
        xs = [compile_expr(c) for c in node.children]
        if len(ops) == 1:
            op = ops[0]
            a, b = xs
            return lambda env: compare(a(env), op, b(env))

        def chain(env):
            vals = [x(env) for x in xs]
            return and_(compare(vals[i], op, vals[i + 1]) for i, op in enumerate(ops))
        return chain
    if k in ("and", "or"):
        xs = [compile_expr(c) for c in node.children]
        stop, combine = (False, and_) if k == "and" else (True, or_)

        def connective(env):  # short-circuits like Python's and/or
            out = []
            for x in xs:
                v = x(env)
                if v is stop:
                    return stop
                out.append(v)
            return combine(out)
        return connective
    if k == "not":
        x = compile_expr(node.children[0])
        return lambda env: not_(x(env))
    if k == "ifelse":
        a, c, b = (compile_expr(n) for n in node.children)

        def ifelse(env):
            cv = c(env)
            if cv is True or cv is False or isinstance(cv, (bool, np.bool_)):
                return a(env) if cv else b(env)
            return UNKNOWN if as_cond(cv).opaque else NO_VALUE
        return ifelse
    if k in ("list", "set"):
        xs = [compile_expr(c) for c in node.children]
        if k == "set":
            return lambda env: frozenset(x(env) for x in xs)
        return lambda env: tuple(x(env) for x in xs)
    if k == "call":
        return _compile_call(node)
    raise EvalError(f"cannot compile {k}")


def _compile_sub(n: Node) -> Fn:
    if n.kind == "ellipsis":
        return lambda env: Ellipsis
    if n.kind == "slice":
        lo = compile_expr(n.children[0]) if n.children[0] is not None else (lambda env: None)
        hi = compile_expr(n.children[1]) if n.children[1] is not None else (lambda env: None)

        def sl(env):
            a, b = lo(env), hi(env)
            if isinstance(a, Unknown) or isinstance(b, Unknown):
                return UnknownShape(None)
            return slice(a, b)
        return sl
    return compile_expr(n)


def _compile_call(node: Node) -> Fn:
    name = node.value
    if name in SPECIAL_FORMS:
        combine = and_ if name == "all" else or_
        if len(node.children) == 1 and node.children[0].kind == "comp":
            stop = False if name == "all" else True
            gen = _compile_comprehension(node.children[0], stop=stop)

            def quant(env):
                seq = gen(env)
                if seq is _STOPPED:
                    return stop                # all() met a False, any() a True: short-circuit
                return seq if isinstance(seq, Unknown) else combine(list(seq))
            return quant
        xs = [compile_expr(c) for c in node.children]
        return lambda env: combine([x(env) for x in xs])
    fn = _guarded(name, FUNCTIONS[name])
    if len(node.children) == 1 and node.children[0].kind == "comp":
        seq = _compile_comprehension(node.children[0])
        return lambda env: fn(seq(env))
    args = [compile_expr(c) for c in node.children]
    if len(args) == 1:
        a0 = args[0]
        return lambda env: fn(a0(env))
    return lambda env: fn(*(a(env) for a in args))


def _guarded(name: str, fn: Callable) -> Callable:
    """A library function whose failure on meaningless arguments (numpy's ValueError on a negative
    repeat, an index past the end) is an ``EvalError`` of the rule, never a crash of the solver."""
    def call(*args):
        try:
            return fn(*args)
        except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError, KeyError) as exc:
            raise EvalError(f"{name}(): {exc}") from None
    return call


_STOPPED = object()   # a quantifier's comprehension met its short-circuit value


def _compile_comprehension(comp: Node, stop: Any = None) -> Fn:
    """``f(x.value for x in inputs if ...)``: the generated values as a tuple, for any function.

    For ``all``/``any`` (``stop`` = False/True) an element equal to ``stop`` ends the loop
    (``_STOPPED``), and a filter that cannot be decided adds an opaque condition; for other
    functions an undecidable filter makes the whole value unknown.
    """
    var = comp.value
    elt = compile_expr(comp.children[0])
    it = compile_expr(comp.children[1])
    cond = compile_expr(comp.children[2]) if comp.children[2] is not None else None

    def gen(env):
        seq = it(env)
        if isinstance(seq, Unknown):
            return seq
        out = []
        for v in seq:
            local = dict(env)
            local[var] = v
            if cond is not None:
                c = cond(local)
                if not isinstance(c, (bool, np.bool_)):
                    if stop is None:
                        return UNKNOWN
                    out.append(Cond((), (), True))
                    continue
                if not c:
                    continue
            r = elt(local)
            if stop is not None and r is stop:
                return _STOPPED
            out.append(r)
        return tuple(out)
    return gen


def fresh_shape(owner: str, rank: int) -> tuple[Dim, ...]:
    return tuple(unknown_dim(f"{owner}.shape[{i}]") for i in range(rank))
