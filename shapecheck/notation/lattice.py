"""The notation's value kinds: what a rule's closure computes with, besides ints, dims, shapes and truth.

Anything not known statically is an ``Unknown`` that says why (static: unknown rank or type;
value: a tensor's contents, known only at run time); a tensor is a ``TensorVal``.  A rule that
cannot be evaluated raises ``NeedInt`` (a symbolic dim where an integer is needed) or
``EvalError``; an environment binds names to values, some computed on first ``lookup`` (``lazy``).

>>> env = {"n": lazy(lambda env: 2 + 2)}
>>> lookup(env, "n"), UNKNOWN, NO_VALUE
(4, Unknown(static), Unknown(value))
"""
from __future__ import annotations

from typing import Any, Callable

from ..types import TensorType

Env = dict
Fn = Callable[[Env], Any]


class Unknown:
    """A value not known statically; ``reason`` is "static" or "value" (run-time contents)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unknown({self.reason})"


UNKNOWN = Unknown("static")


NO_VALUE = Unknown("value")


class UnknownShape(Unknown):
    """The shape of a tensor of unknown rank; ``owner`` names the tensor so it can be bound."""

    __slots__ = ("owner",)

    def __init__(self, owner: str | None):
        super().__init__("static")
        self.owner = owner


class UnknownRank(Unknown):
    """The rank of a tensor of unknown rank; ``owner`` names the tensor so it can be bound."""

    __slots__ = ("owner",)

    def __init__(self, owner: str | None):
        super().__init__("static")
        self.owner = owner


class UnknownDType(Unknown):
    __slots__ = ("owner",)

    def __init__(self, owner: str | None):
        super().__init__("static")
        self.owner = owner


class NeedInt(Exception):
    """A symbolic dim was used where an integer is needed (a slice bound, a range)."""

    def __init__(self, expr: Any):
        super().__init__(str(expr))
        self.expr = expr


class EvalError(Exception):
    """Evaluation is meaningless for these inputs (an index past a shape's end)."""


class TensorVal:
    """A tensor as the notation sees it: ``.shape``, ``.dtype``, and its contents if constant."""

    __slots__ = ("name", "dtype", "shape", "value", "sym", "bounds")

    def __init__(self, name: str, t: TensorType):
        self.name, self.dtype, self.shape, self.value, self.sym = name, t.dtype, t.shape, t.value, t.sym
        self.bounds = t.bounds

    def __repr__(self) -> str:
        return f"TensorVal({self.name})"


class ContainerVal:
    """A sequence, optional or map as the notation sees it: its type (``shapecheck.containers``), named.
    ``elem_type(s)``, ``len(s)``, ``s[i]`` and the ``is_*`` tests of the function library read it."""

    __slots__ = ("name", "type", "kind")

    def __init__(self, name: str, t: Any):
        self.name, self.type, self.kind = name, t, t.kind

    def __repr__(self) -> str:
        return f"ContainerVal({self.name})"


def as_val(name: str, t: Any) -> Any:
    """A type as the notation sees it: a ``TensorVal`` for a tensor, else a ``ContainerVal``."""
    return TensorVal(name, t) if isinstance(t, TensorType) else ContainerVal(name, t)


class _Lazy:
    __slots__ = ("fn",)

    def __init__(self, fn: Fn):
        self.fn = fn


def lookup(env: Env, name: str) -> Any:
    v = env[name]
    if type(v) is _Lazy:
        v = v.fn(env)
        env[name] = v
    return v


def lazy(fn: Fn) -> _Lazy:
    return _Lazy(fn)


__all__ = ["Env", "Fn", "Unknown", "UNKNOWN", "NO_VALUE", "UnknownShape", "UnknownRank", "UnknownDType", "NeedInt",
           "EvalError", "TensorVal", "ContainerVal", "as_val", "lookup", "lazy"]
