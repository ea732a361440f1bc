"""A light check's comparisons of dims (``dims/light.py``): names with names and numbers, and sums of
products of names (``Poly``), decided as the full check decides them or needing algebra.

>>> from shapecheck.dims import Name
>>> compare_names(Name("N"), ">=", 0), compare_sums(2 * Name("N") + 1, ">", 0)
(True, True)
"""
from __future__ import annotations

from ..dims import Name, NeedsAlgebra, Poly
from ..dims.light_order import FLIP, decide
from .logic import Cond
from .relations import Rel

REFLEXIVE = frozenset(("==", "<=", ">="))   # what a dim is to itself


def compare_names(a, op: str, b):
    """A light check's comparison (``dims/light.py``): of a name with itself, another name or a number.
    A name is any integer >= 0, independently of any other name; whatever else needs algebra.

    >>> n, m = Name("N"), Name("M")
    >>> compare_names(n, ">=", 0), compare_names(n, "==", -1), [str(r) for r in compare_names(n, "==", m).rels]
    (True, False, ['N == M'])
    >>> [str(r) for r in compare_names(2, "<", n).rels]
    ['N > 2']
    """
    if type(a) is not Name:
        return compare_names(b, FLIP[op], a)
    if type(b) is Name:
        return op in REFLEXIVE if a == b else Cond((Rel(op, a, b),))
    if type(b) is not int:
        raise NeedsAlgebra(f"{a} {op} {b}")
    # N op b over N = 0, 1, 2, ...: decided when it holds (or fails) already at N = 0 and for every larger N
    always = {"==": None, "!=": b < 0 or None, "<": None, "<=": None, ">": b < 0 or None, ">=": b <= 0 or None}[op]
    never = {"==": b < 0, "!=": False, "<": b <= 0, "<=": b < 0, ">": False, ">=": False}[op]
    if always:
        return True
    if never:
        return False
    return Cond((Rel(op, a, b),))


def compare_sums(a, op: str, b):
    """A light check's comparison where a side is a ``Poly``: decided where it holds or fails for every
    value of the names, as ``_linear`` and ``_residue`` decide it (``dims/light_order.py``).  What is
    left open is the full check's condition ``make_rel(op, a, b)`` where that is one name against a
    number (``N + 1 >= 2`` is ``N >= 1``: ``c*N + k`` with ``c`` dividing ``k``, which the full check
    leaves open in every case it does not decide); any other condition needs algebra.

    >>> n, m = Name("N"), Name("M")
    >>> compare_sums(2 * n + 1, ">", 0), compare_sums(n * m + 2, "==", 1), compare_sums(2 * n - 2 * m + 1, "!=", 0)
    (True, False, True)
    >>> [str(r) for r in compare_sums(4 - 2 * n, "<", 0).rels]
    ['N > 2']
    """
    d = a - b
    try:
        return decide(d, op, residues=True)
    except NeedsAlgebra:
        terms = d.terms if type(d) is Poly else {}
        k = terms.get((), 0)
        rest = [(m, c) for m, c in terms.items() if m]
        if len(rest) != 1 or len(rest[0][0]) != 1 or rest[0][0][0][1] != 1 or k % rest[0][1]:
            raise
        (((name, _power),), c), = rest
        return Cond((Rel(op if c > 0 else FLIP[op], Name(name), -k // c),))


__all__ = ["REFLEXIVE", "compare_names", "compare_sums"]
