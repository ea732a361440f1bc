"""Which constants are behind a condition: the initializers and Constant nodes whose sizes it names.

A condition such as ``seq == 32`` is needed by a node, but the 32 comes from a weight that
node reads, or from a constant a few nodes up (a Reshape's target built by a Concat).  A fix
aims at that constant, so reports name it: the walk goes up from the node's inputs through
the nodes that produce them, breadth first and a few steps deep, and keeps the constants whose
shape or small value holds one of the numbers the relation states (or, when none does, the
nearest constants).

>>> from shapecheck.frontends.graph import ModelGraph, ModelNode
>>> from shapecheck.types import parse_type
>>> g = ModelGraph("m.onnx", "onnx", nodes=[ModelNode("mm", "MatMul", "", 17, ["x", "w"], ["y"], {})],
...                sources={"w": parse_type("float[32,32]")}, source_kind={"w": "initializer"})
>>> constants_behind(g, "mm", {32})
(0, ("initializer 'w' float[32,32]",))
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ..deferred import sympy
from ..dims import LIGHT
from ..dims.light import terms_of
from ..frontends.graph import ModelGraph
from ..types import TensorType

DEPTH = 6          # nodes walked up from the one that needs the condition
MAX_NAMED = 3      # constants named per condition


def constants_behind(graph: ModelGraph, node_name: str, numbers: set[int], producers: dict | None = None,
                     then: set[int] | frozenset = frozenset(), env: dict | None = None) -> tuple[int, tuple]:
    """Descriptions (``initializer 'w' float[32,32]``) of the constants behind node ``node_name``'s
    inputs that hold one of ``numbers`` in their shape or value; else those that hold one of ``then``
    (the numbers of the node's own condition, before the domain solved it for the input dims: the 40
    of ``Min(40, floor(seq/2 - 1/2) + 1)`` behind ``seq <= 80``); the nearest constants if none does.
    With their rank: 0, 1 or 2 by which of the three they are (3: none).  A number a constant holds in
    its shape only as often as the node's outputs (their types in ``env``) hold it as a static dim is
    their width, not a bound: BERT's word table [100, 32] beside ``seq <= 32`` of a hidden size of 32.

    >>> from shapecheck.frontends.graph import ModelGraph, ModelNode
    >>> from shapecheck.types import parse_type
    >>> g = ModelGraph("m.onnx", "onnx", nodes=[ModelNode("add", "Add", "", 17, ["w", "pos"], ["y"], {})],
    ...                sources={"w": parse_type("float[16]"), "pos": parse_type("float[1,40]")},
    ...                source_kind={"w": "initializer", "pos": "initializer"})
    >>> constants_behind(g, "add", {80, 81}), constants_behind(g, "add", {80, 81}, then={40})[0]
    ((2, ("initializer 'w' float[16]", "initializer 'pos' float[1,40]")), 1)
    """
    producers = producers if producers is not None else producers_of(graph)
    start = producers.get(("node", node_name))
    if start is None:
        return 3, ()
    widths = Counter(d for o in start.outputs if o and (t := (env or {}).get(o)) is not None
                     for d in (getattr(t, "shape", None) or ()) if type(d) is int)
    if env is not None and numbers:
        # first along the tensors that still hold the number: a rotary cache's 32 rows reach the node
        # as Min(T, 32); a projection's weight [32, 96] of hidden size 32 does not (its MatMul sums the 32 away)
        rank, named = _walk(graph, start, numbers, then, producers, widths, lambda t: _carries(env.get(t), numbers))
        if rank == 0:
            return rank, named
    return _walk(graph, start, numbers, then, producers, widths, lambda _t: True)


def _walk(graph: ModelGraph, start: Any, numbers: set[int], then: Any, producers: dict, widths: Counter,
          through: Any) -> tuple[int, tuple]:
    """``constants_behind``'s walk up from ``start``'s inputs, past the tensors ``through`` lets it."""
    seen: set[str] = set()
    frontier = list(start.inputs)
    found: list[str] = []
    second: list[str] = []   # holding one of ``then``
    near: list[tuple[int, str]] = []
    for _depth in range(DEPTH):
        nxt = []
        for t in frontier:
            if not t or t in seen:
                continue
            seen.add(t)
            kind = graph.source_kind.get(t)
            if kind in ("initializer", "constant"):
                ty = graph.sources.get(t)
                text = f"{kind} {t!r} {_short(ty)}" if ty is not None else f"{kind} {t!r}"
                if _holds_number(ty, numbers, widths):
                    found.append(text)
                elif _holds_number(ty, then, widths):
                    second.append(text)
                elif not near or near[0][0] == _depth:   # the nearest constants only
                    near.append((_depth, text))
                continue
            node = producers.get(t)
            if node is not None and through(t):
                nxt.extend(node.inputs)
        frontier = nxt
        if len(found) >= MAX_NAMED:
            break
    rank, named = next(((k, x) for k, x in enumerate((found, second, [t for _d, t in near])) if x), (3, []))
    return rank, tuple(named[:MAX_NAMED])


def producers_of(graph: ModelGraph) -> dict:
    """tensor -> the node that produces it; ``("node", name)`` -> the node."""
    out: dict[Any, Any] = {}
    for n in graph.nodes:
        out[("node", n.name)] = n
        for t in n.outputs:
            if t:
                out[t] = n
    return out


def reads_any(graph: ModelGraph, tensor: str, names: set[str]) -> bool:
    """Whether ``tensor`` is computed from any of ``names``, through the nodes that produce it."""
    producers = producers_of(graph)
    seen, todo = set(), [tensor]
    while todo:
        t = todo.pop()
        if t in names:
            return True
        if t in seen or t not in producers:
            continue
        seen.add(t)
        todo.extend(producers[t].inputs)
    return False


def _short(t: Any) -> str:
    """A constant's type, with its value only when it is a few integers (``int64[1] = [16]``)."""
    elems = t.elements()
    if elems is not None and len(elems) <= 8:
        return str(t)
    return str(TensorType(t.dtype, t.shape))


def _carries(t: Any, numbers: set[int]) -> bool:
    """Whether a tensor's type still holds one of ``numbers``: as a dim, inside one (``Min(T, 32)``), or
    in its value; True where its type is not known (the walk cannot tell, so it goes on)."""
    if t is None or getattr(t, "shape", None) is None:
        return True
    elems = t.elements() if hasattr(t, "elements") else None
    for d in [*t.shape, *(elems or ())]:
        if type(d) is int:
            if d in numbers:
                return True
        elif type(d) in LIGHT:
            if any(abs(c) in numbers for c in terms_of(d).values()):
                return True
        elif hasattr(d, "atoms") and any(int(a) in numbers for a in d.atoms(sympy.Integer)):
            return True
    return False


def _holds_number(t: Any, numbers: set[int], widths: Counter = Counter()) -> bool:
    if t is None or not numbers:
        return False
    if t.shape is not None and any(type(d) is int and d in numbers and list(t.shape).count(d) > widths[d]
                                   for d in t.shape):
        return True
    elems = t.elements()
    return elems is not None and any(type(x) is int and x in numbers for x in elems)


__all__ = ["constants_behind", "producers_of"]
