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
CASES = [(spec, rule, i, case) for spec in REG for rule in spec.constraints for i, case in enumerate(rule.cases)]
RULES = [(spec, rule) for spec in REG for rule in spec.constraints]
RULE_IDS = [f"{s.name}-{r.id}" for s, r in RULES]


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


@pytest.mark.parametrize("spec,rule,i,case", CASES,
                         ids=[f"{s.name}-{r.id}-{c.expect}{i}" for s, r, i, c in CASES])
def test_case_ends_in_its_status(spec, rule, i, case):
    where = f"{case.file}:{case.line}: {spec.name} {rule.id} `{rule.rule}` on {case.inputs} {case.attrs}"
    res = solve(spec, case.inputs, case.attrs, unknown_attrs="finding")
    got = next(c for c in res.constraints if c.id == rule.id)
    assert got.status == case.expect, f"{where}: expected {case.expect}, got {got.status} {got.conditions}"
    violations = _violations(spec, res)
    if case.expect == "proved":
        assert violations == [], f"{where}: a proving query must be valid: {[str(v) for v in violations]}"
    elif case.expect == "refuted":
        assert res.status == "invalid"
        found = [v for v in violations if v.constraint == rule.id]
        assert len(found) == 1, [str(v) for v in violations]
        # rule text and message come from the spec file, not from the solver
        assert found[0].rule == rule.rule and found[0].message == rule.message
        assert (rule.id, found[0].rule, found[0].message) in RAW
    elif case.expect == "conditional":
        assert res.status in ("conditional", "invalid")
        if not violations and not spec.deprecated:
            assert res.status == "conditional"
        if case.condition:
            assert _same_relation(case.condition, got.conditions), got.conditions
            [stated] = [t for t in res.conditions if _same_relation(case.condition, [t])]
            assert rule.id in res.condition_sources[stated], res.condition_sources
    else:  # unchecked
        assert got.conditions == []
        assert violations == [] and res.conditions == [], (res.conditions, [str(v) for v in violations])
        assert res.status == ("invalid" if spec.deprecated else "valid")


def _same_relation(want: str, have: list[str]) -> bool:
    """``C == D`` matches ``D == C``; other relations match as written."""
    def key(t: str):
        if " == " in t:
            return frozenset(x.strip() for x in t.split(" == ", 1))
        return t.strip()
    return key(want) in {key(h) for h in have}


@pytest.mark.parametrize("spec,rule", RULES, ids=RULE_IDS)
def test_constraint_has_a_proving_case(spec, rule):
    assert "proved" in {c.expect for c in rule.cases}, \
        f"{spec.file}:{rule.line}: {spec.name} {rule.id} has no case that proves it: add [[constraints.cases]]"


@pytest.mark.parametrize("spec,rule", RULES, ids=RULE_IDS)
def test_constraint_has_a_refuting_case_or_a_reason(spec, rule):
    kinds = {c.expect for c in rule.cases}
    assert "refuted" in kinds or rule.no_refute, \
        f"{spec.file}:{rule.line}: {spec.name} {rule.id}: no refuted case and no no_refute reason"
    assert not ("refuted" in kinds and rule.no_refute), f"{spec.name} {rule.id}: a refuted case and a no_refute reason"
    if rule.no_refute and rule.rule.startswith("dtype(") and " in " in rule.rule:
        # a type-set rule is irrefutable only because its sets hold every element type
        sets = [n for n in names_in(rule.tree) if n in spec.types]
        assert sets and set(ELEMENT_TYPES) <= set().union(*(spec.types[n] for n in sets)), (spec.name, rule.id)


@pytest.mark.parametrize("spec,rule", RULES, ids=RULE_IDS)
def test_constraint_has_a_conditional_case_or_a_reason(spec, rule):
    kinds = {c.expect for c in rule.cases}
    assert "conditional" in kinds or "unchecked" in kinds or rule.no_conditional, \
        f"{spec.file}:{rule.line}: {spec.name} {rule.id}: no conditional case and no no_conditional reason"
    if "reads only attributes" in rule.no_conditional:
        # the reason must be true: the rule reads attributes (and type sets) only
        names = names_in(rule.tree)
        assert names and names <= set(spec.attributes) | set(spec.types), names


def test_every_index_bound_constraint_has_an_unchecked_case():
    """A rule over index values must show that without constant indices it is unchecked, not a condition."""
    for spec in REG:
        for rule in spec.constraints:
            if "<= indices" in rule.rule or "indices[" in rule.rule:
                assert "unchecked" in {c.expect for c in rule.cases}, (spec.name, rule.id)
