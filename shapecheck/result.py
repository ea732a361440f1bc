"""The one result type: produced by the solver, read by reports, model checks, verify and diff.

>>> r = Result(status="valid", spec="ScatterND-16")
>>> r.ok
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .types import TensorType
from .dims import is_symbolic, is_unknown

if TYPE_CHECKING:
    pass

STATUSES = ("valid", "conditional", "invalid")
# Per constraint: proved, refuted, conditional (holds under stated relations),
# unchecked (needs tensor contents known only at run time), skipped (meaningless once another failed).
CONSTRAINT_STATUSES = ("proved", "refuted", "conditional", "unchecked", "skipped")


class Indexable:
    """Reports index like the JSON they mirror: ``report["nodes"][0]["status"]``, as well as by attribute."""

    __slots__ = ()   # a subclass of many instances (``NodeReport``) may then keep no ``__dict__``

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.to_dict()

    def keys(self) -> list[str]:
        return list(self.to_dict())

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)


@dataclass
class Finding(Indexable):
    """A violated constraint or a warning: which rule, its text, the values involved, a fix."""

    constraint: str
    rule: str
    message: str
    values: dict[str, str] = field(default_factory=dict)
    fix: str = ""
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"constraint": self.constraint, "rule": self.rule, "message": self.message}
        if self.values:
            d["values"] = dict(self.values)
        if self.detail:
            d["detail"] = self.detail
        if self.fix:
            d["fix"] = self.fix
        return d

    def __str__(self) -> str:
        s = f"{self.constraint} `{self.rule}`: {self.message}"
        if self.detail:
            s += f" ({self.detail})"
        return s


@dataclass
class ConstraintResult(Indexable):
    id: str
    rule: str
    message: str
    status: str
    conditions: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "rule": self.rule, "status": self.status}
        if self.conditions:
            d["conditions"] = list(self.conditions)
        if self.values:
            d["values"] = dict(self.values)
        return d


@dataclass
class Result(Indexable):
    """What the solver concluded about one operator query."""

    status: str
    spec: str
    op: str = ""
    opset: int | None = None
    outputs: dict[str, TensorType] = field(default_factory=dict)
    conditions: list[str] = field(default_factory=list)
    violations: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    constraints: list[ConstraintResult] = field(default_factory=list)
    # which constraint each condition comes from, for reports that group them
    condition_sources: dict[str, list[str]] = field(default_factory=dict)
    # each condition as an object (a Rel, an AnyOf for a disjunction; .sympy() for sympy's form), None
    # where only the rule's text can say it (an unknown rank): the object behind the text, never re-parsed
    relations: dict[str, Any] = field(default_factory=dict, repr=False)
    # a constraint left to the runtime -> when it holds for every input value anyway (solver/loose.py)
    runtime_when: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return self.status != "invalid"

    @property
    def runtime_checks(self) -> list[str]:
        """Constraints left to the runtime: they read input values known only at run time (indices, sizes computed in float)."""
        ids = self.__dict__.get("_runtime")
        if ids is None:   # a cached result is read by every node that shares it
            ids = self.__dict__["_runtime"] = tuple(c.id for c in self.constraints if c.status == "unchecked")
        return list(ids)

    @property
    def has_unknowns(self) -> bool:
        """Whether an output holds an unknown dim (a ``Dummy``), from an input or made by the solve.

        Cached results are shared by every node with the same signature, so a node makes the
        unknowns a solve made its own (``model.node.Unknowns``); a result without any needs
        nothing done.  Kept with the result, which is not changed once solved."""
        made = self.__dict__.get("_unknowns")
        if made is None:
            made = self.__dict__["_unknowns"] = any(
                is_unknown(s) for t in self.outputs.values() for d in (t.shape or ()) + (t.sym or ()) + (t.bounds or ())
                if is_symbolic(d) for s in d.free_symbols)
        return made

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "spec": self.spec,
            "op": self.op,
            "opset": self.opset,
            "outputs": {k: str(v) for k, v in self.outputs.items()},
            "conditions": list(self.conditions),
            "violations": [v.to_dict() for v in self.violations],
            "warnings": [w.to_dict() for w in self.warnings],
            "constraints": [c.to_dict() for c in self.constraints],
            "runtime_checks": self.runtime_checks,
        }
