"""A declaration that fills in what inference left unknown, or names dims differently from it, tried at
the smallest sizes the domain admits (``model/refinements.py``).  A new user's trial: dynamo declares ``x[:, ::2] + x[:, 1::2]`` as
``[B, ((T + 1)//2), 3]``; the report said OK and an annotated copy carried the claim, though at
T = 1, which the domain admits, the sum is ``[1, 0, 3]`` (onnxruntime too)."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto as T, helper

import shapecheck
from tests.harness.runtime import run_model


def _even_odd(declared):
    ints = lambda name, v: helper.make_tensor(name, T.INT64, [len(v)], v)  # noqa: E731
    nodes = [helper.make_node("Slice", ["x", "s0", "big", "ax", "two"], ["even"]),
             helper.make_node("Slice", ["x", "s1", "big", "ax", "two"], ["odd"]),
             helper.make_node("Add", ["even", "odd"], ["out"], name="add")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["B", "T", 3])],
                          [helper.make_tensor_value_info("out", T.FLOAT, declared)],
                          [ints("s0", [0]), ints("s1", [1]), ints("big", [1 << 62]), ints("ax", [1]), ints("two", [2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_a_declaration_wrong_at_an_admitted_size_is_a_warning_with_the_sizes():
    # inference now gives the sum's rows exactly (ceiling(T/2)*Min(1, ceiling(T/2 - 1/2)): a broadcast of
    # two dims that differ by the sizes), so the declaration states a condition; it fails at T = 1
    m = _even_odd(["B", "((T + 1)//2)", 3])   # as dynamo writes it
    assert run_model(m, {"x": np.ones((1, 1, 3), np.float32)})[0].shape == (1, 0, 3)
    rep = shapecheck.check_model(m)
    assert rep.domain.admits({"B": 1, "T": 1}) is True
    (d,) = rep.declarations
    assert (d.status, d.severity) == ("condition", "warning")
    assert "but at B = 1, T = 1, which the domain admits, inference gives float[1,0,3] where the graph output " \
           "says float[1,1,3]: the declaration is wrong there" in d.message
    assert d.fix == f"declare 'out' as {rep.types['out']}"
    rows = rep.types["out"].shape[1]
    for t in range(1, 9):   # the inferred rows are onnxruntime's wherever it runs, and it runs where admitted
        try:
            got = run_model(m, {"x": np.ones((2, t, 3), np.float32)})[0].shape
        except Exception:
            assert rep.domain.admits({"B": 2, "T": t}) is False, t
            continue
        assert rep.domain.admits({"B": 2, "T": t}) is True, t
        assert got[1] == rows.subs({s: t for s in rows.free_symbols}), t
    assert rep.exit_code == 0   # a warning: the graph itself runs there


def _shapes_of(m) -> dict:
    return {v.name: [x.dim_param or (x.dim_value if x.HasField("dim_value") else "?") for x in v.type.tensor_type.shape.dim]
            for v in list(m.graph.value_info) + list(m.graph.output)}


def _pick():
    """If(A > B) gives a[A], else b[B]: inference merges the branches into an unknown dim, which a
    value_info fills in as A: wrong at A = 1, B = 2, where the else branch gives 2 rows."""
    def branch(name, src):
        return helper.make_graph([helper.make_node("Identity", [src], [name + "_o"])], name, [],
                                 [helper.make_tensor_value_info(name + "_o", T.FLOAT, None)])
    nodes = [helper.make_node("Shape", ["a"], ["sa"]), helper.make_node("Shape", ["b"], ["sb"]),
             helper.make_node("Greater", ["sa", "sb"], ["c"]),
             helper.make_node("If", ["c"], ["pick"], then_branch=branch("then", "a"), else_branch=branch("else", "b")),
             helper.make_node("Relu", ["pick"], ["out"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", T.FLOAT, ["A"]),
                                       helper.make_tensor_value_info("b", T.FLOAT, ["B"])],
                          [helper.make_tensor_value_info("out", T.FLOAT, None)],
                          value_info=[helper.make_tensor_value_info("pick", T.FLOAT, ["A"])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_an_annotated_copy_writes_nothing_a_refuted_fill_in_gives(tmp_path):
    import onnx
    from shapecheck.cli import main
    m = _pick()
    a, b = np.ones(1, np.float32), np.ones(2, np.float32)
    assert run_model(m, {"a": a, "b": b})[0].shape == (2,)
    rep = shapecheck.check_model(m)
    (d,) = [d for d in rep.declarations if d.tensor == "pick"]
    assert (d.status, d.severity) == ("refines", "warning") and "at A = 1, B = 2" in d.message
    # neither the declared dim nor the type downstream of it (out, A by the fill-in) is written
    assert _shapes_of(shapecheck.annotate(m))["pick"] == ["?"] and _shapes_of(shapecheck.annotate(m))["out"] == ["?"]
    onnx.save(m, tmp_path / "m.onnx")
    assert main(["check", "-q", str(tmp_path / "m.onnx"), "--output", str(tmp_path / "a.onnx")]) == 0
    written = _shapes_of(onnx.load(tmp_path / "a.onnx"))
    assert written["pick"] == ["?"] and written["out"] == ["?"], written
    # a fill-in that holds at every size tried is written as before
    m.graph.value_info[0].type.tensor_type.shape.dim[0].dim_param = "P"
    assert _shapes_of(shapecheck.annotate(m))["pick"] == ["P"]


def test_a_declaration_over_other_input_dims_is_tried_at_the_smallest_sizes():
    # Expand(1, Max(Shape(a), Shape(b))) declared [A]: it holds only if A == Max(A, B), wrong at A = 1, B = 2
    nodes = [helper.make_node("Shape", ["a"], ["sa"]), helper.make_node("Shape", ["b"], ["sb"]),
             helper.make_node("Max", ["sa", "sb"], ["mx"]), helper.make_node("Expand", ["one", "mx"], ["e"]),
             helper.make_node("Relu", ["e"], ["out"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", T.FLOAT, ["A"]),
                                       helper.make_tensor_value_info("b", T.FLOAT, ["B"])],
                          [helper.make_tensor_value_info("out", T.FLOAT, None)], [helper.make_tensor("one", T.FLOAT, [1], [1.0])],
                          value_info=[helper.make_tensor_value_info("e", T.FLOAT, ["A"])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    assert run_model(m, {"a": np.ones(1, np.float32), "b": np.ones(2, np.float32)})[0].shape == (2,)
    (d,) = [d for d in shapecheck.check_model(m).declarations if d.tensor == "e"]
    assert (d.status, d.severity) == ("condition", "warning")
    assert d.message.endswith("it holds only if A == Max(A, B); but at A = 1, B = 2, which the domain admits, inference "
                              "gives float[2] where the value_info says float[1]: the declaration is wrong there")


def test_a_refinement_that_holds_at_the_sizes_tried_stays_a_note():
    rep = shapecheck.check_model(_even_odd(["B", "Tout", 3]))   # a name of its own: no claim to refute
    assert [(d.status, d.severity) for d in rep.declarations] in ([("refines", "info")], [("agrees", "info")])
