"""The records of an input domain: one simple relation over input dims, and where it comes from.

A ``DomainRelation`` is what a report shows and a program reads: its kind, the input dims it
names, its text, the numbers that define it, whether it is an error, and the nodes, constraints
and constants it comes from (``Source``).

>>> r = DomainRelation("bound", ("seq",), "1 <= seq <= 64", lo=1, hi=64,
...                    sources=[Source("/Add", "Add", "Add-14", ("C1",), ("initializer 'pos' float[64,16]",))])
>>> r.to_dict()["sources"][0]["constants"], str(r)
(["initializer 'pos' float[64,16]"], '1 <= seq <= 64')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..result import Indexable

# kind: what form the relation has
#   bound         lo <= dim <= hi (either side may be open)
#   values        the dim takes only these values (one value: an equality with a constant)
#   divisibility  dim % step == residue (with its bounds)
#   equality      two expressions of input dims are equal (N == M)
#   linear        a linear inequality over several dims (past + seq <= 64)
#   condition     anything else, simplified as far as it was proved
#   refuted       no input meets it
KINDS = ("bound", "values", "divisibility", "equality", "linear", "condition", "refuted")


@dataclass(frozen=True)
class Source:
    """Where a relation comes from: the node that needs it, the constraints it comes from, and the
    constants (initializers, Constant nodes) behind the sizes in it."""

    node: str
    op: str
    spec: str
    constraints: tuple = ()
    constants: tuple = ()
    rules: tuple = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"node": self.node, "op": self.op, "spec": self.spec, "constraints": list(self.constraints)}
        if self.rules:
            d["rules"] = list(self.rules)
        if self.constants:
            d["constants"] = list(self.constants)
        return d


@dataclass
class DomainRelation(Indexable):
    """One relation of the input domain (see ``KINDS``)."""

    kind: str
    dims: tuple
    text: str
    severity: str = "info"            # "error": the model runs only at fixed sizes of a dynamic dim, or never
    lo: Optional[int] = None
    hi: Optional[int] = None
    step: Optional[int] = None
    residue: Optional[int] = None
    values: Optional[tuple] = None
    sources: list = field(default_factory=list)
    relation: Any = field(default=None, repr=False, compare=False)   # the Rel/AnyOf behind it, if any
    declared: bool = False            # stated by the model's own declarations (torch's recorded ranges)
    # where the nodes need different parts of a dim's set: each node and the set it needs by itself
    # (``H % 2 == 0 and H >= 2``: a MaxPool needs ``H >= 2``, a Concat with the skip ``H % 2 == 0 and H >= 2``)
    needs: tuple = ()
    top_recorded: bool = False        # needed by nodes, but its top only by the range the exporter recorded
    capped_by: tuple = ()             # the nodes whose own need has a top (the others need only its bottom)
    # of a dim bounded (or pinned) only by its recorded range: the graph checked again without the record's
    # top (``model/recorded.py``), and the top it then needs (None: none at all)
    graph_checked: bool = False
    where_run: bool = False           # needed only where a branch or a loop body runs (never pins, never excludes)
    graph_top: Optional[int] = None

    @property
    def pins(self) -> bool:
        """Whether the relation fixes a dynamic dim to a few values (an error)."""
        return self.kind == "values" or (self.kind == "condition" and self.severity == "error")

    @property
    def opaque(self) -> bool:
        """Whether it is over types or shapes shapecheck does not infer here (``dtype(X) in T`` after a
        custom op), not over the input dims: no size condition."""
        return not self.dims and self.relation is None and self.kind == "condition"

    @property
    def caps(self) -> bool:
        """Whether the relation caps its dims from above (``1 <= seq <= 64``, ``past + seq <= 64``): with a
        constant behind it, that constant's size is what a user who needs larger inputs changes."""
        if self.kind == "bound":
            return self.hi is not None
        rel = self.relation
        if self.kind != "linear" or rel is None or not hasattr(rel, "op"):
            return False
        number = lambda x: type(x) is int or getattr(x, "is_Integer", False)
        return (rel.op in ("<=", "<") and number(rel.rhs)) or (rel.op in (">=", ">") and number(rel.lhs))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "dims": list(self.dims), "text": self.text, "severity": self.severity}
        for key in ("lo", "hi", "step", "residue"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.values is not None:
            d["values"] = list(self.values)
        if self.declared:
            d["declared"] = True
        d["sources"] = [s.to_dict() for s in self.sources]
        if self.needs:
            d["needs"] = [{"node": n, "needs": t} for n, t in self.needs]
        if self.top_recorded:
            d["top_recorded"] = True
        if self.graph_checked:
            d["graph_top"] = self.graph_top
        if self.where_run:
            d["where_run"] = True
        return d

    def past_record(self) -> str:
        """What the graph allows past the recorded range (``model/recorded.py``), or "" where unchecked.

        >>> r = DomainRelation("bound", ("seq",), "1 <= seq <= 32", lo=1, hi=32, declared=True, graph_checked=True, graph_top=64)
        >>> r.past_record()
        'the graph itself is valid up to seq <= 64, checked without the recorded top'
        """
        if not self.graph_checked or len(self.dims) != 1:
            return ""
        name, removed = self.dims[0], "range" if self.kind == "values" else "top"
        if self.graph_top is None:
            sizes = f"every {name} >= {self.lo}" if removed == "top" and self.lo is not None else f"every size of {name}"
            return f"the graph itself is valid for {sizes}, checked without the recorded {removed}"
        if self.graph_top == self.hi:
            return "the exporter recorded the same top"
        return f"the graph itself is valid up to {name} <= {self.graph_top}, checked without the recorded {removed}"


__all__ = ["DomainRelation", "Source", "KINDS"]
