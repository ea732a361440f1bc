"""Comparisons of the notation's values other than two dims: shapes (tuples of dims), index
arrays against dims, floats (a Resize scale) against dims, membership in sets.  Two dims go to
``compare.compare_dims``.

>>> from shapecheck.dims import symbol
>>> compare((symbol("N"), 4), "==", (symbol("N"), 4)), compare(2, "in", {1, 2})
(True, True)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..dims import is_symbolic, is_unknown
from ..dims.light_order import FLIP
from .compare import compare_dims
from .relations import PYOP
from .lattice import NO_VALUE, EvalError, TensorVal, Unknown
from .logic import and_, not_, or_
from .operators import is_dim, show, values

__all__ = ["compare"]


def compare(a, op: str, b):
    if type(a) is int and type(b) is int:
        return PYOP[op](a, b)
    if type(a) is TensorVal:
        if a.bounds is not None and a.value is None and a.sym is None and op in _ORDER:
            return _compare_bounds(a, op, b)
        if a.value is None and a.sym is not None and op in _ORDER:
            return _compare_elements(a.sym, op, b)
        a = values(a)
    if type(b) is TensorVal:
        if b.bounds is not None and b.value is None and b.sym is None and op in _ORDER:
            return _compare_bounds(b, FLIP[op], a)
        if b.value is None and b.sym is not None and op in _ORDER:
            return _compare_elements(b.sym, FLIP[op], a)
        b = values(b)
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
    if is_dim(a) and is_dim(b):
        return compare_dims(int(a) if isinstance(a, np.integer) else a, op,
                            int(b) if isinstance(b, np.integer) else b)
    if isinstance(a, (float, np.floating)) and isinstance(b, (int, float, np.number)) or \
            isinstance(b, (float, np.floating)) and isinstance(a, (int, float, np.number)):
        return bool(PYOP[op](float(a), float(b)))   # a float value (a Resize scale) against a number
    if isinstance(a, (float, np.floating)) and is_symbolic(b):
        return _float_vs_dim(float(a), op, b)
    if isinstance(b, (float, np.floating)) and is_symbolic(a):
        return _float_vs_dim(float(b), FLIP[op], a)
    if op in ("==", "!="):
        return PYOP[op](a, b)
    raise EvalError(f"cannot compare {show(a)} {op} {show(b)}")


_ORDER = frozenset(("<", "<=", ">", ">="))


def _compare_bounds(t: TensorVal, op: str, other):
    """Every element of a tensor known by its bounds ``(lo, hi, exact)`` against a dim: its largest
    for ``<``/``<=``, its smallest for ``>``/``>=`` (positions from a Range against a table's length).
    Exact bounds are attained by a non-empty tensor, so the comparison is a condition (an empty
    tensor meets any); loose ones only prove it, and otherwise leave it to the runtime.

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.types import TensorType
    >>> s = symbol("seq")
    >>> pos = TensorVal("pos", TensorType("int64", (s,), bounds=(0, s - 1, True)))
    >>> [str(r) for r in _compare_bounds(pos, "<=", 63).rels], _compare_bounds(pos, ">=", -64)
    (['seq <= 64'], True)
    >>> _compare_bounds(TensorVal("p", TensorType("int64", (s,), bounds=(0, s - 1, False))), "<=", 63)
    Unknown(value)
    """
    if isinstance(other, Unknown) or not is_dim(other):
        return NO_VALUE
    lo, hi, exact = t.bounds
    side = hi if op in ("<", "<=") else lo
    got = compare_dims(side, op, int(other) if isinstance(other, np.integer) else other)
    if got is True:
        return True
    if not exact or t.shape is None:
        return NO_VALUE
    empty = [compare_dims(d, "==", 0) for d in t.shape]
    if any(e is True for e in empty):
        return True
    empty = [e for e in empty if e is not False]
    return or_([got, *empty]) if empty else got


def _compare_elements(elems: tuple, op: str, other):
    """Every element of a tensor known by its symbolic elements (an index computed from a shape,
    ``Shape(x)[0] - 1``) against a dim: each comparison decided or a condition over the dims; left to
    the runtime where an element or ``other`` is not known here.

    >>> from shapecheck.dims import symbol
    >>> n = symbol("N")
    >>> _compare_elements((n - 1,), "<=", n - 1), [str(r) for r in _compare_elements((n - 1,), ">=", -n).rels]
    (True, ['2*N >= 1'])
    """
    if isinstance(other, Unknown) or not is_dim(other) or any(isinstance(x, Unknown) or not is_dim(x) for x in elems):
        return NO_VALUE
    if any(is_unknown(s) for x in (*elems, other) if is_symbolic(x) for s in x.free_symbols):
        return NO_VALUE   # an element or a bound of sizes known nowhere: the runtime checks it
    o = int(other) if isinstance(other, np.integer) else other
    return and_([compare_dims(int(x) if isinstance(x, np.integer) else x, op, o) for x in elems])


def _float_vs_dim(x: float, op: str, d):
    """``x op d`` for a float value against a symbolic dim (an integer): the same question asked of
    an integer, so that it is decided or stated as a condition (never an error, never refuted).

    >>> from shapecheck.dims import symbol
    >>> n = symbol("N")
    >>> _float_vs_dim(0.0, "<", n).texts(), _float_vs_dim(2.5, "==", n), _float_vs_dim(-0.5, "<", n)
    (['N > 0'], False, True)
    """
    if math.isnan(x):
        return op == "!="
    if math.isinf(x):
        return PYOP[op](x, 0)        # beyond every dim
    if x.is_integer():
        return compare_dims(int(x), op, d)
    if op in ("==", "!="):
        return op == "!="            # a dim is an integer
    # x is not whole: x < d and x <= d hold when floor(x) < d; x > d and x >= d when floor(x) >= d
    return compare_dims(math.floor(x), "<" if op in ("<", "<=") else ">=", d)


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
        if (isinstance(s, tuple) and any(is_symbolic(x) for x in s)) or \
                (is_symbolic(a) and all(type(x) is int for x in s)):
            # a symbolic element may equal a: a in (N, 4) is a condition, not False; so may a symbolic a
            # (K in {1, 2} holds where K == 1 or K == 2)
            return or_([compare(a, "==", x) for x in s]) if not negate else and_([compare(a, "!=", x) for x in s])
        r = a in s
        return (not r) if negate else r
    raise EvalError(f"'in' needs a set on its right, got {show(s)}")


def _compare_array(a, op: str, b):
    """Compare every element of an index tensor against a dim (possibly symbolic)."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.all(PYOP[op](a, b)))
    arr, other, flipped = (a, b, False) if isinstance(a, np.ndarray) else (b, a, True)
    if arr.dtype.kind in "OUSc":  # strings and complex numbers have no order: a rule error, not a crash
        raise EvalError(f"cannot compare values of element type {arr.dtype} with a dim")
    if arr.size == 0:
        return True
    if flipped:
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
    if type(other) is int or isinstance(other, np.integer):
        return bool(np.all(PYOP[op](arr, other)))
    lo, hi = int(arr.min()), int(arr.max())
    if op in ("<", "<="):
        return compare_dims(hi, op, other)
    if op in (">", ">="):
        return compare_dims(lo, op, other)
    if op == "==":
        return and_([compare_dims(lo, "==", other), compare_dims(hi, "==", other)])
    raise EvalError("'!=' between a tensor and a dim is not supported")
