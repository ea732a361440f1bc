"""Linear-algebra functions: Einsum's output shape and fit, the equation parsed (ellipsis, implicit output, a repeated label
as the diagonal, a size-1 label broadcasting as both runtimes do), output shapes exact over symbols.

>>> from shapecheck.dims import symbol
>>> N, S = symbol("N"), symbol("S")
>>> einsum_shape("bij,bjk->bik", ((N, S, 4), (N, 4, 8))), einsum_shape("...ii->...i", ((N, 3, 3),))
((N, S, 8), (N, 3))
"""
from __future__ import annotations

from typing import Any

from ..notation import NO_VALUE, EvalError, TensorVal, Unknown, UnknownShape, and_, compare_dims
from .shape import broadcast, broadcastable


def _parse_einsum(equation: str) -> tuple[list[str], str | None]:
    """``"ij,jk->ik"`` -> (["ij", "jk"], "ik"); ``...`` is kept as the one character ``.``."""
    eq = "".join(equation.split())
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    out = rhs if arrow else None
    for t in terms + ([out] if out is not None else []):
        t2 = t.replace("...", ".", 1)
        if not all(c.isascii() and c.isalpha() or c == "." for c in t2) or t2.count(".") > 1:
            raise EvalError(f"Einsum equation {equation!r}: term {t!r} is not letters with at most one '...'")
    if "->" in rhs:
        raise EvalError(f"Einsum equation {equation!r} has two '->'")
    terms = [t.replace("...", ".", 1) for t in terms]
    if out is not None:
        out = out.replace("...", ".", 1)
        if len(set(out)) != len(out):
            raise EvalError(f"Einsum equation {equation!r}: an output label repeats")
        seen = set("".join(terms))
        if any(c not in seen and c != "." for c in out):
            raise EvalError(f"Einsum equation {equation!r}: an output label is in no input")
        if "." in out and not any("." in t for t in terms):
            raise EvalError(f"Einsum equation {equation!r}: '...' in the output but in no input")
    return terms, out


def _einsum_dims(equation: str, shapes: Any) -> tuple[dict, list, list[tuple], str]:
    """Per label its dims (one per operand), the pairs of dims a diagonal makes equal, the ellipsis
    dims of each operand, the output labels."""
    terms, out = _parse_einsum(str(equation))
    if len(terms) != len(shapes):
        raise EvalError(f"Einsum equation {equation!r} has {len(terms)} operands, the node {len(shapes)} inputs")
    labels: dict[str, list] = {}
    same: list[tuple] = []
    ellipses: list[tuple] = []
    for t, s in zip(terms, shapes):
        n = len(t) - ("." in t)
        if len(s) < n or "." not in t and len(s) != n:
            raise EvalError(f"Einsum term {t.replace('.', '...')!r} does not fit an input of rank {len(s)}")
        k = t.find(".")
        head = t if k < 0 else t[:k]
        tail = "" if k < 0 else t[k + 1:]
        ell = () if k < 0 else tuple(s[len(head):len(s) - len(tail)])
        ellipses.append(ell)
        mine: dict[str, Any] = {}
        for c, d in list(zip(head, s[:len(head)])) + list(zip(tail, s[len(s) - len(tail):])):
            if c in mine:
                same.append((mine[c], d))   # a label repeated in one operand: its diagonal
            else:
                mine[c] = d
                labels.setdefault(c, []).append(d)
    if out is None:   # implicit: the ellipsis, then the labels that occur once, in ASCII order
        once = sorted(c for c in labels if "".join(terms).count(c) == 1)
        out = ("." if any(ellipses) or any("." in t for t in terms) else "") + "".join(once)
    return labels, same, [tuple(e) for e in ellipses], out


def _shapes_of(xs: Any) -> Any:
    """The shapes of a tuple of tensors (Einsum's ``Inputs``) or of shapes; unknown ranks stay Unknown."""
    if isinstance(xs, Unknown):
        return xs
    return tuple((UnknownShape(None) if x.shape is None else tuple(x.shape)) if isinstance(x, TensorVal) else x
                 for x in xs)


def shape_list(shapes: Any) -> Any:
    """The shapes of a comprehension as one argument: ``einsum_fits(equation, shape_list(x.shape for x
    in Inputs))`` (a rule that passes the tensors themselves would read their contents)."""
    return shapes


def einsum_shape(equation: Any, shapes: Any) -> Any:
    """Einsum's output shape: each output label's dim, the broadcast ellipsis dims in place of ``...``.
    ``shapes`` are the inputs' shapes, or the inputs themselves."""
    shapes = _shapes_of(shapes)
    if isinstance(shapes, Unknown) or any(isinstance(s, Unknown) for s in shapes):
        return UnknownShape(None)
    labels, _, ellipses, out = _einsum_dims(equation, shapes)
    ell = broadcast(*ellipses) if ellipses else ()
    dims: list = []
    for c in out:
        if c == ".":
            dims.extend(ell)
        else:
            dims.append(broadcast(*[(d,) for d in labels[c]])[0])   # a label of dim 1 broadcasts, as in the runtimes
    return tuple(dims)


def einsum_fits(equation: Any, shapes: Any) -> Any:
    """True when the inputs fit the equation: ranks match the terms, the dims of every occurrence
    of a label broadcast (equal, or 1: onnxruntime and onnx.reference both broadcast a label of
    dim 1), a label repeated in one operand (a diagonal) has equal dims, and the ellipses stand for
    the same number of dims, which broadcast.  A malformed equation is False."""
    shapes = _shapes_of(shapes)
    if isinstance(shapes, Unknown) or any(isinstance(s, Unknown) for s in shapes):
        try:
            _parse_einsum(str(equation))
        except EvalError:
            return False
        return NO_VALUE
    try:
        labels, same, ellipses, _ = _einsum_dims(equation, shapes)
    except EvalError:
        return False
    ranks = {len(e) for e, t in zip(ellipses, _parse_einsum(str(equation))[0]) if "." in t}
    if len(ranks) > 1:
        return False   # onnx's inference (and so onnxruntime) wants one ellipsis rank in every operand
    parts = [compare_dims(a, "==", b) for a, b in same]
    parts += [broadcastable(*[(d,) for d in ds]) for ds in labels.values()]
    if ellipses:
        parts.append(broadcastable(*ellipses))
    return and_(parts)


NOTATION = (shape_list, einsum_shape, einsum_fits)
