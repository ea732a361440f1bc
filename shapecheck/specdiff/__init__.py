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

from ..errors import UsageError
from ..registry import Registry, Spec, default_registry
from .changes import (
    CATEGORIES,
    Change,
    SpecDiff,
    Witness,
    _structural,
    allowed_values,
)
from .witness import _semantic, confirm

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
    return _diff_specs(reg, reg.get(a), reg.get(b))


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
    return [_diff_specs(reg, x, y) for x, y in zip(chain, chain[1:])]


def diff_all(registry: Registry | None = None) -> list[SpecDiff]:
    """Every consecutive pair of every operator, then the cross-operator pairs the specs declare."""
    reg = registry or default_registry()
    out = []
    list(reg)   # a lazy registry compiles every spec when iterated: by_op is then complete
    for key in sorted(reg.by_op):
        chain = reg.by_op[key]
        out += [_diff_specs(reg, x, y) for x, y in zip(chain, chain[1:])]
    for a, b in cross_pairs(reg):
        out.append(_diff_specs(reg, a, b))
    return out


def cross_pairs(registry: Registry | None = None) -> list[tuple[Spec, Spec]]:
    """``(spec, other)`` for every name in a spec's ``see_also`` that the registry holds.

    >>> [(a.name, b.name) for a, b in cross_pairs()][:1]
    [('Scatter-11', 'ScatterElements-11')]
    """
    reg = registry or default_registry()
    out = []
    for spec in reg:
        for name in spec.see_also:
            try:
                out.append((spec, reg.get(name)))
            except UsageError:
                continue   # a pair with a spec from a directory that is not loaded
    return out


def _diff_specs(reg: Registry, a: Spec, b: Spec) -> SpecDiff:
    # specs are compiled once per registry and never mutated, so a diff can be reused (kept in the
    # registry's memo); the entry keeps both specs alive so their ids cannot be reused by other specs
    key = ("diff", id(a), id(b))
    hit = reg.memo.get(key)
    if hit is None or hit[0] is not a or hit[1] is not b:
        d = SpecDiff(a.name, b.name, (a.domain, a.op) != (b.domain, b.op))
        d.changes = _structural(a, b)
        d.witnesses, n_cands = _semantic(a, b)
        _conclude(d, a, b, n_cands)
        hit = reg.memo[key] = (a, b, d)
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



__all__ = ["diff", "diff_range", "diff_all", "SpecDiff", "Change", "Witness",
           "allowed_values", "confirm", "CATEGORIES"]
