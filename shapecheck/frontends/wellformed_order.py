"""``G2`` of the well-formedness check (``wellformed``): the nodes of a graph that read a tensor
before the node that produces it, named as a cycle when the producer depends on the reader,
else as nodes out of topological order.

>>> from types import SimpleNamespace as N
>>> label(N(name="a", op_type="Relu"), 0), label(N(name="", op_type="Relu"), 3)
("'a' (#0, Relu)", '#3 (Relu)')
"""
from __future__ import annotations

from typing import Any

from ..findings import TOPOLOGICAL
from ..result import Finding
from .onnx_fields import NodeFields


def order_findings(nodes: list[NodeFields], late, producer: dict[str, int], where: str, out: Any) -> None:
    """Reads before writes: a cycle when the producer depends on the reader, otherwise just out of order."""
    reads: dict[int, list[tuple[str, int]]] = {}
    for k, n in enumerate(nodes):
        reads[k] = [(t, producer[t]) for t in n.input if t in producer]
    named = lambda k: label(nodes[k], k)
    order: list[str] = []      # reads out of order, not in a cycle: one finding for the graph
    for reader, t, writer in late:
        if not out.room(TOPOLOGICAL):
            continue   # counted only: each search below walks the graph
        path = _path(writer, reader, reads)
        if path is not None:
            chain = [f"{named(reader)} reads {t!r} from {named(writer)}"]
            chain += [f"which reads {tn!r} from {named(producer[tn])}" for _k, tn in path]
            if len(chain) > 8:
                chain = chain[:5] + [f"... {len(chain) - 7} more ..."] + chain[-2:]
            out.violations.append(Finding(
                TOPOLOGICAL, "the graph has no cycles", f"a cycle in {where}: " + ", ".join(chain),
                {"tensor": t}, "break the cycle: a tensor cannot depend on itself (use Loop for recurrences)"))
            return      # one cycle is enough to make the point; the rest usually repeat it
        order.append(f"node {named(reader)} reads tensor {t!r} before node {named(writer)} produces it")
    if order:
        more = f" (and {len(order) - 3} more such reads)" if len(order) > 3 else ""
        out.violations.append(Finding(
            TOPOLOGICAL, "nodes are in topological order",
            f"in {where}, " + "; ".join(order[:3]) + more + ". shapecheck checks the nodes in topological order, "
            "as onnxruntime runs them", {"reads out of order": str(len(order))},
            "sort the nodes topologically (onnx.checker requires it; onnxscript's optimizer can)"))


def _path(start: int, goal: int, reads) -> list[tuple[int, str]] | None:
    """Nodes from ``start`` back to ``goal`` along what each reads, as (node, tensor it reads); iterative."""
    parent: dict[int, tuple[int, str] | None] = {start: None}
    stack = [start]
    while stack:
        k = stack.pop()
        for t, w in reads.get(k, ()):
            if w == goal:
                steps = [(k, t)]
                while parent[k] is not None:
                    k, t = parent[k]
                    steps.append((k, t))
                return steps[::-1]
            if w not in parent:
                parent[w] = (k, t)
                stack.append(w)
    return None


def label(n, k: int) -> str:
    return f"{n.name!r} (#{k}, {n.op_type})" if n.name else f"#{k} ({n.op_type})"


__all__ = ["label", "order_findings"]
