"""Each constraint's own cases, written beside the rule in its spec file (and inherited
through ``extends``): every case must end in the status it names.

A constraint that carries cases must show both sides: a query that proves it and one that
refutes it (or ``no_refute`` saying why none can), and one that leaves it conditional (or
``no_conditional``).  Constraints without cases are covered by the tables in
``test_constraints.py``.
"""
from __future__ import annotations

import pytest

from shapecheck.solver import solve
from shapecheck.notation.load import default_registry

REG = default_registry()
CASES = [(spec, rule, i, case) for spec in REG for rule in spec.constraints for i, case in enumerate(rule.cases)]
WITH_CASES = [(spec, rule) for spec in REG for rule in spec.constraints if rule.cases]


@pytest.mark.parametrize("spec,rule,i,case", CASES,
                         ids=[f"{s.name}-{r.id}-{c.expect}{i}" for s, r, i, c in CASES])
def test_case_ends_in_its_status(spec, rule, i, case):
    res = solve(spec, case.inputs, case.attrs, unknown_attrs="finding")
    got = next(c for c in res.constraints if c.id == rule.id)
    assert got.status == case.expect, (f"{spec.file}:{case.line}: {rule.id} `{rule.rule}` on {case.inputs} "
                                       f"{case.attrs}: expected {case.expect}, got {got.status} {got.conditions}")
    if case.condition:
        assert _same_relation(case.condition, got.conditions), got.conditions


def _same_relation(want: str, have: list[str]) -> bool:
    """``C == D`` matches ``D == C``; other relations match as written."""
    def key(t: str):
        if " == " in t:
            return frozenset(x.strip() for x in t.split(" == ", 1))
        return t.strip()
    return key(want) in {key(h) for h in have}


@pytest.mark.parametrize("spec,rule", WITH_CASES, ids=[f"{s.name}-{r.id}" for s, r in WITH_CASES])
def test_constraint_with_cases_shows_every_side(spec, rule):
    kinds = {c.expect for c in rule.cases}
    assert "proved" in kinds, f"{spec.file}:{rule.line}: {rule.id} has no case that proves it"
    assert "refuted" in kinds or rule.no_refute, f"{spec.file}:{rule.line}: {rule.id}: no refuted case, no no_refute"
    assert "conditional" in kinds or "unchecked" in kinds or rule.no_conditional, \
        f"{spec.file}:{rule.line}: {rule.id}: no conditional case and no no_conditional reason"
