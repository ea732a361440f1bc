"""What a model check returns: one ``NodeReport`` per node, one ``DeclarationReport`` per
declaration compared with inference, and the ``ModelReport`` that holds them.

Reports are plain data: renderers (``shapecheck.report``) read them, nothing parses them back.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..result import Finding, Indexable
from ..types import TensorType


@dataclass(slots=True)   # one per node of a 60k-node model: no ``__dict__`` each
class NodeReport(Indexable):
    name: str
    op_type: str
    domain: str
    opset: int | None
    spec: str
    status: str
    location: str = ""
    output_types: dict[str, TensorType] = field(default_factory=dict)
    conditions: list[str] = field(default_factory=list)
    violations: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    # spec input name -> (tensor, its type when the node was checked, where that type came from)
    input_types: dict[str, tuple[str, TensorType | None, str]] = field(default_factory=dict)
    reason: str = ""          # why an "unchecked" node was not checked
    # constraints not proved because they read values known only at run time (checked by the runtime)
    runtime_checks: list[str] = field(default_factory=list)
    # a constraint of runtime_checks -> when it holds for every input value anyway (solver/loose.py)
    runtime_when: dict[str, str] | None = None

    # the text forms are made when a report is read, not for every node of every check
    @property
    def outputs(self) -> dict[str, str]:
        """Each output's inferred type as text: ``{"output": "float[N,4]"}``."""
        return {k: str(t) for k, t in self.output_types.items()}

    @property
    def inputs(self) -> dict[str, dict[str, str]]:
        """Each input's tensor, type as text and source: ``{"data": {"tensor": "x", "type": ..., "source": ...}}``."""
        return {k: {"tensor": n, "type": "?" if t is None else str(t), "source": src}
                for k, (n, t, src) in self.input_types.items()}

    def plain(self) -> "NodeReport":
        """This report as a ``NodeReport`` of its own (``replay.Replayed`` reads its fields from another's)."""
        return self

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "op_type": self.op_type, "domain": self.domain, "opset": self.opset,
             "spec": self.spec, "status": self.status, "location": self.location,
             "inputs": self.inputs, "outputs": self.outputs, "conditions": self.conditions,
             "violations": [v.to_dict() for v in self.violations],
             "warnings": [w.to_dict() for w in self.warnings], "runtime_checks": list(self.runtime_checks),
             **({"runtime_when": dict(self.runtime_when)} if self.runtime_when else {})}
        if self.reason:
            d["reason"] = self.reason
        return d


@dataclass
class DeclarationReport(Indexable):
    """One declaration compared with inference."""

    tensor: str
    node: str
    kind: str            # graph output | value_info | subgraph output | port
    declared_type: Any   # the declared and inferred types (or their texts): written as text when asked,
    inferred_type: Any   # since most declarations agree and no one reads them
    status: str          # agrees | refines | condition | contradicts
    severity: str        # info | warning | error
    message: str = ""
    fix: str = ""
    conditions: list[str] = field(default_factory=list)
    # the relations of ``conditions`` (``Rel``s), which ``refinements`` evaluates at sizes the domain admits
    relations: list = field(default_factory=list, repr=False, compare=False)

    @property
    def declared(self) -> str:
        return str(self.declared_type)

    @property
    def inferred(self) -> str:
        return str(self.inferred_type)

    def to_dict(self) -> dict[str, Any]:
        d = {"tensor": self.tensor, "node": self.node, "kind": self.kind, "declared": self.declared,
             "inferred": self.inferred, "status": self.status, "severity": self.severity}
        for key in ("message", "fix"):
            if getattr(self, key):
                d[key] = getattr(self, key)
        if self.conditions:
            d["conditions"] = self.conditions
        return d


FED_BY_INVALID = "input from invalid node"   # the reason of a node an invalid node feeds


def node_counts(nodes: list, skipped: int, dead: int) -> dict[str, int]:
    """The summary's counts: nodes by status, those fed by an invalid node apart from the unchecked ones."""
    counts = {"checked": 0, "valid": 0, "conditional": 0, "invalid": 0, "unchecked": 0, "skipped": skipped}
    if dead:
        counts["dead"] = dead
    for n in nodes:
        counts[n.status] = counts.get(n.status, 0) + 1
    counts["checked"] = len(nodes) - counts["unchecked"]
    fed = sum(n.status == "unchecked" and n.reason.startswith(FED_BY_INVALID) for n in nodes)
    if fed:   # not a spec's gap: an invalid node feeds them, and its finding is the one to fix
        counts["unchecked"] -= fed
        counts["fed_by_invalid"] = fed
    return counts


@dataclass
class ModelReport(Indexable):
    model: str
    format: str
    strict: bool = False
    nodes: list[NodeReport] = field(default_factory=list)
    assumptions: list[dict[str, Any]] = field(default_factory=list)
    declarations: list[DeclarationReport] = field(default_factory=list)
    violations: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=dict)
    coverage: dict[str, Any] = field(default_factory=dict)
    # sizes known only at run time (NonZero's count, a Loop's trip count): name, where, bounds
    symbols: list[dict[str, Any]] = field(default_factory=list)
    types: dict[str, TensorType] = field(default_factory=dict, repr=False)
    # the input domain: where the model is valid, as simple relations over its input dims
    domain: Any = None

    def without(self, ignored: Any) -> "ModelReport":
        """A copy without the findings ``ignored(kind, spec)`` selects (``C7``, ``pinned``,
        ``declaration``, ``runtime-check``, ``condition``): configuration's ``ignore``/``select``.
        A node whose every violation is left out is valid (or conditional) again."""
        from dataclasses import replace
        nodes = []
        for n in self.nodes:
            kept = [f for f in n.violations if not ignored(f.constraint, n.spec)]
            warns = [w for w in n.warnings if not ignored(w.constraint, n.spec)]
            checks = [] if ignored("runtime-check", n.spec) else [c for c in n.runtime_checks if not ignored(c, n.spec)]
            status = n.status if kept or n.status != "invalid" else ("conditional" if n.conditions else "valid")
            nodes.append(replace(n.plain(), violations=kept, warnings=warns, runtime_checks=checks, status=status))
        out = replace(self, nodes=nodes, violations=[f for f in self.violations if not ignored(f.constraint, "")],
                      declarations=[d for d in self.declarations if d.status == "agrees" or not ignored("declaration", "")])
        out.summary = dict(self.summary, **{k: sum(n.status == k for n in nodes) for k in ("valid", "conditional", "invalid")})
        out.conditions_ignored = self.conditions_ignored or ignored("condition", "")
        return out

    conditions_ignored: bool = False   # configuration ignores "condition": --strict does not fail on the domain

    @property
    def failed(self) -> bool:
        if self.violations or any(n.status == "invalid" for n in self.nodes):
            return True
        if any(d.severity == "error" for d in self.declarations):
            return True
        # the exporter's recorded range is the model's contract, not a condition of the graph
        needed = self.domain is not None and any(r.severity == "error" or not r.declared for r in self.domain.relations)
        if self.strict and ((needed and not self.conditions_ignored)
                            or any(d.status == "condition" for d in self.declarations)
                            or (self.domain is None and any(a["kind"] == "condition" for a in self.assumptions))
                            or any(d.status == "contradicts" for d in self.declarations)
                            or any(n.status == "unchecked" for n in self.nodes)
                            # nodes of which nothing is inferred (no spec, no inference to fall back on)
                            or self.coverage.get("unknown", 0)):
            return True
        return False

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "format": self.format, "strict": self.strict,
                "nodes": [n.to_dict() for n in self.nodes], "assumptions": self.assumptions,
                "declarations": [d.to_dict() for d in self.declarations if d.status != "agrees"],
                "violations": [v.to_dict() for v in self.violations], "notes": self.notes,
                "summary": self.summary, "coverage": self.coverage, "symbols": self.symbols,
                "domain": self.domain.to_dict() if self.domain is not None else None,
                "ok": not self.failed}
