"""A light check's ``Poly`` as ``sympy.sstr`` prints the same expression (``dims/light.py``).

The text is part of a report, which must be the full check's to the character: the order of the
terms, the signs, the coefficients and powers are sympy's (``tests/test_light_algebra.py``
compares the two on random expressions).

>>> sympy_text({(("M", 1), ("N", 1)): 2, (("N", 2),): 1, (): -1}), sympy_text({(("N", 1),): -2, (): 1})
('2*M*N + N**2 - 1', '1 - 2*N')
"""
from __future__ import annotations


def sympy_text(terms: dict) -> str:
    """A Poly's ``terms`` as ``sympy.sstr`` prints its expression: terms by lex order of their
    monomials over the names sorted as strings, highest first, the constant last; a two-term sum of
    a positive number and a negative multiple of one name's power starts with the number (``1 - 2*N``)."""
    if len(terms) == 2 and terms.get((), 0) > 0:
        (mono, c), = [(m, c) for m, c in terms.items() if m]
        if c < 0 and len(mono) == 1:
            return f"{terms[()]} - {_monomial_text(mono, -c)}"
    names = sorted({s for m in terms for s, _p in m})
    order = sorted(terms, key=lambda m: tuple(dict(m).get(s, 0) for s in names), reverse=True)
    out = ""
    for m in order:
        c = terms[m]
        text = _monomial_text(m, abs(c))
        out += (("-" if c < 0 else "") + text) if not out else ((" - " if c < 0 else " + ") + text)
    return out


def _monomial_text(mono: tuple, c: int) -> str:
    """A monomial times a positive coefficient, as sympy prints it (``2*M*N**2``, ``N``, ``3``)."""
    factors = [s if p == 1 else f"{s}**{p}" for s, p in mono]
    if c != 1 or not factors:
        factors.insert(0, str(c))
    return "*".join(factors)


__all__ = ["sympy_text"]
