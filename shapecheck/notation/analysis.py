"""What the solver needs to know about a rule, found once when its spec is loaded.

* ``equalities``: the top-level ``a == b`` parts, compiled, which unification learns from;
* ``reads_values``: the inputs whose *contents* a rule reads (through its lets too): without
  them the rule is left unchecked rather than decided;
* ``leaves``: the sub-expressions a diagnostic shows the values of.

>>> from shapecheck.notation.parser import parse
>>> sorted(reads_values(parse("indices <= data.shape[0] - 1"), {"data", "indices"}, {}))
['indices']
>>> [t for t, _n, _f in leaves(parse("updates.shape == indices.shape[:-1] ++ data.shape[k:]"))]
['updates.shape', 'indices.shape[:-1]', 'data.shape[k:]']
"""
from __future__ import annotations

from typing import Iterable

from .compile import FUNCTIONS, Fn, compile_expr
from .syntax import Node, names_in, unparse


def equalities(tree: Node) -> tuple[tuple[Fn, Fn], ...]:
    """The compiled sides of the top-level ``a == b`` parts of a rule (under ``and``)."""
    out = []

    def walk(n: Node):
        if n.kind == "compare" and n.value == ("==",):
            out.append((compile_expr(n.children[0]), compile_expr(n.children[1])))
        elif n.kind == "and":
            for c in n.children:
                walk(c)
    walk(tree)
    return tuple(out)


def reads_values(tree: Node, inputs: set[str], lets: dict[str, Node], seen_lets: frozenset = frozenset()) -> frozenset[str]:
    """Inputs read in a value context: not under ``.shape``/``.dtype``/``.rank``, ``rank()``, ``dtype()``.

    Indexing a variadic input (``inputs[0]``) picks a tensor, and a comprehension variable
    (``for x in inputs``) stands for the input it ranges over.
    """
    names = inputs
    out: set[str] = set()

    def walk(n, shape_ctx: bool, alias: dict):
        if not isinstance(n, Node):
            return
        if n.kind == "name":
            name = alias.get(n.value, n.value)
            if name in names and not shape_ctx:
                out.add(name)
            return
        if n.kind == "attr":
            walk(n.children[0], n.value != "value", alias)
            return
        if n.kind == "call" and (n.value in ("rank", "dtype", "present", "absent", "len")
                                 or getattr(FUNCTIONS.get(n.value), "type_only", False)):   # they read no contents
            for c in n.children:
                walk(c, True, alias)
            return
        if n.kind == "index":
            walk(n.children[0], shape_ctx, alias)
            for c in n.children[1:]:
                walk(c, False, alias)
            return
        if n.kind == "comp":
            it = n.children[1]
            inner = dict(alias)
            if isinstance(it, Node) and it.kind == "name" and it.value in names:
                inner[n.value] = it.value      # the variable is one of the input's tensors
            else:
                walk(it, False, alias)
            for c in (n.children[0], n.children[2]):
                walk(c, False, inner)
            return
        for c in n.children:
            walk(c, False, alias)
    walk(tree, False, {})
    used = names_in(tree)
    for let_name, let_tree in lets.items():
        if let_name in used and let_name not in seen_lets:
            out |= reads_values(let_tree, inputs, lets, seen_lets | {let_name})
    return frozenset(out)


def _leaf_nodes(n: Node) -> Iterable[Node]:
    if n is None or not isinstance(n, Node):
        return
    if n.kind in ("attr", "index") or (n.kind == "call" and n.value in ("rank", "dtype", "item", "prod")):
        yield n
        return
    if n.kind == "name":
        yield n
        return
    if n.kind == "comp":
        return
    for c in n.children:
        yield from _leaf_nodes(c)


def leaves(tree: Node) -> tuple[tuple[str, Node, Fn], ...]:
    """(text, node, compiled) of each sub-expression whose value a diagnostic shows."""
    return tuple((unparse(leaf), leaf, compile_expr(leaf)) for leaf in _leaf_nodes(tree))
