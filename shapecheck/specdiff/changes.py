"""The result types of a spec diff, and its structural layer: inputs, type sets, attributes,
constraints matched by meaning, deprecation (no operator is named here)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..findings import ATTRIBUTE_TYPE, UNKNOWN_ATTRIBUTE
from ..registry import Spec
from ..notation import Node, names_in, substitute, unparse

CATEGORIES = ("operator", "inputs", "types", "attributes", "constraints", "deprecation")
# findings the solver reports for attributes a spec does not declare / of the wrong type;
# the executor raises UsageError for these instead of ConstraintError
_ATTR_FINDINGS = (UNKNOWN_ATTRIBUTE, ATTRIBUTE_TYPE)
# cross-operator pairs that diff_all adds to the per-operator version chains


# ---------------------------------------------------------------- result types

@dataclass
class Change:
    """One structural difference: category, kind (added/removed/changed/...), subject, both sides."""

    category: str
    kind: str
    subject: str
    a: str = ""
    b: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "kind": self.kind, "subject": self.subject, "a": self.a, "b": self.b}


@dataclass
class Witness:
    """A concrete input one spec accepts and the other rejects (``constraint`` of ``rejected_by``)."""

    label: str
    accepted_by: str
    rejected_by: str
    constraint: str
    rule: str
    message: str
    inputs: dict[str, dict[str, str]]   # spec name -> input name -> type with value
    attrs: dict[str, dict[str, Any]]    # spec name -> attributes given
    kind: str = ""                      # the mutation that found it: attr, dtype, negate, shape, example
    confirmed: bool = False
    executor: str = ""                  # what the executor said on the rejecting side
    # spec name -> input name -> the array itself: ``inputs`` is its text, which abbreviates a large value
    arrays: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "accepted_by": self.accepted_by, "rejected_by": self.rejected_by,
                "constraint": self.constraint, "rule": self.rule, "message": self.message,
                "inputs": self.inputs, "attrs": self.attrs, "kind": self.kind, "confirmed": self.confirmed,
                "executor": self.executor}


@dataclass
class SpecDiff:
    """Everything ``diff`` found between spec ``a`` and spec ``b``."""

    a: str
    b: str
    cross_operator: bool
    changes: list[Change] = field(default_factory=list)
    witnesses: list[Witness] = field(default_factory=list)
    equivalent: bool = False
    compared: str = ""
    notes: list[str] = field(default_factory=list)

    def by_category(self, category: str) -> list[Change]:
        return [c for c in self.changes if c.category == category]

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "cross_operator": self.cross_operator, "equivalent": self.equivalent,
                "compared": self.compared, "notes": list(self.notes),
                "changes": {cat: [c.to_dict() for c in self.by_category(cat)] for cat in CATEGORIES},
                "witnesses": [w.to_dict() for w in self.witnesses]}


# ---------------------------------------------------------------- structure

def allowed_values(spec: Spec) -> dict[str, frozenset]:
    """Attribute values a spec allows, read from constraints of the form ``ATTR in {...}``.

    >>> from shapecheck.registry import default_registry
    >>> sorted(allowed_values(default_registry().get("ScatterND-16"))["reduction"])
    ['add', 'mul', 'none']
    """
    out: dict[str, frozenset] = {}
    for rule in spec.constraints:
        t = rule.tree
        if (t.kind == "compare" and t.value == ("in",) and t.children[0].kind == "name"
                and t.children[0].value in spec.attributes and t.children[1].kind == "set"
                and all(c.kind in ("str", "num") for c in t.children[1].children)):
            vals = frozenset(c.value for c in t.children[1].children)
            out[t.children[0].value] = out.get(t.children[0].value, vals) & vals
    return out


def _unitem(n: Node, names: set[str]) -> Node:
    """``item(x)`` -> ``x`` for inputs that stand for the other spec's attribute ``x``."""
    if n.kind == "call" and n.value == "item" and len(n.children) == 1 and n.children[0].kind == "name" \
            and n.children[0].value in names:
        return n.children[0]
    return Node(n.kind, n.value, tuple(_unitem(c, names) if isinstance(c, Node) else c for c in n.children))


def _canon(spec: Spec, other: Spec) -> Callable[[Node], Node]:
    """A normaliser of rule trees: lets inlined, type variables named by their first input,
    an input standing for the other spec's attribute read as that attribute."""
    env: dict[str, Node] = {}
    for tv in spec.types:
        users = [i.name for i in spec.inputs if i.type == tv]
        if users:
            env[tv] = Node("name", f"types_of_{users[0]}")
    lets = spec.let_trees
    converted = {i.name for i in spec.inputs if i.name in other.attributes}

    def canon(tree: Node) -> Node:
        # substitute() inlines lets that refer to other lets as well
        return _unitem(substitute(substitute(tree, lets), env), converted)
    return canon


def _fmt_set(xs: Iterable) -> str:
    return "{" + ", ".join(sorted(map(str, xs))) + "}"


def _structural(a: Spec, b: Spec) -> list[Change]:
    """The structural changes from ``a`` to ``b``: operator, inputs, type sets, attributes, constraints, deprecation."""
    out: list[Change] = []
    if (a.domain, a.op) != (b.domain, b.op):
        out.append(Change("operator", "renamed", "operator", a.qualified_op, b.qualified_op))
    moved = _input_changes(a, b, out)
    _type_changes(a, b, out)
    _attribute_changes(a, b, moved, out)
    out += _constraint_changes(a, b)
    if bool(a.deprecated) != bool(b.deprecated):
        out.append(Change("deprecation", "deprecated" if b.deprecated else "undeprecated", b.name if b.deprecated else a.name,
                          a.deprecated or "not deprecated", b.deprecated or "not deprecated"))
    return out


def _input_changes(a: Spec, b: Spec, out: list[Change]) -> set[str]:
    """Inputs added, removed, made optional; an input on one side named like an attribute on the
    other is that attribute moved (the names moved are returned)."""
    ia, ib = {i.name: i for i in a.inputs}, {i.name: i for i in b.inputs}
    moved = set()
    for name in sorted(set(ia) ^ set(ib)):
        if name in ib and name in a.attributes:
            moved.add(name)
            out.append(Change("inputs", "attribute → input", name, f"attribute {a.attributes[name].type} "
                              f"(default {a.attributes[name].default!r})", f"input of type {ib[name].type} {_fmt_set(b.types.get(ib[name].type, ()))}"))
        elif name in ia and name in b.attributes:
            moved.add(name)
            out.append(Change("inputs", "input → attribute", name, f"input of type {ia[name].type}",
                              f"attribute {b.attributes[name].type} (default {b.attributes[name].default!r})"))
        elif name in ib:
            out.append(Change("inputs", "added", name, "", f"{ib[name].type}: {ib[name].doc}"))
        else:
            out.append(Change("inputs", "removed", name, f"{ia[name].type}: {ia[name].doc}", ""))
    for name in sorted(set(ia) & set(ib)):
        if ia[name].optional != ib[name].optional:
            out.append(Change("inputs", "optional" if ib[name].optional else "required", name,
                              str(ia[name].optional), str(ib[name].optional)))
    return moved


def _type_changes(a: Spec, b: Spec, out: list[Change]) -> None:
    """Type sets, matched through the inputs that use them (Tind vs T_IND via indices)."""
    ib = {i.name: i for i in b.inputs}
    pairs: dict[tuple[str, str], list[str]] = {}
    for i in a.inputs:
        if i.name in ib:
            pairs.setdefault((i.type, ib[i.name].type), []).append(i.name)
    for (ta, tb), users in sorted(pairs.items(), key=lambda kv: kv[1]):
        sa, sb = a.types.get(ta, frozenset()), b.types.get(tb, frozenset())
        subject = (ta if ta == tb else f"{ta} → {tb}") + f" ({', '.join(users)})"
        if sb - sa:
            out.append(Change("types", "added", subject, "", _fmt_set(sb - sa)))
        if sa - sb:
            out.append(Change("types", "removed", subject, _fmt_set(sa - sb), ""))


def _attribute_changes(a: Spec, b: Spec, moved: set[str], out: list[Change]) -> None:
    """Attributes added, removed, retyped, with another default or other allowed values."""
    allowed_a, allowed_b = allowed_values(a), allowed_values(b)
    for name in sorted(set(a.attributes) | set(b.attributes)):
        if name in moved:
            continue
        da, db = a.attributes.get(name), b.attributes.get(name)
        if da is None:
            out.append(Change("attributes", "added", name, "", f"{db.type}, default {db.default!r}"
                              + (f", one of {_fmt_set(allowed_b[name])}" if name in allowed_b else "")))
            continue
        if db is None:
            out.append(Change("attributes", "removed", name, f"{da.type}, default {da.default!r}", ""))
            continue
        if da.type != db.type:
            out.append(Change("attributes", "type changed", name, da.type, db.type))
        if da.default != db.default:
            out.append(Change("attributes", "default changed", name, repr(da.default), repr(db.default)))
        va, vb = allowed_a.get(name), allowed_b.get(name)
        if va is not None and vb is not None:
            if vb - va:
                out.append(Change("attributes", "values added", name, _fmt_set(va), _fmt_set(vb - va)))
            if va - vb:
                out.append(Change("attributes", "values removed", name, _fmt_set(va - vb), _fmt_set(vb)))
        elif va != vb:
            out.append(Change("attributes", "values unrestricted" if vb is None else "values restricted",
                              name, _fmt_set(va) if va else "any", _fmt_set(vb) if vb else "any"))


def _constraint_changes(a: Spec, b: Spec) -> list[Change]:
    ca, cb = _canon(a, b), _canon(b, a)
    ka = {r.id: ca(r.tree) for r in a.constraints}
    kb = {r.id: cb(r.tree) for r in b.constraints}
    left = [r for r in a.constraints]
    right = [r for r in b.constraints]
    # same meaning (canonical text) = unchanged, whatever the ids
    for r in list(left):
        match = next((s for s in right if unparse(kb[s.id]) == unparse(ka[r.id])), None)
        if match is not None:
            left.remove(r)
            right.remove(match)
    out = []
    # a rule reworded: same top-level form over the same names; prefer the same id
    for r in list(left):
        ta = ka[r.id]
        cands = [s for s in right if (kb[s.id].kind, kb[s.id].value) == (ta.kind, ta.value)
                 and names_in(kb[s.id]) == names_in(ta)]
        if cands:
            s = next((c for c in cands if c.id == r.id), cands[0])
            left.remove(r)
            right.remove(s)
            out.append(Change("constraints", "changed", f"{r.id} → {s.id}" if r.id != s.id else r.id, r.rule, s.rule))
    out += [Change("constraints", "removed", r.id, r.rule, "") for r in left]
    out += [Change("constraints", "added", s.id, "", s.rule) for s in right]
    return out
