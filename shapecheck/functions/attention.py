"""Notation functions of the attention ops (Attention, RotaryEmbedding, GroupQueryAttention,
MultiHeadAttention, MatMulNBits): splitting a hidden size into heads, and the block count of a
quantized weight. Exact on ints, exact on symbols where the algebra settles it, a fresh unknown
dim where not: never a guess.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dims import normalize_dim, unknown_dim
from ..dims.rounding import ceiling_of
from ..notation import Unknown

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def per_head(hidden: Any, heads: Any, label: str = "head_size") -> Any:
    """The size of one head when ``hidden`` features are split into ``heads`` heads: hidden / heads.

    Exact on ints (a remainder, or heads <= 0, gives a fresh unknown dim: a constraint refutes that
    case), exact on a symbol the heads divide (``8*D`` over 8 is ``D``), a fresh unknown dim labelled
    ``label`` otherwise.

    >>> from shapecheck.dims import symbol
    >>> per_head(512, 8), per_head(8 * symbol("D"), 8), per_head(symbol("D"), 8).is_Dummy
    (64, D, True)
    """
    if isinstance(hidden, Unknown) or isinstance(heads, Unknown):
        return unknown_dim(str(label))
    if _is_int(hidden) and _is_int(heads):
        return hidden // heads if heads > 0 and hidden % heads == 0 else unknown_dim(str(label))
    if _is_int(heads) and heads <= 0:
        return unknown_dim(str(label))
    q = sympy.sympify(hidden) / heads
    return normalize_dim(q) if q.is_integer else unknown_dim(str(label))


def ceil_div(a: Any, b: Any) -> Any:
    """ceil(a / b) for a dim a and a positive int b: MatMulNBits' block count ceil(K / block_size).

    >>> from shapecheck.dims import symbol
    >>> ceil_div(40, 16), ceil_div(32, 16), ceil_div(32 * symbol("K"), 32)
    (3, 2, K)
    """
    if isinstance(a, Unknown) or isinstance(b, Unknown) or not (_is_int(b) and b > 0):
        return unknown_dim("ceil_div")
    if _is_int(a):
        return -(-a // b)
    q = ceiling_of(sympy.sympify(a) / b)
    return normalize_dim(q) if q.is_integer and not q.has(sympy.ceiling) else unknown_dim("ceil_div")


NOTATION = (per_head, ceil_div,)
