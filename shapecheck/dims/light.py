"""Named dims and their sums and products, without sympy, for the light check.

A model's input dims are often names (``batch``, ``max_len``) that flow through the graph
unchanged or are only added and multiplied: a KV-cache update, a reshape to ``batch*seq``, a
concat.  Importing sympy alone takes longer than checking such a model.  A *light* check
(``check_model(..., light=True)``, which the CLI uses) gives the model's named dims as ``Name``s
instead of sympy symbols.  A ``Name`` is equal only to the same name, and hashes like one.

Sums and products of names with integer coefficients are ``Poly``s (tract's ``TDim`` is the
model): each is held as sympy holds it, so that it compares, hashes and prints as sympy's
expression would (``2*M*N + N - 1``).  sympy expands a number times a sum (``2*(N + 1)`` is
``2*N + 2``) but never a product of sums (``N*(M + 1)`` stays as it is): such a product, and
anything else (a floor, Python's ``<`` between dims, turning one into a sympy expression), raises
``NeedsAlgebra``, and the check starts again with sympy symbols.  What a light check decides of
their order, Min and Max is in ``light_order``, which ``notation.compare_dims`` asks.  A light check therefore gives the same report as
the full one, or none at all (``tests/test_light.py`` compares the two on every shipped model, on
random small graphs and on every spec's cases; ``tests/test_light_algebra.py`` compares this
algebra with sympy's on random expressions).

>>> n, m = Name("batch"), Name("seq")
>>> n == Name("batch"), n == 3, n.free_symbols == {n}, n.xreplace({n: Name("b")}), str(n)
(True, False, True, b, 'batch')
>>> 2 * (n + 1) - n, n * m * 64, (n * m - 1).xreplace({m: n}), (2 * n + 2) // 2
(batch + 2, 64*batch*seq, batch**2 - 1, batch + 1)
>>> n * (m + 1)
Traceback (most recent call last):
...
shapecheck.dims.light.NeedsAlgebra: batch*(seq + 1): a light check does not multiply sums
"""
from __future__ import annotations

from typing import Any, NoReturn

from .light_text import sympy_text


class NeedsAlgebra(BaseException):
    """A light check met a dim operation that needs sympy; the check is redone with it.

    A ``BaseException``, so that no ``except Exception`` on the way turns it into a verdict.
    """


class _Light:
    """What a ``Name`` and a ``Poly`` share: their arithmetic, and a refusal of everything else."""

    __slots__ = ()
    is_Symbol = is_Dummy = False
    is_Number = is_number = is_Integer = False
    is_integer = True

    def _needs_algebra(self, *_: Any) -> NoReturn:
        raise NeedsAlgebra(f"{self}: a light check does no ordering, division or conversion of dims")


    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __add__(self, other: Any) -> Any:
        return _sum(self, other, 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return _sum(self, other, -1)

    def __rsub__(self, other: Any) -> Any:
        return _sum(other, self, -1)

    def __neg__(self) -> Any:
        return _made({m: -c for m, c in terms_of(self).items()})

    def __pos__(self) -> Any:
        return self

    def __mul__(self, other: Any) -> Any:
        return _product(self, other)

    __rmul__ = __mul__

    def __floordiv__(self, other: Any) -> Any:
        return _divided(self, other, exact=True)

    def __mod__(self, other: Any) -> Any:
        return _divided(self, other, exact=False)

    def __pow__(self, k: Any) -> Any:
        terms = terms_of(self)
        if type(k) is not int or k < 0 or len(terms) != 1:
            raise NeedsAlgebra(f"({self})**{k}: a light check raises only a product of names to a power")
        (mono, c), = terms.items()
        return _made({tuple((s, p * k) for s, p in mono): c ** k}) if k else 1

    # order, numbers, the division of a dim by a dim and sympy's conversion all need sympy
    __rfloordiv__ = __rmod__ = __truediv__ = __rtruediv__ = __rpow__ = __abs__ = _needs_algebra
    __lt__ = __le__ = __gt__ = __ge__ = _needs_algebra
    __int__ = __index__ = __float__ = _needs_algebra
    _sympy_ = subs = expand = as_coefficients_dict = as_coeff_Mul = as_coeff_Add = _needs_algebra
    has = coeff = atoms = as_poly = as_numer_denom = simplify = _needs_algebra
    is_positive = is_negative = is_zero = is_nonpositive = property(_needs_algebra)

    def xreplace(self, mapping: dict) -> Any:
        """The dim with names replaced (by names, numbers or light dims), as sympy's ``xreplace``."""
        out: Any = 0
        for mono, c in terms_of(self).items():
            term: Any = c
            for s, p in mono:
                term = term * (mapping.get(Name(s), Name(s)) ** p)
            out = out + term
        return out


class Name(_Light):
    """A named, non-negative integer dim, equal only to itself (see the module's text)."""

    __slots__ = ("name",)
    is_Symbol = True
    is_Add = is_Mul = is_Pow = is_Function = False
    is_nonnegative = True
    args: tuple = ()

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return type(other) is Name and other.name == self.name

    def __hash__(self) -> int:
        return hash(("Name", self.name))

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return (Name, (self.name,))

    @property
    def free_symbols(self) -> set:
        return {self}

    def xreplace(self, mapping: dict) -> Any:
        return mapping.get(self, self)


class Poly(_Light):
    """A sum of products of names with integer coefficients that is not a number or a lone name:
    ``terms`` maps each monomial (its (name, power) pairs, by name; ``()`` for the constant) to its
    nonzero coefficient.  Made only by the arithmetic of ``Name`` and ``Poly``."""

    __slots__ = ("terms", "_key")

    def __init__(self, terms: dict) -> None:
        self.terms = terms
        self._key = frozenset(terms.items())

    def __eq__(self, other: object) -> bool:
        return type(other) is Poly and other._key == self._key

    def __hash__(self) -> int:
        return hash(("Poly", self._key))

    def __repr__(self) -> str:
        return sympy_text(self.terms)

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return (Poly, (self.terms,))

    @property
    def free_symbols(self) -> set:
        return {Name(s) for mono in self.terms for s, _p in mono}

    @property
    def is_nonnegative(self) -> bool:
        """True when every coefficient is (then so is the sum, as sympy finds); else it needs algebra."""
        if all(c >= 0 for c in self.terms.values()):
            return True
        raise NeedsAlgebra(f"{self}: a light check does not decide the sign of a difference")

    # what sympy code reads of an expression's structure: a light check has none of it to give
    is_Add = is_Mul = is_Pow = is_Function = args = property(_Light._needs_algebra)


def terms_of(x: Any) -> dict:
    """A light dim or an integer as {monomial: coefficient} (a monomial: its (name, power) pairs, by
    name; ``()`` for the constant); anything else needs algebra.

    >>> terms_of(2 * Name("N") + 1), terms_of(Name("M")), terms_of(0)
    ({(('N', 1),): 2, (): 1}, {(('M', 1),): 1}, {})
    """
    t = type(x)
    if t is Poly:
        return x.terms
    if t is Name:
        return {((x.name, 1),): 1}
    if t is int or (t is not bool and hasattr(x, "__index__") and not isinstance(x, _Light)
                    and type(x).__module__ == "numpy"):
        return {(): int(x)} if x else {}
    raise NeedsAlgebra(f"{x!r}: a light check computes only with names and integers")


def _made(terms: dict) -> Any:
    """The canonical dim of ``terms``: an int, a ``Name`` (one name, coefficient 1) or a ``Poly``."""
    terms = {m: c for m, c in terms.items() if c}
    if not terms:
        return 0
    if len(terms) == 1:
        (mono, c), = terms.items()
        if not mono:
            return c
        if c == 1 and len(mono) == 1 and mono[0][1] == 1:
            return Name(mono[0][0])
    return Poly(terms)


def _sum(a: Any, b: Any, sign: int) -> Any:
    out = dict(terms_of(a))
    for m, c in terms_of(b).items():
        out[m] = out.get(m, 0) + sign * c
    return _made(out)


def _product(a: Any, b: Any) -> Any:
    """``a*b``, as sympy holds it: a number times a sum is distributed, a product of monomials is one
    monomial, and a sum times anything but a number is left to sympy (it is not expanded there)."""
    ta, tb = terms_of(a), terms_of(b)
    if len(ta) > 1 and len(tb) > 1 or (len(ta) > 1 and () not in tb and tb) or (len(tb) > 1 and () not in ta and ta):
        raise NeedsAlgebra(f"{_grouped(a)}*{_grouped(b)}: a light check does not multiply sums")
    out: dict = {}
    for ma, ca in ta.items():
        for mb, cb in tb.items():
            m = _times(ma, mb)
            out[m] = out.get(m, 0) + ca * cb
    return _made(out)


def _times(ma: tuple, mb: tuple) -> tuple:
    powers = dict(ma)
    for s, p in mb:
        powers[s] = powers.get(s, 0) + p
    return tuple(sorted(powers.items()))


def _grouped(x: Any) -> str:
    return f"({x})" if type(x) is Poly and len(x.terms) > 1 else str(x)


def _divided(a: Any, k: Any, exact: bool) -> Any:
    """``a // k`` (``exact``) or ``a % k`` for a positive integer ``k`` that divides every coefficient,
    as sympy finds them (``(2*N + 4) // 2`` is ``N + 2``, ``2*N % 2`` is 0); anything else needs algebra."""
    if type(k) is not int or k <= 0 or any(c % k for c in terms_of(a).values()):
        raise NeedsAlgebra(f"{a} {'//' if exact else '%'} {k}: a light check divides only exactly")
    return _made({m: c // k for m, c in terms_of(a).items()}) if exact else 0


def quotient(a: Any, b: Any) -> Any:
    """``a / b`` where ``b`` is one term (a number times a product of names) that divides every term of
    ``a``, as sympy's cancelled quotient is (``64*N*S / (64*N)`` is S); anything else needs algebra.

    >>> quotient(6 * Name("N") * Name("S") + 12 * Name("N"), 3 * Name("N"))
    2*S + 4
    """
    ta, tb = terms_of(a), terms_of(b)
    if len(tb) != 1:
        raise NeedsAlgebra(f"({a}) / ({b}): a light check divides only by one term")
    (mb, cb), = tb.items()
    out = {}
    for ma, ca in ta.items():
        powers = dict(ma)
        if ca % cb or any(powers.get(s, 0) < p for s, p in mb):
            raise NeedsAlgebra(f"({a}) / ({b}): a light check divides only exactly")
        for s, p in mb:
            powers[s] -= p
        out[tuple((s, p) for s, p in sorted(powers.items()) if p)] = ca // cb
    return _made(out)


LIGHT = (Name, Poly)   # the types of a light check's symbolic dims


__all__ = ["LIGHT", "Name", "NeedsAlgebra", "Poly", "quotient", "terms_of"]
