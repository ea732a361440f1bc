"""Inputs of unknown rank, named by the model's tensors.

A rule that fixes the rank of an input of unknown rank makes symbols for it, named by the spec's
input: ``rank(X)`` and the dims ``X.shape[i]``.  In a model two nodes' ``X`` are two tensors, and
one tensor is read by many nodes.  The model names these symbols by the tensor (``rank(image) ==
4``, ``image.shape[1] == 3``), one set per tensor: what two nodes need of one tensor is stated of
the same dims (and found contradictory when it is), and what they need of two tensors never is.
A tensor's dims are named symbols, as a graph input's named dims are: they are the same at every
node that reads the tensor, so they flow on into outputs and into the model's input domain.

>>> from shapecheck.registry import default_registry
>>> from shapecheck.solver import solve
>>> from shapecheck.types import parse_type
>>> spec = default_registry().resolve("Conv", 18)
>>> r = solve(spec, {"X": parse_type("float"), "W": parse_type("float[8,3,3,3]")}, {})
>>> r.conditions[:2]
['rank(X) == 4', 'X.shape[1] == 3']
>>> UnrankedNames().named(r, {"X": "image"}).conditions[:2]
['rank(image) == 4', 'image.shape[1] == 3']
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..containers import dims_in
from ..dims import is_symbolic, is_unknown, symbol
from ..result import Result
from ..solver.rename import renamed_result

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

_RANK = re.compile(r"rank\((.+)\)")
_AXIS = re.compile(r"(.+)\.shape\[(\d+)\]")


def unranked_owners(sources: dict[str, tuple]) -> dict[str, str]:
    """Spec input -> model tensor, for the inputs of unknown rank among a node's bound inputs
    (``node.bind_inputs``' sources: spec input -> (tensor, type, where it came from))."""
    return {k: v[0] for k, v in sources.items() if v[0] and v[1] is not None and getattr(v[1], "shape", 0) is None}


class UnrankedNames:
    """The symbols of each tensor of unknown rank, for one model check."""

    def __init__(self) -> None:
        self.dims: dict[tuple[str, int], Any] = {}   # (tensor, axis) -> its dim, one per tensor and axis

    def named(self, result: Result, owners: dict[str, str]) -> Result:
        """``result`` with the symbols it made for the inputs of ``owners`` (spec input -> tensor)
        named by their tensors; the same result when it made none."""
        back = {}
        for s in _symbols(result):
            m = _RANK.fullmatch(s.name)
            if m is not None and not is_unknown(s) and m.group(1) in owners:
                back[s] = sympy.Symbol(f"rank({owners[m.group(1)]})", **s.assumptions0)
                continue
            m = _AXIS.fullmatch(s.name)
            if m is not None and is_unknown(s) and m.group(1) in owners:
                key = (owners[m.group(1)], int(m.group(2)))
                if key not in self.dims:
                    self.dims[key] = symbol(f"{key[0]}.shape[{key[1]}]")
                back[s] = self.dims[key]
        if not back:
            return result
        words = "|".join(re.escape(k) for k in sorted(owners, key=len, reverse=True))
        pattern = re.compile(rf"(?<=rank\()({words})(?=\))|(?<![\w.\]])({words})(?=\.shape\[)")
        return renamed_result(result, back, lambda text: pattern.sub(lambda m: owners[m.group()], text))


def _symbols(result: Result) -> set:
    out: set = set()
    for rel in result.relations.values():
        if rel is not None:
            out |= rel.free_symbols
    for t in result.outputs.values():
        for d in dims_in(t):
            if is_symbolic(d):
                out |= d.free_symbols
    return out


__all__ = ["UnrankedNames", "unranked_owners"]
