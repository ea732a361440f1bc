"""The core functions: ``rank``, ``dtype``, ``item``, ``len``, ``range``, ``min``, ``max``, ``prod``,
the ones that make or test unknowns: ``fresh``, ``fresh_dims``, ``unknown``, ``otherwise``, ``is_int``,
``present``, ``absent``, ``given``, ``total``; and the helpers the family modules share to read a
value (``_value``, ``_elems``).

A function's notation name is its Python name without the leading underscore (``_len`` is
``len()``), so these never shadow Python's builtins here.  ``rank`` and ``dtype`` are also the
fields ``x.rank`` and ``x.dtype``: the notation defines them (``notation/operators.py``) and this
module lends them to rules as functions.

>>> _prod((2, 3, 4)), _len((1, 2)), _max(3, 5)
(24, 2, 5)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..notation import NO_VALUE, UNKNOWN, ContainerVal, EvalError, TensorVal, Unknown, UnknownShape, value_of, arith
from ..notation.operators import _dtype, _rank, int_like, need_int, show
from ..dims import LIGHT, runtime_dim, normalize_dim, unknown_dim, is_symbolic

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy


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
    """The length of a shape, a value, a list of tensors (a variadic input), a string, or a sequence
    (known only at run time where the sequence's type does not say it)."""
    if isinstance(x, Unknown):
        return UNKNOWN
    if isinstance(x, ContainerVal):
        n = getattr(x.type, "length", None)
        if x.kind != "sequence":
            raise EvalError(f"len() takes a sequence, got {x.kind} {x.name}")
        return NO_VALUE if n is None else n
    if not isinstance(x, (tuple, list, frozenset, range, np.ndarray, str)):
        raise EvalError(f"len() takes a shape, a value or a list of tensors, got {show(x)}")
    return len(x)


def _range(*args):
    """``range(stop)``, ``range(start, stop[, step])`` over integers, as Python's: ``d in range(rank(data))``."""
    for a in args:
        if isinstance(a, Unknown):
            return a
    return range(*(need_int(a) for a in args))


def _minmax(kind: str, name: str):
    def f(*args):
        if len(args) == 1 and isinstance(args[0], TensorVal):
            v = args[0].value
            return NO_VALUE if v is None else (getattr(np, kind)(v) if v.size else UNKNOWN)
        if len(args) == 1 and isinstance(args[0], np.ndarray):
            return getattr(np, kind)(args[0]) if args[0].size else UNKNOWN
        if len(args) == 1 and isinstance(args[0], tuple):      # a list attribute: max(ngram_indexes)
            if not args[0]:
                return UNKNOWN
            args = args[0]
        if all(type(a) is int for a in args):
            return (max if kind == "max" else min)(args)
        for a in args:
            if isinstance(a, Unknown):
                return a
        return normalize_dim((sympy.Max if kind == "max" else sympy.Min)(*args))
    f.__name__ = name
    f.__doc__ = f"The {kind}imum of dims (sympy's {kind.title()} of symbols), of one list's, or of one tensor's values."
    return f


_min = _minmax("min", "_min")


_max = _minmax("max", "_max")


def _prod(shape):
    """The product of the dims of a shape: ``prod(data.shape)`` is its number of elements.

    >>> from shapecheck.dims import symbol
    >>> _prod((2, symbol("N"), 3, symbol("M"))), _prod((2, 0, symbol("N"))), _prod(())
    (6*M*N, 0, 1)
    """
    if isinstance(shape, Unknown):
        return shape
    # the integer dims first, then the symbolic ones in one sympy product (built one factor at
    # a time, a product costs one sympy flatten per factor)
    ints, syms = 1, []
    for d in shape:
        if type(d) is int:
            ints *= d
        else:
            syms.append(d)
    if not syms:
        return ints
    if len(syms) == 1 or not all(is_symbolic(d) for d in syms) or any(type(d) in LIGHT for d in syms):
        out = ints
        for d in syms:
            out = arith("*", out, d)
        return out
    return arith("*", ints, sympy.Mul(*syms))


def fresh_dims(n: Any, label: str = "dim") -> Any:
    """``n`` fresh unknown dims: a shape whose rank is known but whose dims are not."""
    if isinstance(n, Unknown) or not int_like(n):
        return UnknownShape(None)
    return tuple(unknown_dim(str(label)) for _ in range(int(n)))


def is_int(x: Any) -> bool:
    """True for a concrete integer dim or value, False for a symbolic one."""
    return int_like(x) and not isinstance(x, bool)


def otherwise(x: Any, fallback: Any) -> Any:
    """``x``, or ``fallback`` where ``x`` is not known statically (a value known only at run time)."""
    return fallback if isinstance(x, Unknown) else x


def total(xs: Any) -> Any:
    """The sum of dims: ``total(x.shape[a] for x in inputs)``."""
    if isinstance(xs, Unknown):
        return xs
    out: Any = 0
    for x in xs:
        if isinstance(x, Unknown):
            return UNKNOWN
        out = out + x if int_like(out) and int_like(x) else arith("+", out, x)
    return out


def unknown() -> Any:
    """A value known only at run time (an output value rule with nothing to say)."""
    return NO_VALUE


def fresh(label: str, upper: Any = None) -> Any:
    """A size known only at run time (NonZero's count, Unique's length), at most ``upper``.

    Each node's output gets its own symbol, named after ``label`` (``nnz_1``); the model
    report lists it with its bounds.  It is never equal to any other dim.

    >>> n = fresh("nnz", 12)
    >>> n.name, n.upper, n == fresh("nnz", 12)
    ('nnz', 12, False)
    """
    if isinstance(upper, Unknown):
        upper = None
    return runtime_dim(str(label), upper)


def present(x: Any) -> bool:
    """True when an optional input is given (an absent one is ``None`` in the rules' environment)."""
    return x is not None


def absent(x: Any) -> bool:
    """True when an optional input (or an attribute without default) is not given."""
    return x is None


def given(*xs: Any) -> int:
    """How many of the arguments are given (not None): Constant's exactly-one-value rule."""
    return sum(x is not None for x in xs)


def _value(x: Any) -> Any:
    """An input's value (``x.value``) or an attribute's; None stays None (absent)."""
    if isinstance(x, TensorVal):
        return value_of(x)
    return x


def _is_int(x: Any) -> bool:
    return type(x) is int or isinstance(x, np.integer)


def _fresh(label: str) -> sympy.Dummy:
    return unknown_dim(label)


def _elems(v: Any) -> tuple | None:
    """A value as a flat tuple, or None when it is not known."""
    if isinstance(v, Unknown):
        return None
    if isinstance(v, tuple):
        return v
    if isinstance(v, np.ndarray):
        return tuple(v.reshape(-1).tolist()) if v.size <= 64 else None
    return (v,)


NOTATION = (_rank, _dtype, _item, _len, _range, _min, _max, _prod, fresh_dims, is_int, otherwise, total, unknown, fresh,
            present, absent, given)
