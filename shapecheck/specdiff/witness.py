"""The semantic layer of a spec diff: small concrete inputs, built from both specs' examples and
mutated, run through both solvers; each input one accepts and the other rejects is shrunk and
confirmed by the executor on both sides (the candidates and their shrinking: ``candidates.py``)."""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from ..errors import ConstraintError, UsageError
from ..executor import run_spec
from ..findings import DEPRECATED
from ..solver import solve
from ..registry import Spec
from ..types import ELEMENT_TYPES, tensor_type_of
from .candidates import _KIND_ORDER, _Cand, _cast, _materialize, _nonzero, _shrink_steps, _templates
from .changes import _ATTR_FINDINGS, Witness, allowed_values


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
                # an ints attribute (Squeeze's axes) is a vector; an int one only a scalar or one-element vector
                if s.attributes[name].type == "ints" and arr.ndim <= 1 and arr.dtype.kind in "iu":
                    attrs[name] = tuple(int(x) for x in arr.reshape(-1))
                    continue
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
        for k, decl in s.attributes.items():   # a boolean attribute: the value that is not its default
            if decl.type == "bool":
                allowed.setdefault(k, set()).add(not decl.default)
    for k in sorted(allowed):
        for v in sorted(allowed[k], key=str):
            if c.attrs.get(k) != v:
                yield _Cand(dict(c.tensors), {**c.attrs, k: v}, "attr", f"{k} = {v!r}")
    for n, arr in sorted(c.tensors.items()):
        if arr.dtype.kind == "i" and np.any(arr != 0):
            yield _Cand({**c.tensors, n: -arr}, dict(c.attrs), "negate", f"{n} negated")
        elif arr.dtype.kind == "i" and arr.size:   # shrunk bases index 0: -1 is the last entry, or out of range
            yield _Cand({**c.tensors, n: arr - 1}, dict(c.attrs), "negate", f"{n} - 1")
        for ax in range(arr.ndim):
            if arr.dtype.kind != "O":   # one more (zero) entry along an axis, one fewer, one more axis
                pad = [(0, 0)] * arr.ndim
                pad[ax] = (0, 1)
                yield _Cand({**c.tensors, n: np.pad(arr, pad)}, dict(c.attrs), "shape", f"{n}.shape[{ax}] + 1")
            if arr.shape[ax] > 1:
                yield _Cand({**c.tensors, n: np.take(arr, range(arr.shape[ax] - 1), axis=ax)}, dict(c.attrs),
                            "shape", f"{n}.shape[{ax}] - 1")
        yield _Cand({**c.tensors, n: arr[..., None]}, dict(c.attrs), "shape", f"{n} with a trailing axis of 1")


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
            if sep is None or (c is not base and base_sep is not None and sep[0] == base_sep[0]
                               and set(sep[1]) <= set(base_sep[1])):
                # a mutation counts only when it makes the difference, or adds a rejecting constraint
                # (one that only drops a reason the base already has would be labelled by the wrong cause)
                continue
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


def _witness(p: _Pair, c: _Cand, sep: tuple) -> Witness:
    acc, rej = (p.a, p.b) if sep[0] == "a" else (p.b, p.a)
    cid = sep[1][0]
    try:
        rule = rej.rule(cid)
        rule_text, message = rule.rule, rule.message
    except KeyError:
        rule_text = {DEPRECATED: f"{rej.op} is deprecated at opset {rej.version}"}.get(cid, "attributes are declared by the spec")
        message = rej.deprecated if cid == DEPRECATED else ""
    proj = {s.name: p.project(c, s) for s in (p.a, p.b)}
    w = Witness(_describe(c, cid), acc.name, rej.name, cid, rule_text, message,
                {k: {n: str(tensor_type_of(t)) for n, t in v[0].items()} for k, v in proj.items()},
                {k: dict(v[1]) for k, v in proj.items()}, c.kind,
                arrays={k: dict(v[0]) for k, v in proj.items()})
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
