"""The notation's expression trees: ``Node``, and walking, substituting and printing them.

>>> from shapecheck.notation.parser import parse
>>> sorted(names_in(parse("all(d < r for d in range(r))")))
['r']
>>> unparse(substitute(parse("a + 1"), {"a": parse("b * 2")}))
'b * 2 + 1'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

__all__ = ["Node", "NotationError", "names_in", "substitute", "unparse", "walk", "tree_depth"]

MAX_DEPTH = 120         # levels of an expression tree (a long chain a + b + c + ... is deep too)
MAX_EXPANDED = 20_000   # nodes of a rule once its let names are replaced


class NotationError(ValueError):
    """A parse error, with the column it was found at."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


@dataclass(frozen=True)
class Node:
    """One node of an expression tree.

    kinds: num, str, name, attr(obj).value, index(obj, subs...), slice(lo, hi),
    ellipsis, call.value(args...), comp.value(elt, iter, cond), unary.value(x),
    binop.value(l, r), concat(parts...), compare.value=(ops)(operands...),
    and(xs...), or(xs...), not(x), ifelse(then, cond, else), list(items...), set(items...).
    """

    kind: str
    value: object = None
    children: tuple = ()
    pos: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return unparse(self)


def tree_depth(tree: Node) -> tuple[int, Node]:
    """(levels of ``tree``, its deepest node), without recursion."""
    best, deepest = 0, tree
    stack = [(tree, 1)]
    while stack:
        n, d = stack.pop()
        if d > best:
            best, deepest = d, n
        stack.extend((c, d + 1) for c in n.children if isinstance(c, Node))
    return best, deepest


def walk(tree: Node | None) -> Iterator[Node]:
    """Every node of a tree, parents before their children."""
    if isinstance(tree, Node):
        yield tree
        for c in tree.children:
            yield from walk(c)


def names_in(node: Node | None, bound: frozenset = frozenset()) -> set[str]:
    """Free names of an expression (loop variables excluded); function names are not included."""
    if node is None:
        return set()
    if node.kind == "name":
        return set() if node.value in bound else {node.value}
    if node.kind == "comp":
        elt, it, cond = node.children
        inner = bound | {node.value}
        return names_in(it, bound) | names_in(elt, inner) | names_in(cond, inner)
    out: set[str] = set()
    for c in node.children:
        if isinstance(c, Node):
            out |= names_in(c, bound)
    return out


def substitute(node: Node | None, mapping: dict[str, Node], bound: frozenset = frozenset()) -> Node | None:
    """Replace free names by trees (used to state a rule without the spec's ``let`` names).

    Names inside the trees are replaced too, each once (memoised); a name that reaches itself
    is a ``NotationError``, and so is a result larger than ``MAX_EXPANDED`` nodes or deeper
    than ``MAX_DEPTH`` levels (lets that double: ``a1 = a0 + a0``, ``a2 = a1 + a1``, ...).

    >>> from shapecheck.notation.parser import parse
    >>> str(substitute(parse("k <= r"), {"k": parse("indices.shape[-1]"), "r": parse("rank(data)")}))
    'indices.shape[-1] <= rank(data)'
    """
    if node is None:
        return None
    memo: dict[tuple, tuple[Node, int, int]] = {}
    free: dict[str, set[str]] = {}
    active: list[str] = []

    def name(n: Node, b: frozenset) -> tuple[Node, int, int]:
        if n.value not in free:
            free[n.value] = names_in(mapping[n.value])
        key = (n.value, b & free[n.value])
        if n.value in active:
            raise NotationError(f"{n.value} refers to itself: " + " -> ".join(active[active.index(n.value):] + [n.value]),
                                n.pos)
        if key not in memo:
            active.append(n.value)
            memo[key] = go(mapping[n.value], b)
            active.pop()
        return memo[key]

    def go(n: Node, b: frozenset) -> tuple[Node, int, int]:
        """(the tree, its size, its depth)."""
        if n.kind == "name" and n.value in mapping and n.value not in b:
            out = name(n, b)
        else:
            if n.kind == "comp":  # the loop variable is bound in the element and the condition, not the iterable
                inner = b | {n.value}
                parts = [go(c, inner if i != 1 else b) if c is not None else None for i, c in enumerate(n.children)]
            else:
                parts = [go(c, b) if isinstance(c, Node) else c for c in n.children]
            trees = [p[0] if isinstance(p, tuple) else p for p in parts]
            subs = [p for p in parts if isinstance(p, tuple)]
            out = (Node(n.kind, n.value, tuple(trees), n.pos), 1 + sum(p[1] for p in subs),
                   1 + max((p[2] for p in subs), default=0))
        if out[1] > MAX_EXPANDED or out[2] > MAX_DEPTH:
            raise NotationError(f"with its let names replaced the expression has more than "
                                f"{MAX_EXPANDED if out[1] > MAX_EXPANDED else MAX_DEPTH} "
                                f"{'nodes' if out[1] > MAX_EXPANDED else 'levels'}; shapecheck stops there", n.pos)
        return out
    return go(node, bound)[0]


_PREC = {"ifelse": 0, "or": 1, "and": 2, "not": 3, "compare": 4, "concat": 5, "binop+": 6, "binop-": 6,
         "binop*": 7, "binop//": 7, "binop%": 7, "unary": 8}


def _prec(n: Node) -> int:
    if n.kind == "binop":
        return _PREC["binop" + n.value]
    return _PREC.get(n.kind, 9)


def unparse(n: Node | None) -> str:
    """Canonical text of a tree (used in messages and for matching constraints by meaning)."""
    if n is None:
        return ""
    k = n.kind

    def wrap(c: Node, p: int) -> str:
        s = unparse(c)
        return f"({s})" if _prec(c) < p else s

    if k == "num":
        return str(n.value)
    if k == "str":
        return f'"{n.value}"'
    if k == "bool":
        return str(n.value)
    if k == "name":
        return n.value
    if k == "ellipsis":
        return "..."
    if k == "attr":
        return f"{wrap(n.children[0], 9)}.{n.value}"
    if k == "index":
        return f"{wrap(n.children[0], 9)}[{', '.join(unparse(c) for c in n.children[1:])}]"
    if k == "slice":
        return f"{unparse(n.children[0])}:{unparse(n.children[1])}"
    if k == "call":
        return f"{n.value}({', '.join(unparse(c) for c in n.children)})"
    if k == "comp":
        elt, it, cond = n.children
        s = f"{unparse(elt)} for {n.value} in {unparse(it)}"
        return s + (f" if {unparse(cond)}" if cond is not None else "")
    if k == "unary":
        return f"-{wrap(n.children[0], 8)}"
    if k == "binop":
        p = _prec(n)
        return f"{wrap(n.children[0], p)} {n.value} {wrap(n.children[1], p + 1)}"
    if k == "concat":
        return " ++ ".join(wrap(c, 6) for c in n.children)
    if k == "compare":
        s = wrap(n.children[0], 5)
        for op, c in zip(n.value, n.children[1:]):
            s += f" {op} {wrap(c, 5)}"
        return s
    if k in ("and", "or"):
        p = _PREC[k]
        return f" {k} ".join(wrap(c, p + 1) for c in n.children)
    if k == "not":
        return f"not {wrap(n.children[0], 3)}"
    if k == "ifelse":
        a, c, b = n.children
        return f"{wrap(a, 1)} if {wrap(c, 1)} else {unparse(b)}"
    if k == "list":
        return "[" + ", ".join(unparse(c) for c in n.children) + "]"
    if k == "set":
        return "{" + ", ".join(unparse(c) for c in n.children) + "}"
    raise ValueError(f"unknown node kind {k}")
