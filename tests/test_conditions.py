"""Conditions are objects: a relation over dims behind each text, carried from solver to model check."""
from __future__ import annotations

import sympy
from onnx import TensorProto as T
from onnx import helper

from shapecheck.model.check import check_model
from shapecheck.solver.cache import SolveCache
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.types import parse_type
from shapecheck.dims import symbol

REG = default_registry()


def test_every_condition_carries_its_relation():
    r = solve(REG.resolve("ScatterND", 18), {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[K,C]"})
    assert r.conditions == ["K == M"]
    assert r.relations["K == M"].sympy() == sympy.Eq(symbol("K"), symbol("M"))


def test_a_broadcast_condition_is_a_disjunction():
    r = solve(REG.resolve("Expand", 13), {"input": "float[N,4]", "shape": "int64[2] = [M, 4]"})
    [text] = r.conditions
    rel = r.relations[text].sympy()
    assert isinstance(rel, sympy.Or)
    N, M = symbol("N"), symbol("M")
    assert rel.subs({N: 3, M: 3}) == sympy.true and rel.subs({N: 1, M: 5}) == sympy.true
    assert rel.subs({N: 2, M: 3}) == sympy.false


def test_cached_results_rename_relations_back():
    cache = SolveCache()
    spec = REG.resolve("ScatterND", 18)
    for m in ("M1", "M2"):
        r = cache.solve(spec, {"data": parse_type("float[N,4]"), "indices": parse_type(f"int64[{m},1]"),
                               "updates": parse_type("float[K,4]")}, {})
        assert r.relations[f"K == {m}"].sympy() == sympy.Eq(symbol("K"), symbol(m))
    assert cache.misses == 1


def test_contradiction_seen_through_unknown_dims():
    # two nodes need the same unknown dim to be 4 and 5: no input makes the model valid. The dim is a
    # fresh unknown (an input declared with no dim_param), which a text condition could not be parsed from.
    nodes = [helper.make_node("ScatterND", ["d1", "i", "u"], ["y1"]),
             helper.make_node("ScatterND", ["d2", "i", "u"], ["y2"])]
    g = helper.make_graph(nodes, "g", [
        helper.make_tensor_value_info("d1", T.FLOAT, [8, 4]), helper.make_tensor_value_info("d2", T.FLOAT, [8, 5]),
        helper.make_tensor_value_info("i", T.INT64, [2, 1]), helper.make_tensor_value_info("u", T.FLOAT, [2, None])],
        [helper.make_tensor_value_info("y1", T.FLOAT, None), helper.make_tensor_value_info("y2", T.FLOAT, None)])
    rep = check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    conds = [a["condition"] for a in rep.assumptions if a["kind"] == "condition"]
    assert conds == ["u.shape[1] == 4", "u.shape[1] == 5"]
    assert rep.violations and "cannot all hold" in rep.violations[0].message


def test_unknown_data_rank_is_derived_from_indices_and_updates():
    # ScatterND: only rank 2 makes updates [M,C] == indices.shape[:-1] ++ data.shape[1:] hold
    r = solve(REG.resolve("ScatterND", 18), {"data": "float", "indices": "int64[M,1]", "updates": "float[M,C]"})
    assert r.outputs["output"].rank == 2 and str(r.outputs["output"]) == "float[?,C]"
    assert "rank(data) == 2" in r.conditions
    # with k = 2 and updates [M], data has rank 2 as well
    r = solve(REG.resolve("ScatterND", 18), {"data": "float", "indices": "int64[M,2]", "updates": "float[M]"})
    assert r.outputs["output"].rank == 2 and "rank(data) == 2" in r.conditions


def test_disjunctions_over_one_dim_are_simplified_never_weakened():
    """``batch != 0 or batch == 4*batch`` always holds; ``seq != 0 or seq == 4`` is ``seq != 0``; a real
    disjunction stays."""
    from shapecheck.notation import Cond, Rel, or_
    from shapecheck.dims import symbol
    b, s, n = symbol("batch"), symbol("seq"), symbol("N")
    assert or_([Cond((Rel("!=", b, 0),)), Cond((Rel("==", b, 4 * b),))]) is True
    assert or_([Cond((Rel("!=", s, 0),)), Cond((Rel("==", s, 4),))]).texts() == ["seq != 0"]
    assert or_([Cond((Rel("==", n, 1),)), Cond((Rel("==", n, 4),))]).texts() == ["N == 1 or N == 4"]
    assert or_([Cond((Rel("==", n, 1),)), Cond((Rel("==", s, 4),))]).texts() == ["N == 1 or seq == 4"]


def test_model_conditions_name_only_the_models_dims_or_reported_runtime_sizes():
    """Issue 15, item 4, over both corpora: every condition of a model's list names only dims the
    model declares (inputs, outputs, value_info) or run-time sizes the report defines; never an
    internal tensor's dim (``/Expand_output_0.shape[0]``) and never an unnamed unknown."""
    import re
    from pathlib import Path

    import onnx

    from shapecheck.frontends.onnx_types import dim_from_param
    fixtures = Path(__file__).resolve().parent / "fixtures"
    paths = sorted((fixtures / "exports").glob("*.onnx")) + sorted((fixtures / "zoo").glob("*.onnx"))
    assert len(paths) >= 60   # the exports (yolo_anchors among them) and the zoo
    functions = {"floor", "ceiling", "Min", "Max", "Mod", "or", "and"}
    for path in paths:
        g = onnx.load(str(path), load_external_data=False).graph
        declared = {str(s) for vi in [*g.input, *g.output, *g.value_info] for d in vi.type.tensor_type.shape.dim
                    if d.dim_param for s in getattr(dim_from_param(d.dim_param), "free_symbols", ())}
        rep = check_model(str(path))
        runtime = {s["name"] for s in rep.symbols}
        for a in rep.assumptions:
            if a["kind"] == "condition":
                names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", a["condition"])) - functions
                assert names <= declared | runtime, (path.stem, a["condition"], names - declared - runtime)
                assert "?" not in a["condition"], (path.stem, a["condition"])


def test_a_reshape_target_that_copies_a_dim_zero_with_it_needs_no_condition():
    """TorchScript's decoders reshape [batch*seq, d] to [batch, seq, d]: a target dim batch that
    is 0 copies the input's batch*seq, which is then 0 too, so ``batch != 0 or batch ==
    batch*seq`` always holds and is not listed; the exports pass --strict."""
    from pathlib import Path
    for stem in ("t5_ts14", "bart_ts17"):
        path = Path(__file__).resolve().parent / "fixtures" / "zoo" / f"{stem}.onnx"
        rep = check_model(str(path), strict=True)
        assert not [a for a in rep.assumptions if "batch*seq" in a["condition"]], stem
    # T5's relative positions have no table: it passes --strict; BART's learned positions are a
    # table of 64 rows, whose limit the domain states (and --strict fails on)
    t5 = check_model(str(path.parent / "t5_ts14.onnx"), strict=True)
    assert t5.exit_code == 0 and not t5.domain.relations
    bart = check_model(str(path), strict=True)
    assert [r.text for r in bart.domain.relations] == ["1 <= seq <= 64", "1 <= dec_seq <= 64"] and bart.exit_code == 1
