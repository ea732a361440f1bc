"""Constraint cases go through ``extends`` with their constraint: an inherited constraint keeps
its cases (and its no_refute/no_conditional reasons), a redefined one has only the cases written
beside the new rule, and a removed one takes its cases with it."""
from __future__ import annotations

import textwrap

import pytest

from shapecheck.registry import default_registry, load_files
from tests.test_spec_errors import GOOD

# the probe spec of test_spec_errors.py (ProbeOp-1) up to its constraints, with constraints of its own
BASE = GOOD[:GOOD.index("[[constraints]]")] + textwrap.dedent('''\
    [[constraints]]
    id = "C1"
    rule = "rank(data) >= 1"
    message = "data must have rank >= 1"
    [[constraints.cases]]
    expect = "proved"
    inputs = { data = "float[N]" }
    [[constraints.cases]]
    expect = "refuted"
    inputs = { data = "float[]" }

    [[constraints]]
    id = "C2"
    rule = "dtype(data) in T"
    message = "data must be float or double"
    no_conditional = "base reason"
    [[constraints.cases]]
    expect = "proved"
    inputs = { data = "double[N]" }

    [[constraints]]
    id = "C3"
    rule = "rank(data) <= 4"
    message = "data must have rank <= 4"
    [[constraints.cases]]
    expect = "refuted"
    inputs = { data = "float[1,1,1,1,1]" }
''')

# redefines C1 with cases of its own, and C2 with none; keeps C3
CHILD = textwrap.dedent('''\
    extends = "ProbeOp-1"
    version = 2

    [[constraints]]
    id = "C1"
    rule = "rank(data) >= 2"
    message = "data must have rank >= 2"
    no_refute = "child reason"
    [[constraints.cases]]
    expect = "proved"
    inputs = { data = "float[N,M]" }

    [[constraints]]
    id = "C2"
    rule = "dtype(data) in T"
    message = "data must be float or double"
''')

# changes nothing about C1 and C2, removes C3
GRANDCHILD = textwrap.dedent('''\
    extends = "ProbeOp-2"
    version = 3
    remove_constraints = ["C3"]
''')


def _load(tmp_path):
    files = []
    for name, text in (("ProbeOp-1.toml", BASE), ("ProbeOp-2.toml", CHILD), ("ProbeOp-3.toml", GRANDCHILD)):
        f = tmp_path / name
        f.write_text(text)
        files.append(f)
    return {s.name: s for s in load_files(files)}


def _cases(spec, rid):
    return [(c.expect, c.inputs) for c in spec.rule(rid).cases]


def test_inherited_constraint_keeps_its_cases_and_reasons(tmp_path):
    specs = _load(tmp_path)
    assert _cases(specs["ProbeOp-2"], "C3") == _cases(specs["ProbeOp-1"], "C3") == [("refuted", {"data": "float[1,1,1,1,1]"})]
    # through two levels: the child's redefinition is what the grandchild inherits
    assert _cases(specs["ProbeOp-3"], "C1") == [("proved", {"data": "float[N,M]"})]
    assert specs["ProbeOp-3"].rule("C1").no_refute == "child reason"


def test_an_inherited_case_points_at_the_file_and_line_it_is_written_at(tmp_path):
    specs = _load(tmp_path)
    lines = BASE.splitlines()
    heads = [i + 1 for i, ln in enumerate(lines) if ln == "[[constraints.cases]]"]
    [c3] = specs["ProbeOp-2"].rule("C3").cases
    assert (c3.file, c3.line) == (str(tmp_path / "ProbeOp-1.toml"), heads[-1])
    [c1] = specs["ProbeOp-3"].rule("C1").cases
    assert c1.file == str(tmp_path / "ProbeOp-2.toml")
    assert CHILD.splitlines()[c1.line - 1] == "[[constraints.cases]]"
    assert CHILD.splitlines()[c1.line] == 'expect = "proved"'


def test_redefined_constraint_has_only_its_own_cases(tmp_path):
    specs = _load(tmp_path)
    base, child = specs["ProbeOp-1"], specs["ProbeOp-2"]
    assert _cases(child, "C1") == [("proved", {"data": "float[N,M]"})]
    assert child.rule("C1").no_refute == "child reason"
    # the parent is untouched by its child
    assert _cases(base, "C1") == [("proved", {"data": "float[N]"}), ("refuted", {"data": "float[]"})]
    assert base.rule("C1").no_refute == ""
    # a redefinition without cases (or reasons) does not inherit the old rule's
    assert _cases(child, "C2") == [] and child.rule("C2").no_conditional == ""
    assert base.rule("C2").no_conditional == "base reason"


def test_removed_constraint_takes_its_cases_with_it(tmp_path):
    specs = _load(tmp_path)
    assert [r.id for r in specs["ProbeOp-3"].constraints] == ["C1", "C2"]


def test_scatter_specs_inherit_and_restate_cases():
    reg = default_registry()
    nd11, nd13, nd18 = (reg.resolve("ScatterND", v) for v in (11, 13, 18))
    # C7 is written once, in ScatterND-11, and reaches 18 unchanged
    assert nd18.rule("C7").cases == nd11.rule("C7").cases != ()
    # C3 is restated in 13 with T's new types: its own refuting case (float6e2m3, in no version of T)
    # replaces 11's, which 13's T now holds
    assert "refuted" in {c.expect for c in nd11.rule("C3").cases}
    refuting = [c for c in nd13.rule("C3").cases if c.expect == "refuted"]
    assert [c.inputs["data"] for c in refuting] == ["float6e2m3[N,C]"]
    assert nd18.rule("C3").cases == nd13.rule("C3").cases
    # C9 is redefined in 18 (max and min added): its cases are written there, not doubled up
    assert nd18.rule("C9").rule != reg.resolve("ScatterND", 16).rule("C9").rule
    assert sorted(c.expect for c in nd18.rule("C9").cases) == ["proved", "refuted"]
    # the deprecated Scatter-11 and ScatterElements-11 on top of it get Scatter-9's cases
    s9, s11, se11 = reg.resolve("Scatter", 9), reg.get("Scatter-11"), reg.resolve("ScatterElements", 11)
    assert s11.rule("C1").cases == s9.rule("C1").cases == se11.rule("C1").cases != ()


def test_a_constraint_without_cases_fails_the_coverage_checks(tmp_path):
    from tests.test_spec_cases import (constraint_has_a_conditional_case_or_a_reason,
                                       constraint_has_a_proving_case, constraint_has_a_refuting_case_or_a_reason)
    child = _load(tmp_path)["ProbeOp-2"]
    bare = child.rule("C2")   # redefined without cases or reasons
    for check in (constraint_has_a_proving_case, constraint_has_a_refuting_case_or_a_reason,
                  constraint_has_a_conditional_case_or_a_reason):
        with pytest.raises(AssertionError, match="C2"):
            check(child, bare)
    # C1 has a proving case and a no_refute reason, but neither a conditional case nor a reason
    constraint_has_a_proving_case(child, child.rule("C1"))
    constraint_has_a_refuting_case_or_a_reason(child, child.rule("C1"))
    with pytest.raises(AssertionError, match="no conditional case"):
        constraint_has_a_conditional_case_or_a_reason(child, child.rule("C1"))
