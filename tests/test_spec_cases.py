"""Each constraint's own cases, written beside the rule in its spec file (and inherited
through ``extends``): every case must end in the status it names.

Every constraint of every spec must show all sides: a query that proves it, one that refutes
it (or ``no_refute`` saying why none can), and one that leaves it conditional or unchecked (or
``no_conditional``).  A new spec or constraint without cases fails here.

Beyond its own status, each case is checked as a whole query:
- proved: the query is valid on every constraint (no violation at all);
- refuted: the query is invalid through exactly this constraint, and the violation quotes the
  rule and message as the spec file writes them;
- conditional: the condition named by the case is stated by the constraint, by the whole result,
  and is traced back to this constraint;
- unchecked: not knowing run-time values is no condition on the query, which stays valid.
A deprecated spec (Scatter-11) is invalid on every query through its ``deprecated`` finding only.
"""
from __future__ import annotations

import sys

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from shapecheck.solver import solve
from shapecheck.registry import default_registry, spec_files, specs_dir
from shapecheck.notation import names_in
from shapecheck.types import ELEMENT_TYPES

REG = default_registry()
SPECS = [spec for spec in REG if spec.constraints]


def _raw_rules():
    """(id, rule, message) of every constraint written in any spec file, read with tomllib directly."""
    out = set()
    for path in spec_files(specs_dir()):
        data = tomllib.loads(path.read_text())
        for c in data.get("constraints", []):
            out.add((c["id"], c["rule"].strip(), c.get("message", "").strip()))
    return out


RAW = _raw_rules()


def _violations(spec, res):
    """The result's violations, without a deprecated spec's ``deprecated`` finding (on every query)."""
    return [v for v in res.violations if not (spec.deprecated and v.constraint == "deprecated")]


def case_ends_in_its_status(spec, rule, case) -> None:
    """One case of a constraint: the solver's status for the constraint is the case's, and the whole
    query's verdict goes with it (a proving query is valid, a refuting one invalid by that constraint)."""
    where = f"{case.file}:{case.line}: {spec.name} {rule.id} `{rule.rule}` on {case.inputs} {case.attrs}"
    res = solve(spec, case.inputs, case.attrs, unknown_attrs="finding")
    got = next(c for c in res.constraints if c.id == rule.id)
    assert got.status == case.expect, f"{where}: expected {case.expect}, got {got.status} {got.conditions}"
    violations = _violations(spec, res)
    if case.expect == "proved":
        assert violations == [], f"{where}: a proving query must be valid: {[str(v) for v in violations]}"
    elif case.expect == "refuted":
        assert res.status == "invalid", where
        found = [v for v in violations if v.constraint == rule.id]
        assert len(found) == 1, (where, [str(v) for v in violations])
        # rule text and message come from the spec file, not from the solver
        assert found[0].rule == rule.rule and found[0].message == rule.message, where
        assert (rule.id, found[0].rule, found[0].message) in RAW, where
    elif case.expect == "conditional":
        assert res.status in ("conditional", "invalid"), where
        if not violations and not spec.deprecated:
            assert res.status == "conditional", where
        if case.condition:
            assert _same_relation(case.condition, got.conditions), (where, got.conditions)
            [stated] = [t for t in res.conditions if _same_relation(case.condition, [t])]
            assert rule.id in res.condition_sources[stated], (where, res.condition_sources)
    else:  # unchecked
        assert got.conditions == [], where
        assert violations == [] and res.conditions == [], (where, res.conditions, [str(v) for v in violations])
        assert res.status == ("invalid" if spec.deprecated else "valid"), where


def _failures(check, spec, *rest) -> list[str]:
    try:
        check(spec, *rest)
    except AssertionError as exc:
        return [str(exc)]
    return []


# one test per spec (each runs every case of every constraint and names each that fails): 14,000 tests of a
# millisecond each cost more in the test runner than in the solver
@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_case_ends_in_its_status(spec):
    failed = [f for rule in spec.constraints for case in rule.cases
              for f in _failures(case_ends_in_its_status, spec, rule, case)]
    assert not failed, "\n".join(failed)


def _same_relation(want: str, have: list[str]) -> bool:
    """``C == D`` matches ``D == C``; other relations match as written."""
    def key(t: str):
        if " == " in t:
            return frozenset(x.strip() for x in t.split(" == ", 1))
        return t.strip()
    return key(want) in {key(h) for h in have}


def constraint_has_a_proving_case(spec, rule):
    assert "proved" in {c.expect for c in rule.cases}, \
        f"{spec.file}:{rule.line}: {spec.name} {rule.id} has no case that proves it: add [[constraints.cases]]"


def constraint_has_a_refuting_case_or_a_reason(spec, rule):
    kinds = {c.expect for c in rule.cases}
    assert "refuted" in kinds or rule.no_refute, \
        f"{spec.file}:{rule.line}: {spec.name} {rule.id}: no refuted case and no no_refute reason"
    assert not ("refuted" in kinds and rule.no_refute), f"{spec.name} {rule.id}: a refuted case and a no_refute reason"
    if rule.no_refute and rule.rule.startswith("dtype(") and " in " in rule.rule:
        # a type-set rule is irrefutable only because its sets hold every element type
        sets = [n for n in names_in(rule.tree) if n in spec.types]
        assert sets and set(ELEMENT_TYPES) <= set().union(*(spec.types[n] for n in sets)), (spec.name, rule.id)


def constraint_has_a_conditional_case_or_a_reason(spec, rule):
    kinds = {c.expect for c in rule.cases}
    assert "conditional" in kinds or "unchecked" in kinds or rule.no_conditional, \
        f"{spec.file}:{rule.line}: {spec.name} {rule.id}: no conditional case and no no_conditional reason"
    if "reads only attributes" in rule.no_conditional:
        # the reason must be true: the rule reads attributes (and type sets) only
        names = names_in(rule.tree)
        assert names and names <= set(spec.attributes) | set(spec.types), names


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_every_constraint_has_its_cases_or_reasons(spec):
    """A proving case, a refuting case or a reason none exists, a conditional case or a reason."""
    failed = [f for rule in spec.constraints
              for check in (constraint_has_a_proving_case, constraint_has_a_refuting_case_or_a_reason,
                            constraint_has_a_conditional_case_or_a_reason)
              for f in _failures(check, spec, rule)]
    assert not failed, "\n".join(failed)


def test_every_index_bound_constraint_has_an_unchecked_case():
    """A rule over index values must show that without constant indices it is unchecked, not a condition."""
    for spec in REG:
        for rule in spec.constraints:
            if "<= indices" in rule.rule or "indices[" in rule.rule:
                assert "unchecked" in {c.expect for c in rule.cases}, (spec.name, rule.id)
