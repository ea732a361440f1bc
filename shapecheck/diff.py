"""What changed between two operator versions, with concrete witnesses.

Two layers, both generic over any two specs (no operator is named here):

* structure: inputs, type sets (matched through the inputs that use them), attributes
  (defaults, allowed values read from ``ATTR in {...}`` constraints), constraints (matched
  by meaning: canonical text after substituting lets) and deprecation;
* semantics: small concrete inputs, built from both specs' examples and mutated (dtypes,
  attribute values, negated index values, shapes), run through both solvers; every input one
  spec accepts and the other rejects is shrunk to the smallest such input, then confirmed by
  running it through the executor on both sides.

>>> d = diff("ScatterND-16", "ScatterND-18")
>>> [(w.label, w.accepted_by, w.constraint) for w in d.witnesses]
[("reduction = 'max'", 'ScatterND-18', 'C9'), ("reduction = 'min'", 'ScatterND-18', 'C9')]
"""
from __future__ import annotations

import dataclasses

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .errors import ConstraintError, UsageError
from .execute import run_spec
from .solver import solve
from .spec.load import Registry, Spec, default_registry
from .spec.notation import Node, names_in, parse, substitute, unparse
from .types import ELEMENT_TYPES, numpy_dtype, parse_type, tensor_type_of

CATEGORIES = ("operator", "inputs", "types", "attributes", "constraints", "deprecation")
# findings the solver reports for attributes a spec does not declare / of the wrong type;
# the executor raises UsageError for these instead of ConstraintError
_ATTR_FINDINGS = ("A1", "A2")
# cross-operator pairs that diff_all adds to the per-operator version chains
CROSS_PAIRS = (("Scatter-11", "ScatterElements-11"), ("ScatterElements-11", "openvino:ScatterElementsUpdate-3"))


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


# ---------------------------------------------------------------- entry points

def diff(a: str, b: str, registry: Registry | None = None) -> SpecDiff:
    """Structural and semantic differences from spec ``a`` to spec ``b`` (names like ``ScatterND-16``).

    >>> diff("Scatter-11", "ScatterElements-11").cross_operator
    True
    """
    reg = registry or default_registry()
    for name in (a, b):
        if not isinstance(name, str) or not name.strip():
            raise UsageError(f"diff takes two spec names such as ScatterND-16, got {name!r}")
    return _diff_specs(reg.get(a), reg.get(b))


def diff_range(op: str, lo: int, hi: int, registry: Registry | None = None) -> list[SpecDiff]:
    """Every consecutive pair of versions of ``op`` between opsets ``lo`` and ``hi``.

    ``lo`` and ``hi`` resolve like opsets (the newest version at or below each).

    >>> [(d.a, d.b) for d in diff_range("ScatterND", 12, 18)]
    [('ScatterND-11', 'ScatterND-13'), ('ScatterND-13', 'ScatterND-16'), ('ScatterND-16', 'ScatterND-18')]
    """
    reg = registry or default_registry()
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (lo, hi)) or lo > hi:
        raise UsageError(f"bad opset range {lo!r}..{hi!r}: expected integers LO <= HI such as 11..18")
    if not isinstance(op, str) or not op.strip():
        raise UsageError(f"diff --opset takes an operator name such as ScatterND, got {op!r}")
    top = reg.resolve(op, hi)          # UsageError for an unknown op or one that starts after hi
    versions = reg.versions(op)
    first = versions[0].version
    # a range that starts before the operator existed starts at its first version
    bottom = reg.resolve(op, max(lo, first))
    chain = [s for s in versions if bottom.version <= s.version <= top.version]
    if len(chain) < 2:
        raise UsageError(f"{op} has only one version in opsets {lo}..{hi} ({chain[0].name}): nothing to compare; "
                         f"its versions are {', '.join(s.name for s in versions)}")
    return [_diff_specs(x, y) for x, y in zip(chain, chain[1:])]


def diff_all(registry: Registry | None = None) -> list[SpecDiff]:
    """Every consecutive pair of every operator, then the cross-operator pairs in ``CROSS_PAIRS``."""
    reg = registry or default_registry()
    out = []
    for key in sorted(reg.by_op):
        chain = reg.by_op[key]
        out += [_diff_specs(x, y) for x, y in zip(chain, chain[1:])]
    for a, b in CROSS_PAIRS:
        if a in reg.by_name and b in reg.by_name:
            out.append(_diff_specs(reg.by_name[a], reg.by_name[b]))
    return out


_CACHE: dict[tuple[int, int], tuple[Spec, Spec, SpecDiff]] = {}


def _diff_specs(a: Spec, b: Spec) -> SpecDiff:
    # specs are compiled once per registry and never mutated, so a diff can be reused; the
    # entry keeps both specs alive so their ids cannot be reused by other specs
    hit = _CACHE.get((id(a), id(b)))
    if hit is None or hit[0] is not a or hit[1] is not b:
        d = SpecDiff(a.name, b.name, (a.domain, a.op) != (b.domain, b.op))
        d.changes = _structural(a, b)
        d.witnesses, n_cands = _semantic(a, b)
        _conclude(d, a, b, n_cands)
        hit = _CACHE[(id(a), id(b))] = (a, b, d)
    return hit[2]


def _conclude(d: SpecDiff, a: Spec, b: Spec, n_cands: int) -> None:
    n_con = max(len(a.constraints), len(b.constraints))
    d.compared = (f"inputs, type sets, attributes (defaults and allowed values), {len(a.constraints)}+"
                  f"{len(b.constraints)} constraints by meaning, deprecation; {n_cands} concrete inputs "
                  f"(examples of both specs and their mutations) through both solvers")
    semantic = [c for c in d.changes if c.category != "operator"]
    d.equivalent = not semantic and not d.witnesses
    for s in (a, b):
        if s.deprecated and not (a.deprecated and b.deprecated):
            d.notes.append(f"{s.name} is deprecated: it rejects every input")
    if d.cross_operator:
        d.notes.append(f"cross-operator diff: {a.qualified_op} and {b.qualified_op} are different operators")
    if not [c for c in d.changes if c.category == "constraints"] and n_con:
        d.notes.append(f"the constraints are identical in meaning ({len(a.constraints)} compared)")
    if d.equivalent:
        d.notes.append("equivalent: both specs accept exactly the same inputs (compared: " + d.compared + ")")
    elif semantic and not d.witnesses:
        d.notes.append(f"no concrete input among {n_cands} separates the two specs; the changes above may "
                       "need inputs outside the search")


# ---------------------------------------------------------------- structure

def allowed_values(spec: Spec) -> dict[str, frozenset]:
    """Attribute values a spec allows, read from constraints of the form ``ATTR in {...}``.

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
    lets = {name: parse(text) for name, (text, _fn) in spec.lets.items()}
    converted = {i.name for i in spec.inputs if i.name in other.attributes}

    def canon(tree: Node) -> Node:
        # substitute() inlines lets that refer to other lets as well
        return _unitem(substitute(substitute(tree, lets), env), converted)
    return canon


def _fmt_set(xs: Iterable) -> str:
    return "{" + ", ".join(sorted(map(str, xs))) + "}"


def _structural(a: Spec, b: Spec) -> list[Change]:
    out: list[Change] = []
    if (a.domain, a.op) != (b.domain, b.op):
        out.append(Change("operator", "renamed", "operator", a.qualified_op, b.qualified_op))
    # inputs; an input on one side named like an attribute on the other is that attribute moved
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
    # type sets, matched through the inputs that use them (Tind vs T_IND via indices)
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
    # attributes
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
    out += _constraint_changes(a, b)
    if bool(a.deprecated) != bool(b.deprecated):
        out.append(Change("deprecation", "deprecated" if b.deprecated else "undeprecated", b.name if b.deprecated else a.name,
                          a.deprecated or "not deprecated", b.deprecated or "not deprecated"))
    return out


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


# ---------------------------------------------------------------- candidates

@dataclass
class _Cand:
    tensors: dict[str, np.ndarray]
    attrs: dict[str, Any]
    kind: str = "example"      # example | attr | dtype | negate | shape
    label: str = ""

    def cost(self) -> tuple:
        """Fewer elements first, then fewer non-zero values, then smaller integers."""
        size = sum(t.size for t in self.tensors.values())
        nonzero = sum(int(np.count_nonzero(t)) for t in self.tensors.values() if t.dtype.kind != "O")
        mag = sum(int(np.abs(t.astype(np.int64)).sum()) for t in self.tensors.values() if t.dtype.kind in "iu")
        return size, nonzero, mag

    def key(self) -> tuple:
        return (tuple((n, str(t.dtype), t.shape, t.tobytes() if t.dtype.kind != "O" else repr(t.tolist()))
                      for n, t in sorted(self.tensors.items())), repr(sorted(self.attrs.items())))


_KIND_ORDER = {"attr": 0, "dtype": 1, "negate": 2, "shape": 3, "example": 4}


def _materialize(text: str, name: str) -> np.ndarray | None:
    """An example's input as an array: its value, or zeros (zero is a valid index everywhere)."""
    t = parse_type(text, name)
    if t.dtype is None or t.shape is None:
        return None
    if t.value is not None:
        return t.value.astype(object) if t.dtype == "string" else t.value
    # symbolic dims get a small size; the shrinker makes it smaller if it can
    shape = tuple(d if type(d) is int else 2 for d in t.shape)
    arr = np.zeros(shape, numpy_dtype(t.dtype))
    return np.full(shape, "", object) if t.dtype == "string" else arr


def _cast(arr: np.ndarray, dtype: str) -> np.ndarray:
    src = arr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if src.dtype.kind == "O":
            try:
                src = src.astype(np.float64)
            except (TypeError, ValueError):
                src = np.zeros(src.shape)
        if src.dtype.kind == "c" and not dtype.startswith("complex"):
            src = src.real
        if dtype == "string":
            return src.astype(str).astype(object)
        return src.astype(numpy_dtype(dtype))


def _templates(spec: Spec) -> dict[str, np.ndarray]:
    """One materialized value per input name from the spec's examples (for one-sided inputs)."""
    out = {}
    for ex in spec.examples:
        for name, text in ex.inputs.items():
            if name not in out:
                arr = _materialize(text, name)
                if arr is not None:
                    out[name] = arr
    return out


class _Pair:
    """Both specs, with projection of a candidate onto either and a memo of solver outcomes."""

    def __init__(self, a: Spec, b: Spec):
        self.a, self.b = a, b
        self.templates = {a.name: _templates(a), b.name: _templates(b)}
        self.memo: dict = {}

    def project(self, c: _Cand, s: Spec) -> tuple[dict, dict] | None:
        other = self.b if s is self.a else self.a
        names = {i.name for i in s.inputs}
        inputs, attrs = {}, {}
        for decl in s.inputs:
            if decl.name in c.tensors:
                inputs[decl.name] = c.tensors[decl.name]
            elif decl.name in other.attributes:
                # the other spec's attribute of the same name, as this spec's input
                value = c.attrs.get(decl.name, other.attributes[decl.name].default)
                tmpl = self.templates[s.name].get(decl.name, np.zeros((), np.int64))
                if tmpl.size != 1 or tmpl.dtype.kind not in "iu" or not isinstance(value, int):
                    return None
                inputs[decl.name] = np.full(tmpl.shape, value, tmpl.dtype)
            elif not decl.optional:
                return None
        for k, v in c.attrs.items():
            if k not in names:
                attrs[k] = v    # an attribute this spec lacks is passed on, so it is rejected (A1)
        for name, arr in c.tensors.items():
            if name not in names and name in s.attributes:
                # an attribute is one value: only a scalar or one-element vector stands for it
                if arr.size != 1 or arr.ndim > 1 or arr.dtype.kind not in "iu":
                    return None
                attrs[name] = int(arr.reshape(-1)[0])
        return inputs, attrs

    def outcome(self, c: _Cand) -> tuple | None:
        """(accepted by a, violations of a, accepted by b, violations of b), or None if not comparable."""
        key = c.key() if c.cost()[0] <= 4096 else None
        if key is not None and key in self.memo:
            return self.memo[key]
        res = []
        for s in (self.a, self.b):
            p = self.project(c, s)
            if p is None:
                res = None
                break
            try:
                r = solve(s, p[0], p[1], unknown_attrs="finding", hints=False)
            except UsageError:
                res = None
                break
            if r.status == "conditional":   # concrete inputs decide every rule; anything else is not a witness
                res = None
                break
            res += [r.status == "valid", tuple(v.constraint for v in r.violations)]
        out = tuple(res) if res is not None else None
        if key is not None:
            self.memo[key] = out
        return out


def _separates(o: tuple | None) -> tuple | None:
    """(direction, rejected constraint ids) when exactly one side accepts."""
    if o is None or o[0] == o[2]:
        return None
    return ("a", o[3]) if o[0] else ("b", o[1])


def _bases(p: _Pair) -> list[_Cand]:
    seen, out = set(), []
    for s in (p.a, p.b):
        for ex in s.examples:
            tensors = {}
            for name, text in ex.inputs.items():
                arr = _materialize(text, name)
                if arr is None:
                    break
                tensors[name] = arr
            else:
                c = _Cand(tensors, dict(ex.attrs), "example", f"example {ex.name!r}")
                o = p.outcome(c)
                if o is None:
                    continue
                c = _shrink(p, c, lambda x, o=o: p.outcome(x) == o)
                if c.key() not in seen:
                    seen.add(c.key())
                    out.append(c)
    return out


def _mutations(p: _Pair, c: _Cand) -> Iterable[_Cand]:
    specs = (p.a, p.b)
    dtypes = sorted(set().union(*(s.types.get(t, frozenset()) for s in specs for t in s.types)) & set(ELEMENT_TYPES))
    groups = []
    for s in specs:
        for tv in s.types:
            g = tuple(i.name for i in s.inputs if i.type == tv and i.name in c.tensors)
            if g and g not in groups:
                groups.append(g)
    for g in groups:
        for dt in dtypes:
            if all(tensor_type_of(c.tensors[n]).dtype == dt for n in g):
                continue
            t = dict(c.tensors)
            t.update({n: _cast(c.tensors[n], dt) for n in g})
            yield _Cand(t, dict(c.attrs), "dtype", f"{', '.join(g)} as {dt}")
    allowed: dict[str, set] = {}
    for s in specs:
        for k, v in allowed_values(s).items():
            allowed.setdefault(k, set()).update(v)
    for k in sorted(allowed):
        for v in sorted(allowed[k], key=str):
            if c.attrs.get(k) != v:
                yield _Cand(dict(c.tensors), {**c.attrs, k: v}, "attr", f"{k} = {v!r}")
    for n, arr in sorted(c.tensors.items()):
        if arr.dtype.kind == "i" and np.any(arr != 0):
            yield _Cand({**c.tensors, n: -arr}, dict(c.attrs), "negate", f"{n} negated")
        for ax in range(arr.ndim):
            if arr.dtype.kind != "O":   # one more (zero) entry along an axis, one fewer, one more axis
                pad = [(0, 0)] * arr.ndim
                pad[ax] = (0, 1)
                yield _Cand({**c.tensors, n: np.pad(arr, pad)}, dict(c.attrs), "shape", f"{n}.shape[{ax}] + 1")
            if arr.shape[ax] > 1:
                yield _Cand({**c.tensors, n: np.take(arr, range(arr.shape[ax] - 1), axis=ax)}, dict(c.attrs),
                            "shape", f"{n}.shape[{ax}] - 1")
        yield _Cand({**c.tensors, n: arr[..., None]}, dict(c.attrs), "shape", f"{n} with a trailing axis of 1")


def _shrink_steps(c: _Cand) -> Iterable[_Cand]:
    """Smaller or simpler variants: a dim size cut everywhere it occurs, one axis cut, values zeroed."""
    sizes = sorted({d for t in c.tensors.values() for d in t.shape if d > 1}, reverse=True)
    for v in sizes:
        for w in sorted({1, v // 2, v - 1}):
            for tail in (False, True):   # keep the first or the last entries (a negative index may be last)
                if 1 <= w < v:
                    yield _Cand({n: _cut_all(t, v, w, tail) for n, t in c.tensors.items()}, c.attrs, c.kind, c.label)
    for n, t in sorted(c.tensors.items()):
        for ax in range(t.ndim):
            if t.shape[ax] > 1:
                for i in (0, t.shape[ax] - 1):
                    yield _Cand({**c.tensors, n: np.take(t, [i], axis=ax)}, c.attrs, c.kind, c.label)
    for n, t in sorted(c.tensors.items()):
        if t.dtype.kind in "iufcb" and np.any(t != 0):
            yield _Cand({**c.tensors, n: np.zeros_like(t)}, c.attrs, c.kind, c.label)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield _Cand({**c.tensors, n: np.sign(t).astype(t.dtype)}, c.attrs, c.kind, c.label)


def _cut_all(t: np.ndarray, v: int, w: int, tail: bool) -> np.ndarray:
    for ax in range(t.ndim):
        if t.shape[ax] == v:
            t = np.take(t, range(v - w, v) if tail else range(w), axis=ax)
    return t


def _shrink(p: _Pair, c: _Cand, keep: Callable[[_Cand], bool]) -> _Cand:
    """Greedy: take the first smaller variant that still satisfies ``keep``, until none does."""
    for _ in range(200):
        for step in _shrink_steps(c):
            if step.cost() < c.cost() and keep(step):
                c = step
                break
        else:
            return c
    return c


def _semantic(a: Spec, b: Spec) -> tuple[list[Witness], int]:
    if any(i.variadic for i in a.inputs + b.inputs):
        return [], 0   # the witness search draws one array per input; variadic inputs: structural diff only
    p = _Pair(a, b)
    groups: dict[tuple, list[tuple]] = {}   # group key -> [(sort key, candidate, separation)]
    n = 0
    for base in _bases(p):
        base_sep = _separates(p.outcome(base))
        for c in [base, *_mutations(p, base)]:
            o = p.outcome(c)
            n += 1
            sep = _separates(o)
            if sep is None or (c is not base and sep == base_sep):
                continue   # a mutation counts only when it makes (or changes) the difference
            # attribute values and dtypes are differences of their own; other mutations are
            # grouped by the constraint that rejects them
            gkey = (sep[0], c.label) if c.kind in ("attr", "dtype") else (sep[0], sep[1])
            groups.setdefault(gkey, []).append(((len(sep[1]),) + c.cost() + (_KIND_ORDER[c.kind], c.label), c, sep))
    covered = {m[2] for members in groups.values() for m in members if m[1].kind in ("attr", "dtype")}
    out = []
    for gkey, members in groups.items():
        members.sort(key=lambda m: m[0])
        _, best, sep = members[0]
        if best.kind not in ("attr", "dtype") and sep in covered:
            continue   # the same rejection is already shown by an attribute or dtype witness
        for _, cand, sep in members[:3]:
            small = _shrink(p, cand, lambda x, sep=sep: _separates(p.outcome(x)) == sep)
            w = _witness(p, small, sep)
            if w.confirmed:
                break
            # zeros that the accepting side cannot run on (an integer division): the same input with ones
            alt = _nonzero(small)
            if alt is not None and _separates(p.outcome(alt)) == sep:
                w = _witness(p, alt, sep)
                if w.confirmed:
                    break
        out.append(w)
    out.sort(key=lambda w: (w.accepted_by != b.name, _KIND_ORDER[w.kind], w.label))
    return out, n


def _nonzero(c: _Cand) -> _Cand | None:
    """``c`` with each all-zero numeric tensor filled with ones instead, if it has any."""
    tensors = {n: (np.ones_like(t) if t.dtype.kind in "iufc" and t.size and not np.any(t) else t)
               for n, t in c.tensors.items()}
    if all(tensors[n] is c.tensors[n] for n in tensors):
        return None
    return dataclasses.replace(c, tensors=tensors)


def _witness(p: _Pair, c: _Cand, sep: tuple) -> Witness:
    acc, rej = (p.a, p.b) if sep[0] == "a" else (p.b, p.a)
    cid = sep[1][0]
    try:
        rule = rej.rule(cid)
        rule_text, message = rule.rule, rule.message
    except KeyError:
        rule_text = {"deprecated": f"{rej.op} is deprecated at opset {rej.version}"}.get(cid, "attributes are declared by the spec")
        message = rej.deprecated if cid == "deprecated" else ""
    proj = {s.name: p.project(c, s) for s in (p.a, p.b)}
    w = Witness(_describe(c, cid), acc.name, rej.name, cid, rule_text, message,
                {k: {n: str(tensor_type_of(t)) for n, t in v[0].items()} for k, v in proj.items()},
                {k: dict(v[1]) for k, v in proj.items()}, c.kind)
    w.confirmed, w.executor = confirm(acc, rej, proj[acc.name], proj[rej.name], cid)
    if cid in _ATTR_FINDINGS and not w.message:
        w.message = w.executor
    return w


def _describe(c: _Cand, cid: str) -> str:
    if c.kind in ("attr", "dtype"):
        return c.label
    negative = [n for n, t in sorted(c.tensors.items()) if t.dtype.kind == "i" and np.any(t < 0)]
    if negative:
        return f"negative values in {', '.join(negative)}"
    return c.label if c.kind == "shape" else f"any input ({cid})"


def confirm(acc: Spec, rej: Spec, acc_query: tuple[dict, dict], rej_query: tuple[dict, dict],
            constraint: str) -> tuple[bool, str]:
    """Run both sides through the executor: ``acc`` must run, ``rej`` must raise for ``constraint``.

    An attribute the rejecting spec does not declare is a UsageError in the executor (A1/A2).
    """
    try:
        run_spec(acc, *acc_query)
    except Exception as exc:  # noqa: BLE001 -- any failure on the accepting side unconfirms
        return False, f"{acc.name} failed: {exc}"
    try:
        run_spec(rej, *rej_query)
    except ConstraintError as exc:
        return exc.constraint == constraint, f"ConstraintError {exc.constraint}"
    except UsageError as exc:
        return constraint in _ATTR_FINDINGS, f"UsageError: {exc}"
    return False, f"{rej.name} ran without an error"


# ---------------------------------------------------------------- rendering

def _witness_text(w: Witness) -> str:
    """The accepted query, plus what the rejecting side is given differently (a moved attribute)."""
    acc, rej = w.accepted_by, w.rejected_by
    items = {**w.inputs[acc], **{k: repr(v) for k, v in w.attrs[acc].items()}}
    other = {**w.inputs[rej], **{k: repr(v) for k, v in w.attrs[rej].items()}}
    text = ", ".join(f"{k}={v}" for k, v in items.items())
    extra = [f"{k}={v}" for k, v in other.items() if items.get(k) != v]
    return text + (f" ({rej} gets {', '.join(extra)})" if extra else "")


def _headline(d: SpecDiff) -> str:
    if d.equivalent:
        return "equivalent"
    return f"{len(d.changes)} structural change(s), {len(d.witnesses)} witness(es)"


def render_diff(d: SpecDiff, console: Console) -> None:
    """Rich tables, one per category with changes, then the witnesses."""
    console.print(f"[bold]{escape(d.a)} → {escape(d.b)}[/]: {escape(_headline(d))}")
    if d.cross_operator:
        console.print(f"[bold yellow]cross-operator diff:[/] {escape(d.a)} and {escape(d.b)} are different operators")
    for cat in CATEGORIES:
        rows = d.by_category(cat)
        if not rows:
            continue
        t = Table(title=cat, title_justify="left")
        for col in ("change", "subject", d.a, d.b):
            t.add_column(escape(col))
        for c in rows:
            t.add_row(escape(c.kind), escape(c.subject), escape(c.a), escape(c.b))
        console.print(t)
    if d.witnesses:
        t = Table(title="witnesses (accepted by one, rejected by the other; run through the executor)",
                  title_justify="left")
        for col, ratio in (("difference", 2), ("accepted by", 2), ("rejected by, because", 3), ("input", 5),
                           ("executor", 1)):
            t.add_column(col, ratio=ratio)
        for w in d.witnesses:
            t.add_row(escape(w.label), escape(w.accepted_by), escape(f"{w.rejected_by} {w.constraint} `{w.rule}`"),
                      escape(_witness_text(w)), "[green]confirmed[/]" if w.confirmed else "[red]NOT confirmed[/]")
        console.print(t)
    for note in d.notes:
        console.print(escape(note))
    console.print()


def _md(s: Any) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def to_markdown(diffs: list[SpecDiff]) -> str:
    """A semantic changelog: one section per pair, deterministic (no timestamps, stable order).

    >>> to_markdown([diff("ScatterND-16", "ScatterND-18")]).splitlines()[4]
    '## ScatterND-16 → ScatterND-18'
    """
    body = []
    for d in diffs:
        body += [f"## {d.a} → {d.b}", ""]
        if d.cross_operator:
            body += [f"**Cross-operator diff:** {d.a} and {d.b} are different operators.", ""]
        body += [f"Summary: {_headline(d)}.", ""]
        for cat in CATEGORIES:
            rows = d.by_category(cat)
            if rows:
                body += [f"### {cat.capitalize()}", "", f"| change | subject | {d.a} | {d.b} |", "|---|---|---|---|"]
                body += [f"| {_md(c.kind)} | {_md(c.subject)} | {_md(c.a)} | {_md(c.b)} |" for c in rows]
                body.append("")
        if d.witnesses:
            body += ["### Witnesses", "", "| difference | accepted by | rejected by | because | input | executor |",
                     "|---|---|---|---|---|---|"]
            body += [f"| {_md(w.label)} | {w.accepted_by} | {w.rejected_by} | {w.constraint} `{_md(w.rule)}` | "
                     f"`{_md(_witness_text(w))}` | {'confirmed' if w.confirmed else 'NOT confirmed'} |"
                     for w in d.witnesses]
            body.append("")
        body += [f"- {_md(n)}" for n in d.notes]
        if d.notes:
            body.append("")
    lines = ["# Semantic changelog", "",
             "Generated by `shapecheck diff --all --markdown > docs/changelog.md`; do not edit by hand.", ""]
    return "\n".join(lines + body).rstrip()   # print() adds the final newline


__all__ = ["diff", "diff_range", "diff_all", "to_markdown", "render_diff", "SpecDiff", "Change", "Witness",
           "allowed_values", "confirm"]
