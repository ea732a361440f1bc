"""Dimensions: plain ints, symbols, unknowns; ONNX's text syntax for them (``N``, ``2*M + 1``, ``?``).

The package's rooms: ``core`` (``normalize_dim`` and the ``is_*`` predicates, which need no sympy),
``rounding`` (floors and ceilings of dims as sympy builds them, without its assumption queries),
``light`` (``Name``, ``Poly`` and ``NeedsAlgebra``: the named dims of a light check and their sums and
products, without sympy), ``light_order`` (what a light check decides of their order, ``Min`` and
``Max``), ``light_text`` (a ``Poly`` printed as sympy prints it),
``broadcast`` (which of two symbolic dims their broadcast is, where one is in every pair that
broadcasts), ``runtime`` (``RuntimeDim``: a size known only at run time; importing it imports sympy).  This
module is the face: dims are made, parsed and printed here, and consumers import every name
of the package from ``shapecheck.dims``.

A dimension is a plain ``int`` when it is known, a sympy expression over non-negative
integer symbols when it is symbolic (``N``, ``2*M``), and a sympy ``Dummy`` when it is
unknown (``?``).  Plain integers are never wrapped, so a query whose dims are all concrete
never touches sympy.

>>> parse_dim("2*N + 1"), dim_str(unknown_dim("x")), normalize_dim(symbol("N") - symbol("N") + 3)
(2*N + 1, '?', 3)
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .core import Dim, has_unknown, is_runtime, is_symbolic, is_unknown, normalize_dim, undefined
from .light import LIGHT, Name, NeedsAlgebra, Poly
from .rounding import ceiling_of, floor_div, floor_of

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np, sympy

__all__ = ["Dim", "symbol", "unknown_dim", "runtime_dim", "is_runtime", "is_symbolic", "is_unknown", "has_unknown", "undefined", "dim_str", "expr_str", "parse_dim",
           "normalize_dim", "MAX_DIM_NESTING", "MAX_DIM_TOKENS", "INT64_MAX", "rebuild", "short_text", "Name", "Poly", "LIGHT",
           "NeedsAlgebra"]

@lru_cache(maxsize=None)   # keyed by the name: a name is one symbol per process, by design
def symbol(name: str) -> sympy.Symbol:
    """The user-visible dim symbol ``name`` (cached, so ``N`` is one object per process)."""
    return sympy.Symbol(name, integer=True, nonnegative=True)


def unknown_dim(label: str) -> sympy.Dummy:
    """A fresh unknown dim; ``label`` says where it stands (``updates.shape[0]``)."""
    return sympy.Dummy(label, integer=True, nonnegative=True)


def runtime_dim(name: str, upper: Any = None) -> Any:
    """A size known only at run time (NonZero's count, a Loop's trip count): a ``RuntimeDim``."""
    from .runtime import RuntimeDim
    return RuntimeDim(name, upper)


def rebuild(e: Any, mapping: dict) -> Any:
    """``e.xreplace(mapping)`` for a renaming of symbols, without re-evaluating ``Min``/``Max``:
    their arguments are a set, so the renamed one equals the evaluated one, at a fraction of
    sympy's cost (``_find_localzeros``).  A floor or ceiling is rebuilt by ``rounding``, which
    gives sympy's expression without its assumption queries; everything else as ``xreplace``
    would.

    >>> n, m = symbol("N"), symbol("M")
    >>> rebuild(sympy.Min(n, 64) + 1, {n: m}), rebuild(sympy.floor(n / 2 + 1), {n: m})
    (Min(64, M) + 1, floor(M/2) + 1)
    """
    if not is_symbolic(e):
        return e
    if type(e) is Poly:
        return e.xreplace(mapping)
    if e.is_Symbol:
        return mapping.get(e, e)
    if not e.args:
        return e
    args = [rebuild(a, mapping) for a in e.args]
    if isinstance(e, (sympy.Min, sympy.Max)):
        return type(e)(*args, evaluate=False)
    if isinstance(e, (sympy.floor, sympy.ceiling)):
        return (floor_of if isinstance(e, sympy.floor) else ceiling_of)(args[0])
    return e.func(*args)


def dim_str(d: Dim, unknown_as: str = "?") -> str:
    """Text of a dim as ONNX's text format writes it.

    >>> dim_str(4), dim_str(2 * symbol("N")), dim_str(unknown_dim("x"))
    ('4', '2*N', '?')
    """
    if type(d) is int:
        return str(d)
    if isinstance(d, np.integer):
        return str(int(d))
    if not hasattr(d, "is_Symbol"):   # not a dim (a float or complex value element): its text, never an error
        return str(d)
    if type(d) is Poly:
        return str(d).replace(" ", "")
    return _dim_text(d, unknown_as)


@lru_cache(maxsize=1 << 14)   # keyed by the dim (an unknown by its identity) and the text of an unknown
def _dim_text(d: Any, unknown_as: str) -> str:
    if is_unknown(d):
        return d.name if is_runtime(d) else unknown_as
    if d.is_Symbol:
        return d.name
    if has_unknown(d):
        if all(is_runtime(s) for s in d.free_symbols if is_unknown(s)):
            return expr_str(d).replace(" ", "")
        return unknown_as
    return sympy.sstr(d).replace(" ", "")


def expr_str(e: Any) -> str:
    """Text of a dim expression in conditions, naming unknowns by where they stand."""
    if isinstance(e, (int, np.integer)):
        return str(int(e))
    if type(e) in LIGHT:
        return str(e)
    if is_symbolic(e):
        return _expr_text(e)
    return str(e)


@lru_cache(maxsize=8192)   # keyed by the expression (an unknown by its identity): its text depends on nothing else
def _expr_text(e: sympy.Expr) -> str:
    repl = {s: sympy.Symbol(s.name) for s in e.free_symbols if is_unknown(s)}
    return sympy.sstr(e.xreplace(repl) if repl else e)


_DIM_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_.]*)|(\?)|(//|[-+*()%,]))")


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def parse_dim(text: str, where: str = "", light: bool = False) -> Dim:
    """Parse one dim: ``4``, ``N``, ``2*M+1``, ``Min(64, seq)``, ``?`` (a fresh unknown).  ``light``: a
    name is a ``names.Name``, and anything but a number or a name stops the light check (``NeedsAlgebra``).

    >>> parse_dim("2*M+1"), type(parse_dim("M", light=True)).__name__, parse_dim("Max(1, Min(64, s) - 2)")
    (2*M + 1, 'Name', Max(1, Min(64, s) - 2))
    """
    text = text.strip()
    if text.isdigit():
        return _int64(text, text)
    if light:
        if not _NAME.fullmatch(text):
            raise NeedsAlgebra(f"dim {text!r} is not a name")
        return Name(text)
    if text == "?" or text == "":
        return unknown_dim(where or "?")
    return normalize_dim(_DimParser(text, where).parse())


class _DimParser:
    """A dim expression: ``+ -`` over ``* // %`` over atoms (ints, symbols, ``?``, ``-x``, ``(...)``)."""

    def __init__(self, text: str, where: str):
        self.text, self.where = text, where
        toks = []
        pos = 0
        while pos < len(text):
            m = _DIM_TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise self.error(f"unexpected {short_text(text[pos:])}")
            pos = m.end()
            toks.append(m.group(1) or m.group(2) or m.group(3) or m.group(4))
        self.toks = [t for t in toks if t]
        if len(self.toks) > MAX_DIM_TOKENS:
            raise self.error(f"{len(self.toks)} tokens, more than the {MAX_DIM_TOKENS} a dim expression may have")
        self.i = 0
        self.depth = 0

    def error(self, why: str) -> UsageError:
        return UsageError(f"bad dimension {short_text(self.text)}: {why}")

    def parse(self) -> Any:
        v = self.add()
        if self.i != len(self.toks):
            raise self.error(f"unexpected {self.toks[self.i]!r}")
        return v

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        self.i += 1
        return self.toks[self.i - 1]

    def atom(self) -> Any:
        t = self.take() if self.peek() is not None else None
        if t is None:
            raise self.error("ends early")
        if t in ("(", "-"):
            self.depth += 1
            if self.depth > MAX_DIM_NESTING:
                raise self.error(f"nests more than {MAX_DIM_NESTING} levels deep")
        if t == "(":
            v = self.add()
            if self.peek() != ")":  # peek, not take: at the end of the text there is no token to take
                raise self.error("missing ')'")
            self.take()
            return v
        if t == "-":
            return -self.atom()
        if t.isdigit():
            return sympy.Integer(_int64(t, self.text))
        if t == "?":
            return unknown_dim(self.where or "?")
        if t in _CALLS and self.peek() == "(":   # torch writes Min(64, seq) where a size is capped
            return self.call(t)
        if re.match(r"[A-Za-z_]", t):
            return symbol(t)
        raise self.error(f"unexpected {t!r}")

    def call(self, fn: str) -> Any:
        """``Min(a, b, ...)`` or ``Max(...)``: its arguments, each a dim expression."""
        self.take()
        args = [self.add()]
        while self.peek() == ",":
            self.take()
            args.append(self.add())
        if self.peek() != ")":
            raise self.error("missing ')'")
        self.take()
        return getattr(sympy, fn)(*args)

    def mul(self) -> Any:
        v = self.atom()
        while self.peek() in ("*", "//", "%"):
            op = self.take()
            r = self.atom()
            if op == "//" and getattr(r, "is_Integer", False) and r > 0:
                v = floor_div(v, int(r))   # torch's nested ((h - 1)//4 - 1)//2 is the one floor (h - 5)//8
            else:
                v = v * r if op == "*" else (floor_of(v / r) if op == "//" else sympy.Mod(v, r))
        return v

    def add(self) -> Any:
        v = self.mul()
        while self.peek() in ("+", "-"):
            op = self.take()
            r = self.mul()
            v = v + r if op == "+" else v - r
        return v


MAX_DIM_NESTING = 32
_CALLS = frozenset({"Min", "Max"})   # the functions a dim expression may call (sympy's, as torch prints them)


MAX_DIM_TOKENS = 400


INT64_MAX = (1 << 63) - 1


def short_text(text: str) -> str:
    """``text`` quoted for a message, cut at 60 characters."""
    return repr(text if len(text) <= 60 else text[:60] + "...")


def _int64(digits: str, text: str) -> int:
    """A dim literal; ONNX dims are int64 (and Python refuses more than 4300 digits)."""
    if len(digits) > 19 or int(digits) > INT64_MAX:
        raise UsageError(f"bad dimension {short_text(text)}: {digits[:20]}{'...' if len(digits) > 20 else ''} "
                         f"is larger than an int64 dim can be ({INT64_MAX})")
    return int(digits)


