"""Whole-query behaviour of the scatter specs beyond one constraint at a time: unification of
unknown ranks, dims and element types, contradictions between conditions, deprecation,
duplicate-index warnings, fix hints and fully static results.

Each constraint's own prove/refute/conditional/unchecked cases live beside the rule in its spec
file (``[[constraints.cases]]``, inherited through ``extends``) and run in test_spec_cases.py.
"""
from __future__ import annotations

import pytest

import shapecheck
from shapecheck.registry import default_registry

REG = default_registry()


def nd(**over) -> dict:
    q = {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"}
    q.update(over)
    return q


def se(**over) -> dict:
    q = {"data": "float[N,C]", "indices": "int64[M,C]", "updates": "float[M,C]"}
    q.update(over)
    return q


def rule_text(rule) -> str:
    return getattr(rule, "plain", "") or rule.rule


# ---------------------------------------------------------------- unification and inference

def test_unknown_dtype_of_updates_binds_to_data():
    r = shapecheck.infer("ScatterND", 18, nd(updates="?[M,C]"))
    assert str(r.outputs["output"]) == "float[N,C]"
    # the only thing left open is that updates really has data's element type
    assert r.conditions == [rule_text(REG.resolve("ScatterND", 18).rule("C4"))]


def test_unknown_dtype_of_data_is_learned_from_updates():
    # output is dtype(data); data's type is unknown but C4 ties it to updates' float
    r = shapecheck.infer("ScatterND", 18, nd(data="?[N,C]"))
    assert r.outputs["output"].dtype == "float"
    r = shapecheck.infer("ScatterElements", 18, se(data="?[N,C]", updates="int32[M,C]"))
    assert r.outputs["output"].dtype == "int32"


def test_unknown_rank_updates_is_unified_with_what_c7_needs():
    r = shapecheck.infer("ScatterND", 18, nd(data="float[N,4]", updates="float"))
    assert r.status == "conditional"
    assert "rank(updates) == 2" in r.conditions
    assert "updates.shape[0] == M" in r.conditions
    assert "updates.shape[1] == 4" in r.conditions
    assert str(r.outputs["output"]) == "float[N,4]"


def test_unknown_rank_indices_of_scatter_elements_unified_with_updates():
    # C3 updates.shape == indices.shape: indices gets updates' rank and dims
    r = shapecheck.infer("ScatterElements", 18, se(indices="int64"))
    assert "rank(indices) == 2" in r.conditions
    assert r.status == "conditional"


def test_unknown_dims_in_data_are_refined_from_updates():
    r = shapecheck.infer("ScatterND", 18, nd(data="float[?,?]"))
    out = r.outputs["output"]
    # data.shape[1:] must equal updates.shape[1:] = [C]; data.shape[0] is only bounded by index values
    assert str(out) == "float[?,C]"
    assert r.conditions == ["C == data.shape[1]"]
    r = shapecheck.infer("ScatterElements", 18, se(data="float[?,?]", indices="int64[M,K]", updates="float[M,K]"))
    assert str(r.outputs["output"]) == "float[?,?]"  # nothing pins data's dims, only bounds them


def test_scatternd_k_solved_from_ranks():
    # K is used as a slice bound (data.shape[K:]); only K = 1 makes updates' rank 2 fit
    r = shapecheck.infer("ScatterND", 18, nd(indices="int64[M,K]"))
    assert r.status == "conditional" and r.conditions == ["K == 1"]
    # with rank-3 data and rank-1 updates only K = 3 fits: K > 3 also slices data.shape[K:] to [],
    # but breaks C6 (k <= r), so it is no solution
    r = shapecheck.infer("ScatterND", 18, {"data": "float[A,B,C]", "indices": "int64[M,K]", "updates": "float[M]"})
    assert r.conditions == ["K == 3"]
    assert r.status == "conditional"
    r = shapecheck.infer("ScatterND", 18, nd(indices="int64[M,K]", updates="float[M]"))
    assert r.conditions == ["K == 2"]
    # a mistake that holds for every K (dtype) neither hides K nor is blamed on the ranks
    r = shapecheck.infer("ScatterND", 18, nd(indices="int64[M,K]", updates="float16[M,C]"))
    assert [v.constraint for v in r.violations] == ["C4"]
    assert r.conditions == ["K == 1"]
    # no K at all: updates of rank 4 would need K = -1
    r = shapecheck.infer("ScatterND", 18, nd(indices="int64[M,K]", updates="float[M,M,N,C]"))
    assert r.status == "invalid"
    assert [v.constraint for v in r.violations] == ["C7"]
    assert "no value of K" in r.violations[0].detail
    # no K can make rank-3 updates fit rank-2 data with rank-2 indices (rank would be 1 + 2 - K <= 3 only if K=0,
    # and then updates = [M] ++ [N,C] which has rank 3: K = 0 works)
    r = shapecheck.infer("ScatterND", 18, nd(updates="float[M,N,C]", indices="int64[M,K]"))
    assert r.conditions == ["K == 0"]


def test_contradicting_conditions_make_the_query_invalid():
    # indices [C,1] ties updates.shape[0] to C, and data's trailing dim ties updates.shape[1] to C:
    # updates [4,5] needs C == 4 and C == 5 at once
    r = shapecheck.infer("ScatterND", 18, {"data": "float[N,C]", "indices": "int64[C,1]", "updates": "float[4,5]"})
    assert r.status == "invalid"
    assert set(r.conditions) == {"C == 4", "C == 5"}
    [v] = r.violations
    assert "C7" in v.constraint
    assert "cannot all hold" in v.message
    # the same shapes with a free M are satisfiable: M == 4 and C == 5
    r = shapecheck.infer("ScatterND", 18, {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[4,5]"})
    assert r.status == "conditional" and set(r.conditions) == {"M == 4", "C == 5"}


def test_contradiction_across_constraints():
    # ScatterElements: C3 gives updates [P,5] == indices [M,K] -> P == M, K == 5;
    # data [N,4] with axis 0 needs K <= 4 (C5) -- not an equality; use axis 1 data [4,C]:
    # C5 (axis 1) needs M <= 4.  A genuine equality clash needs two equalities on one symbol:
    r = shapecheck.infer("ScatterElements", 18,
                         {"data": "float[N,C]", "indices": "int64[M,M]", "updates": "float[2,3]"})
    assert r.status == "invalid"
    assert {"M == 2", "M == 3"} <= set(r.conditions)
    assert any("cannot all hold" in v.message for v in r.violations)


def test_deprecated_scatter_is_invalid_from_opset_11():
    q = {"data": "float[N,C]", "indices": "int64[M,C]", "updates": "float[M,C]"}
    assert shapecheck.infer("Scatter", 10, q).status == "valid"
    for opset in (11, 13, 18):
        r = shapecheck.infer("Scatter", opset, q)
        assert r.spec == "Scatter-11"
        assert r.status == "invalid"
        [v] = r.violations
        assert v.constraint == "deprecated"
        assert "ScatterElements" in v.message
        assert "below 11" in v.fix
        # the shapes themselves are fine: every shape/type constraint is proved
        assert all(c.status in ("proved", "unchecked") for c in r.constraints)
        assert str(r.outputs["output"]) == "float[N,C]"


def test_duplicate_constant_indices_warn_with_reduction_none():
    dup = {"data": "float[8,4]", "indices": "int64[2,1] = [[3],[3]]", "updates": "float[2,4]"}
    r = shapecheck.infer("ScatterND", 18, dup)
    assert [w.constraint for w in r.warnings] == ["W1"]
    assert r.status == "valid"  # a warning, not a violation
    # -5 and 3 address the same row of an 8-row tensor
    r = shapecheck.infer("ScatterND", 18, {**dup, "indices": "int64[2,1] = [[-5],[3]]"})
    assert [w.constraint for w in r.warnings] == ["W1"]
    # with a reduction duplicates are meaningful: no warning
    r = shapecheck.infer("ScatterND", 18, dup, {"reduction": "add"})
    assert r.warnings == []
    # distinct rows: no warning
    r = shapecheck.infer("ScatterND", 18, {**dup, "indices": "int64[2,1] = [[3],[4]]"})
    assert r.warnings == []
    # before opset 16 there is no reduction, and duplicates always warn
    assert [w.constraint for w in shapecheck.infer("ScatterND", 13, dup).warnings] == ["W1"]


def test_duplicate_indices_scatter_elements_only_along_axis():
    base = {"data": "float[4,2]", "updates": "float[2,2]"}
    # axis 0: column 0 gets rows 1 and 1 -> duplicate
    r = shapecheck.infer("ScatterElements", 18, {**base, "indices": "int64[2,2] = [[1,0],[1,2]]"})
    assert [w.constraint for w in r.warnings] == ["W1"]
    # the same values in different columns do not collide
    r = shapecheck.infer("ScatterElements", 18, {**base, "indices": "int64[2,2] = [[1,0],[0,1]]"})
    assert r.warnings == []


def test_fix_hint_names_the_later_version():
    r = shapecheck.infer("ScatterND", 16, nd(), {"reduction": "max"})
    assert r.status == "invalid"
    [v] = r.violations
    assert v.constraint == "C9"
    assert "ScatterND-18" in v.fix
    # at 18 max is fine
    assert shapecheck.infer("ScatterND", 18, nd(), {"reduction": "max"}).status == "valid"
    # bfloat16 at opset 11 -> ScatterND-13 accepts it
    r = shapecheck.infer("ScatterND", 11, nd(data="bfloat16[N,C]", updates="bfloat16[M,C]"))
    [v] = r.violations
    assert v.constraint == "C3" and "ScatterND-13" in v.fix
    # a mistake no later version forgives gets no version hint
    r = shapecheck.infer("ScatterND", 16, nd(updates="float16[M,C]"))
    [v] = r.violations
    assert "opset" not in v.fix


def test_reduction_attribute_before_it_exists_is_a_usage_error_naming_the_version():
    with pytest.raises(shapecheck.UsageError, match="ScatterND-16"):
        shapecheck.infer("ScatterND", 13, nd(), {"reduction": "add"})


def test_static_results_are_fully_decided():
    r = shapecheck.infer("ScatterElements", 18, {"data": "float[3,3]", "indices": "int64[2,3]", "updates": "float[2,3]"},
                         {"axis": 0})
    assert r.status == "valid" and r.conditions == []
    assert {c.status for c in r.constraints} == {"proved", "unchecked"}
    r = shapecheck.infer("ScatterElements", 18, {"data": "float[3,3]", "indices": "int64[2,4]", "updates": "float[2,4]"},
                         {"axis": 0})
    assert [v.constraint for v in r.violations] == ["C5"]


def test_unknown_rank_data_gets_the_rank_of_indices():
    # ScatterElements: C2 rank(indices) == r gives data rank 2; its dims stay unknown but are bounded
    r = shapecheck.infer("ScatterElements", 18, se(data="float"), {"axis": 1})
    assert r.outputs["output"].rank == 2
    assert "rank(data) == 2" in r.conditions
    assert r.status == "conditional"
