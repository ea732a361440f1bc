"""Each constraint of each spec: one query that proves it, one that refutes it, one that
leaves it conditional (or the reason none can), and value constraints unchecked without values.

The table below is keyed by (op family, constraint id).  Tests iterate the registry, so a new
spec or a new constraint id without an entry here fails loudly instead of going untested.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import shapecheck
from shapecheck.solver import solve
from shapecheck.notation.load import default_registry, spec_files, specs_dir
from shapecheck.notation.syntax import names_in
from shapecheck.types import ELEMENT_TYPES

REG = default_registry()
LIVE = [s for s in REG if not s.deprecated]


@dataclass
class Q:
    inputs: dict
    attrs: dict = field(default_factory=dict)


@dataclass
class Cases:
    prove: Callable          # spec -> Q
    refute: Callable         # spec -> Q | None (None: nothing can refute it, see refute_reason)
    conditional: Callable | None = None   # spec -> (Q, expected condition text)
    no_conditional: str = ""               # why no query can leave it conditional
    unchecked: Callable | None = None     # spec -> Q: value constraint without constant values
    refute_reason: str = ""


# ---------------------------------------------------------------- base queries

def nd(**over) -> dict:
    q = {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"}
    q.update(over)
    return q


def se(**over) -> dict:
    q = {"data": "float[N,C]", "indices": "int64[M,C]", "updates": "float[M,C]"}
    q.update(over)
    return q


def ov(**over) -> dict:
    q = {"data": "float[N,C]", "indices": "int64[M,C]", "updates": "float[M,C]", "axis": "int64[] = 0"}
    q.update(over)
    return q


def outside(spec, typeset: str) -> str | None:
    """An element type that is not in the spec's type set, if there is one."""
    rest = sorted(set(ELEMENT_TYPES) - spec.types[typeset])
    return rest[0] if rest else None


def dtype_refute(typeset: str, build: Callable[[str], Q]) -> Callable:
    def f(spec):
        t = outside(spec, typeset)
        return None if t is None else build(t)
    return f


ATTR_ONLY = "its rule reads only attributes, which are always concrete, so it is always decided"

# The condition is the rule itself: what it needs is not decidable from the query (an unknown
# rank or element type).  The solver states it in the rule's own words, with let names
# (r, k, a, ...) written out when it expands them.
RULE = object()
UNKNOWN_ND = {"data": "float", "indices": "int64", "updates": "float"}


def rule_text(rule) -> str:
    return getattr(rule, "plain", "") or rule.rule

ND = {
    "C1": Cases(  # r >= 1
        prove=lambda s: Q(nd()),
        refute=lambda s: Q(nd(data="float[]", indices="int64[M,0]", updates="float[M]")),
        # data's rank unknown and not pinned by updates (of unknown rank too)
        conditional=lambda s: (Q(nd(data="float", updates="float")), RULE)),
    "C2": Cases(  # q >= 1
        prove=lambda s: Q(nd()),
        refute=lambda s: Q(nd(indices="int64[]", updates="float[N,C]")),
        conditional=lambda s: (Q(nd(indices="int64")), RULE)),
    "C3": Cases(  # dtype(data) in T
        prove=lambda s: Q(nd()),
        refute=dtype_refute("T", lambda t: Q(nd(data=f"{t}[N,C]", updates=f"{t}[M,C]"))),
        refute_reason="T holds every ONNX element type from opset 13 on",
        conditional=lambda s: (Q(nd(data="?[N,C]", updates="?[M,C]")), RULE)),
    "C4": Cases(  # dtype(updates) == dtype(data)
        prove=lambda s: Q(nd()),
        refute=lambda s: Q(nd(updates="float16[M,C]")),
        conditional=lambda s: (Q(nd(updates="?[M,C]")), RULE)),
    "C5": Cases(  # dtype(indices) in Tind
        prove=lambda s: Q(nd()),
        refute=lambda s: Q(nd(indices="int32[M,1]")),
        conditional=lambda s: (Q(nd(indices="?[M,1]")), RULE)),
    "C6": Cases(  # k <= r
        prove=lambda s: Q(nd(indices="int64[M,2]", updates="float[M]")),
        refute=lambda s: Q(nd(data="float[N]", indices="int64[M,2]", updates="float[M]")),
        # k = K unknown and updates of unknown rank, so C7 cannot fix K: k <= r leaves K <= 2
        conditional=lambda s: (Q(nd(indices="int64[M,K]", updates="float")), "K <= 2")),
    "C7": Cases(  # updates.shape == indices.shape[:-1] ++ data.shape[k:]
        prove=lambda s: Q(nd()),
        refute=lambda s: Q(nd(data="float[4,4,4]", indices="int64[2,1]", updates="float[2,4]")),
        # updates [M,C] fits data [N,C] only with k = 1
        conditional=lambda s: (Q(nd(indices="int64[M,K]")), "K == 1")),
    "C8": Cases(  # index values within [-s, s-1] per column
        prove=lambda s: Q(nd(data="float[8,C]", indices="int64[3,1] = [[0],[7],[-8]]", updates="float[3,C]")),
        refute=lambda s: Q(nd(data="float[8,C]", indices="int64[2,1] = [[0],[8]]", updates="float[2,C]")),
        # the largest index is 3, so data must have at least 4 rows
        conditional=lambda s: (Q(nd(data="float[N,4]", indices="int64[2,1] = [[0],[3]]", updates="float[2,4]")),
                               "N >= 4"),
        unchecked=lambda s: Q(nd(data="float[8,4]", indices="int64[2,1]", updates="float[2,4]"))),
    "C9": Cases(  # reduction in {...}
        prove=lambda s: Q(nd(), {"reduction": "mul"}),
        refute=lambda s: Q(nd(), {"reduction": "foo"}),
        no_conditional=ATTR_ONLY),
    "C10": Cases(  # dtype(data) != "string" or reduction in {"none", "add"}
        prove=lambda s: Q(nd(data="string[N,C]", updates="string[M,C]"), {"reduction": "add"}),
        refute=lambda s: Q(nd(data="string[N,C]", updates="string[M,C]"), {"reduction": "mul"}),
        conditional=lambda s: (Q(nd(data="?[N,C]", updates="?[M,C]"), {"reduction": "mul"}), RULE)),
}

SE = {
    "C1": Cases(  # r >= 1
        prove=lambda s: Q(se()),
        refute=lambda s: Q(se(data="float[]", indices="int64[]", updates="float[]")),
        # all ranks unknown: nothing lends data a rank
        conditional=lambda s: (Q(UNKNOWN_ND), RULE)),
    "C2": Cases(  # rank(indices) == r
        prove=lambda s: Q(se()),
        refute=lambda s: Q(se(indices="int64[M]", updates="float[M]")),
        conditional=lambda s: (Q(UNKNOWN_ND), RULE)),
    "C3": Cases(  # updates.shape == indices.shape
        prove=lambda s: Q(se()),
        refute=lambda s: Q(se(data="float[3,3]", indices="int64[2,2]", updates="float[2,3]")),
        conditional=lambda s: (Q(se(updates="float[P,C]")), "P == M")),
    "C4": Cases(  # -r <= axis <= r - 1
        prove=lambda s: Q(se(), {"axis": -2}),
        refute=lambda s: Q(se(), {"axis": 2}),
        # with the rank of data unknown the bound on axis cannot be decided
        conditional=lambda s: (Q(UNKNOWN_ND, {"axis": 1}), RULE)),
    "C5": Cases(  # indices.shape[d] <= data.shape[d] for d != axis
        prove=lambda s: Q(se(indices="int64[M,C]", updates="float[M,C]"), {"axis": 0}),
        refute=lambda s: Q(se(data="float[3,3]", indices="int64[2,4]", updates="float[2,4]"), {"axis": 0}),
        # axis 1: only dim 0 is bounded, by data's N
        conditional=lambda s: (Q(se(indices="int64[M,K]", updates="float[M,K]"), {"axis": 1}), "M <= N")),
    "C6": Cases(  # dtype(data) in T
        prove=lambda s: Q(se()),
        refute=dtype_refute("T", lambda t: Q(se(data=f"{t}[N,C]", updates=f"{t}[M,C]"))),
        refute_reason="T holds every ONNX element type from opset 13 on",
        conditional=lambda s: (Q(se(data="?[N,C]", updates="?[M,C]")), RULE)),
    "C7": Cases(  # dtype(updates) == dtype(data)
        prove=lambda s: Q(se()),
        refute=lambda s: Q(se(updates="double[M,C]")),
        conditional=lambda s: (Q(se(updates="?[M,C]")), RULE)),
    "C8": Cases(  # dtype(indices) in Tind
        prove=lambda s: Q(se(indices="int32[M,C]")),
        refute=lambda s: Q(se(indices="int16[M,C]")),
        conditional=lambda s: (Q(se(indices="?[M,C]")), RULE)),
    "C9": Cases(  # -s <= indices <= s - 1, s = data.shape[axis]
        prove=lambda s: Q(se(data="float[3,3]", indices="int64[2,3] = [[1,0,2],[0,-3,-1]]", updates="float[2,3]")),
        refute=lambda s: Q(se(data="float[3,3]", indices="int64[1,3] = [[3,0,1]]", updates="float[1,3]")),
        # axis 0, largest index 2 -> N >= 3; the most negative is -1, which needs only N >= 1
        conditional=lambda s: (Q(se(data="float[N,3]", indices="int64[1,3] = [[2,0,-1]]", updates="float[1,3]")),
                               "N >= 3"),
        unchecked=lambda s: Q(se(data="float[3,3]", indices="int64[2,3]", updates="float[2,3]"))),
    "C10": Cases(  # reduction in {...}
        prove=lambda s: Q(se(), {"reduction": "add"}),
        refute=lambda s: Q(se(), {"reduction": "sum"}),
        no_conditional=ATTR_ONLY),
    "C11": Cases(  # dtype(data) != "string" or reduction in {"none", "add"}
        prove=lambda s: Q(se(data="string[N,C]", updates="string[M,C]"), {"reduction": "none"}),
        refute=lambda s: Q(se(data="string[N,C]", updates="string[M,C]"), {"reduction": "mul"}),
        conditional=lambda s: (Q(se(data="?[N,C]", updates="?[M,C]"), {"reduction": "mul"}), RULE)),
}

OV = {
    "C1": Cases(  # rank(indices) == r
        prove=lambda s: Q(ov()),
        refute=lambda s: Q(ov(indices="int64[M]", updates="float[M]")),
        conditional=lambda s: (Q({**UNKNOWN_ND, "axis": "int64[] = 0"}), RULE)),
    "C2": Cases(  # updates.shape == indices.shape
        prove=lambda s: Q(ov()),
        refute=lambda s: Q(ov(data="float[3,3]", indices="int64[2,2]", updates="float[2,3]")),
        conditional=lambda s: (Q(ov(updates="float[M,D]")), "D == C")),
    "C3": Cases(  # rank(axis) <= 1 and prod(axis.shape) == 1
        prove=lambda s: Q(ov(axis="int64[1] = [1]")),
        refute=lambda s: Q(ov(axis="int64[2] = [0, 0]")),
        conditional=lambda s: (Q(ov(axis="int64[A]")), "A == 1")),
    "C4": Cases(  # -r <= v <= r - 1, v = item(axis)
        prove=lambda s: Q(ov(axis="int32[] = -1")),
        refute=lambda s: Q(ov(axis="int64[] = 2")),
        conditional=lambda s: (Q({**UNKNOWN_ND, "axis": "int64[] = 1"}), RULE),
        unchecked=lambda s: Q(ov(axis="int64[]"))),
    "C5": Cases(  # indices.shape[d] <= data.shape[d] for d != axis
        prove=lambda s: Q(ov(data="float[3,3]", indices="int64[5,3]", updates="float[5,3]")),
        refute=lambda s: Q(ov(data="float[3,3]", indices="int64[2,4]", updates="float[2,4]")),
        conditional=lambda s: (Q(ov(indices="int64[M,K]", updates="float[M,K]", axis="int64[1] = [-1]")), "M <= N"),
        # which dims are bounded depends on the axis value
        unchecked=lambda s: Q(ov(indices="int64[M,K]", updates="float[M,K]", axis="int64[]"))),
    "C6": Cases(  # dtype(data) in T (numeric)
        prove=lambda s: Q(ov(data="bfloat16[N,C]", updates="bfloat16[M,C]")),
        refute=lambda s: Q(ov(data="string[N,C]", updates="string[M,C]")),
        conditional=lambda s: (Q(ov(data="?[N,C]", updates="?[M,C]")), RULE)),
    "C7": Cases(  # dtype(updates) == dtype(data)
        prove=lambda s: Q(ov()),
        refute=lambda s: Q(ov(updates="float16[M,C]")),
        conditional=lambda s: (Q(ov(updates="?[M,C]")), RULE)),
    "C8": Cases(  # dtype(indices) in T_IND
        prove=lambda s: Q(ov(indices="uint8[M,C]")),
        refute=lambda s: Q(ov(indices="float[M,C]")),
        conditional=lambda s: (Q(ov(indices="?[M,C]")), RULE)),
    "C9": Cases(  # dtype(axis) in T_AXIS
        prove=lambda s: Q(ov(axis="int32[] = 0")),
        refute=lambda s: Q(ov(axis="float[] = 0")),
        conditional=lambda s: (Q(ov(axis="?[]")), RULE)),
    "C10": Cases(  # 0 <= indices <= s - 1
        prove=lambda s: Q(ov(data="float[3,3]", indices="int64[1,3] = [[0,2,1]]", updates="float[1,3]")),
        # negative values are an error on OpenVINO (page), unlike ONNX
        refute=lambda s: Q(ov(data="float[3,3]", indices="int64[1,3] = [[0,-1,1]]", updates="float[1,3]")),
        conditional=lambda s: (Q(ov(data="float[N,3]", indices="int64[1,3] = [[0,4,1]]", updates="float[1,3]")),
                               "N >= 5"),
        unchecked=lambda s: Q(ov(data="float[3,3]", indices="int64[1,3]", updates="float[1,3]"))),
}

SCATTER = {k: v for k, v in SE.items() if k not in ("C10", "C11")}  # Scatter has no reduction

TABLE = {
    "ScatterND": ND,
    "ScatterElements": SE,
    "Scatter": SCATTER,
    "openvino:ScatterElementsUpdate": OV,
}


def _cases(spec, rid) -> Cases:
    family = TABLE.get(spec.qualified_op)
    assert family is not None, f"no test table for op family {spec.qualified_op} ({spec.name})"
    assert rid in family, f"{spec.name} {rid} has no entry in the test table: add prove/refute/conditional queries"
    return family[rid]


# constraints whose cases live in their spec file are tested by test_spec_cases.py
PARAMS = [pytest.param(spec, rule.id, id=f"{spec.name}:{rule.id}") for spec in LIVE for rule in spec.constraints
          if not rule.cases]


def _status(result, rid):
    [c] = [c for c in result.constraints if c.id == rid]
    return c


def _raw_rules():
    """(id, rule, message) of every constraint written in any spec file, read with tomllib directly."""
    out = set()
    for path in spec_files(specs_dir()):
        data = tomllib.loads(path.read_text())
        for c in data.get("constraints", []):
            out.add((c["id"], c["rule"].strip(), c.get("message", "").strip()))
    return out


RAW = _raw_rules()


def test_table_covers_every_constraint_and_nothing_stale():
    have = {(s.qualified_op, r.id) for s in LIVE for r in s.constraints}
    for spec in LIVE:
        for rule in spec.constraints:
            if not rule.cases:
                _cases(spec, rule.id)
    for family, table in TABLE.items():
        for rid in table:
            assert (family, rid) in have, f"stale table entry {family} {rid}"


@pytest.mark.parametrize("spec,rid", PARAMS)
def test_prove(spec, rid):
    q = _cases(spec, rid).prove(spec)
    r = solve(spec, q.inputs, q.attrs)
    c = _status(r, rid)
    assert c.status == "proved", (c.status, c.conditions)
    assert r.violations == [], [str(v) for v in r.violations]


@pytest.mark.parametrize("spec,rid", PARAMS)
def test_refute(spec, rid):
    case = _cases(spec, rid)
    rule = spec.rule(rid)
    q = case.refute(spec)
    if q is None:
        # only dtype-set constraints may be irrefutable, and only because the set is complete
        assert case.refute_reason
        assert rule.rule.startswith("dtype(") and " in " in rule.rule
        assert set(ELEMENT_TYPES) <= set().union(*(spec.types[n] for n in names_in(rule.tree) if n in spec.types))
        return
    r = solve(spec, q.inputs, q.attrs)
    assert r.status == "invalid"
    assert _status(r, rid).status == "refuted"
    found = [v for v in r.violations if v.constraint == rid]
    assert len(found) == 1, [str(v) for v in r.violations]
    v = found[0]
    # rule text and message come from the spec file, not from the solver
    assert v.rule == rule.rule and v.message == rule.message
    assert (rid, v.rule, v.message) in RAW


@pytest.mark.parametrize("spec,rid", PARAMS)
def test_conditional(spec, rid):
    case = _cases(spec, rid)
    rule = spec.rule(rid)
    if case.conditional is None:
        assert case.no_conditional, f"{spec.name} {rid}: give a conditional query or a reason"
        # the reason must be true: the rule reads attributes (and type sets) only
        names = names_in(rule.tree)
        assert names and names <= set(spec.attributes) | set(spec.types), names
        return
    q, want = case.conditional(spec)
    if want is RULE:
        want = rule_text(rule)
    r = solve(spec, q.inputs, q.attrs)
    c = _status(r, rid)
    assert c.status == "conditional", (c.status, r.violations)
    assert want in c.conditions, c.conditions
    assert want in r.conditions
    assert rid in r.condition_sources[want]
    assert r.status in ("conditional", "invalid")
    if not r.violations:
        assert r.status == "conditional"


VALUE_PARAMS = [p for p in PARAMS if _cases(p.values[0], p.values[1]).unchecked is not None]


@pytest.mark.parametrize("spec,rid", VALUE_PARAMS)
def test_value_constraint_unchecked_without_constants(spec, rid):
    q = _cases(spec, rid).unchecked(spec)
    r = solve(spec, q.inputs, q.attrs)
    c = _status(r, rid)
    assert c.status == "unchecked"
    assert c.conditions == []
    # not knowing run-time values is not a condition on the query
    assert r.status == "valid", (r.conditions, [str(v) for v in r.violations])


def test_every_index_bound_constraint_has_an_unchecked_case():
    for spec in LIVE:
        for rule in spec.constraints:
            # rules comparing index tensor contents
            if rule.cases:
                continue  # test_spec_cases.py: its own cases show every side
            if "<= indices" in rule.rule or "indices[" in rule.rule:
                assert _cases(spec, rule.id).unchecked is not None, (spec.name, rule.id)


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
