"""Whole-graph symbolic values: shapes computed in the graph keep the model's dims, from specs alone.

Issue 15's "done means": with no value_info, x: float[N,3,4] -> Shape -> Gather([0]) -> Concat with
[-1] -> Reshape gives float[N,12]; Range(0, Shape(x)[1], 1) gives int64[S]; Expand(y, Shape(x))
gives x's shape.  Each graph is also run in onnxruntime at two sizes to confirm the dims.
"""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from shapecheck.model.check import check_model


def _model(nodes, inputs, outputs, inits, opset=18):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, T.FLOAT, s) for n, s in inputs],
                          [helper.make_empty_tensor_value_info(o) for o in outputs],
                          initializer=[numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


RESHAPE = dict(
    nodes=[helper.make_node("Shape", ["x"], ["s"]),
           helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
           helper.make_node("Concat", ["n", "minus1"], ["target"], axis=0),
           helper.make_node("Reshape", ["x", "target"], ["y"])],
    inputs=[("x", ["N", 3, 4])], outputs=["y", "target"],
    inits={"i0": np.array([0], np.int64), "minus1": np.array([-1], np.int64)})

RANGE = dict(
    nodes=[helper.make_node("Shape", ["x"], ["s"]),
           helper.make_node("Gather", ["s", "i1"], ["len"], axis=0),
           helper.make_node("Range", ["zero", "len", "one"], ["r"])],
    inputs=[("x", ["B", "S", 4])], outputs=["r"],
    inits={"i1": np.array(1, np.int64), "zero": np.array(0, np.int64), "one": np.array(1, np.int64)})

EXPAND = dict(
    nodes=[helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Expand", ["y", "s"], ["e"])],
    inputs=[("x", ["B", "S", 4]), ("y", [1, 4])], outputs=["e"], inits={})


# ultralytics' make_anchors: arange over a map's width in float (a size cast to float, a float Range)
FLOAT_RANGE = dict(
    nodes=[helper.make_node("Shape", ["x"], ["s"]),
           helper.make_node("Gather", ["s", "i1"], ["len"], axis=0),
           helper.make_node("Cast", ["len"], ["lenf"], to=T.FLOAT),
           helper.make_node("Range", ["zero", "lenf", "one"], ["r"]),
           helper.make_node("Add", ["r", "half"], ["sx"])],
    inputs=[("x", ["B", "S", 4])], outputs=["sx"],
    inits={"i1": np.array(1, np.int64), "zero": np.array(0, np.float32), "one": np.array(1, np.float32),
           "half": np.array(0.5, np.float32)})

# a Slice to INT64_MAX of a dim that is an expression (a strided pool's output length) is the whole dim
SLICE_TO_END = dict(
    nodes=[helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[3], strides=[2]),
           helper.make_node("Slice", ["p", "st", "en", "ax"], ["y"])],
    inputs=[("x", [1, 3, "S"])], outputs=["y"],
    inits={"st": np.array([0], np.int64), "en": np.array([(1 << 63) - 1], np.int64), "ax": np.array([2], np.int64)})


@pytest.mark.parametrize("case,tensor,want", [
    (RESHAPE, "y", "float[N,12]"),
    (FLOAT_RANGE, "sx", "float[S]"),
    (SLICE_TO_END, "y", "float[1,3,floor(S/2-3/2)+1]"),
    (RESHAPE, "target", "int64[2] = [N, -1]"),
    (RANGE, "r", "int64[S]"),
    (EXPAND, "e", "float[B,S,4]"),
])
def test_shapes_computed_in_the_graph_keep_the_models_dims(case, tensor, want):
    m = _model(**case)
    rep = check_model(m)
    assert str(rep.types[tensor]) == want
    assert rep.summary["skipped"] == 0 and rep.summary["invalid"] == 0
    assert rep.summary["conditional"] == 0 or case is SLICE_TO_END   # the pool needs S >= 3
    # the runtime agrees at two sizes
    sess = ort.InferenceSession(m.SerializeToString())
    declared = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in m.graph.input}
    for sizes in ({"N": 2, "B": 2, "S": 5}, {"N": 7, "B": 3, "S": 3 if case is SLICE_TO_END else 1}):
        feeds = {n: np.zeros([sizes.get(d, d) if isinstance(d, str) else d for d in dims], np.float32)
                 for n, dims in declared.items()}
        got = dict(zip([o.name for o in m.graph.output], sess.run(None, feeds)))
        t = rep.types[tensor]
        assert list(got[tensor].shape) == [int(d.subs({x: sizes[x.name] for x in d.free_symbols}))
                                           if not isinstance(d, int) else d for d in t.shape]


def test_fresh_unknowns_are_not_shared_between_nodes():
    # two Range nodes with the same signature and a run-time length: their lengths are two unknowns,
    # never the same one (a cached solve must not make them equal)
    nodes = [helper.make_node("Range", ["zero", "a", "one"], ["r1"]),
             helper.make_node("Range", ["zero", "b", "one"], ["r2"]),
             helper.make_node("Add", ["r1", "r2"], ["sum"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", T.INT64, []),
                                       helper.make_tensor_value_info("b", T.INT64, [])],
                          [helper.make_tensor_value_info("sum", T.INT64, None)],
                          initializer=[numpy_helper.from_array(np.array(0, np.int64), "zero"),
                                       numpy_helper.from_array(np.array(1, np.int64), "one")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    rep = check_model(m)
    d1, d2 = rep.types["r1"].shape[0], rep.types["r2"].shape[0]
    assert d1 != d2


def test_dead_branch_of_a_constant_if_claims_nothing():
    # the then-branch declares an output it never produces at run time: the condition is a constant false
    then = helper.make_graph([helper.make_node("Reshape", ["x", "flat"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", T.FLOAT, ["wrong"])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", T.FLOAT, ["N", 3])])
    g = helper.make_graph([helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other)], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["N", 3])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)],
                          initializer=[numpy_helper.from_array(np.array(False), "cond"),
                                       numpy_helper.from_array(np.array([-1], np.int64), "flat")])
    rep = check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    assert rep.summary.get("dead") == 1
    assert not [a for a in rep.assumptions if a["kind"] == "condition"]
    assert str(rep.types["y"]) == "float[N,3]"


def test_expression_dim_params_unify_with_derived_dims():
    # a KV cache grows by Concat: the declared output dim 'past_seq_len + seq_len' is parsed as an
    # expression (never eval'd) and agrees with the inferred past_seq_len + seq_len
    g = helper.make_graph([helper.make_node("Concat", ["past", "x"], ["y"], axis=1)], "g",
                          [helper.make_tensor_value_info("past", T.FLOAT, ["batch", "past_seq_len", 4]),
                           helper.make_tensor_value_info("x", T.FLOAT, ["batch", "seq_len", 4])],
                          [helper.make_tensor_value_info("y", T.FLOAT, ["batch", "past_seq_len + seq_len", 4])])
    rep = check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    assert str(rep.types["y"]) == "float[batch,past_seq_len+seq_len,4]"
    assert [d.status for d in rep.declarations] == ["agrees"] and rep.exit_code == 0
    # a name no input declares is defined by the sum it names: nothing to assume
    g.output[0].type.tensor_type.shape.dim[1].dim_param = "total_len"
    rep = check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    assert not rep.assumptions and "total_len = past_seq_len+seq_len" in rep.declarations[0].message
    # a declaration that names the sum by an input's name is a stated condition, not an agreement
    g.output[0].type.tensor_type.shape.dim[1].dim_param = "seq_len"
    rep = check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    assert [a["condition"] for a in rep.assumptions] == ["past_seq_len == 0"]


def test_an_export_that_bakes_the_batch_size_is_valid_only_for_that_batch():
    # TorchScript baked the traced batch (2) into a Reshape target; onnxruntime refuses batch 3
    from pathlib import Path
    path = Path(__file__).parent / "fixtures" / "exports" / "kv_sink_ts14.onnx"
    rep = check_model(str(path))
    conds = [a["condition"] for a in rep.assumptions if a["kind"] == "condition"]
    assert "batch == 2" in conds
    assert check_model(str(path), strict=True).exit_code == 1


def test_a_scatter_on_a_shape_tensor_keeps_its_dims():
    # torch's index_copy_ writes a length into Shape(cache) with ScatterElements, then Expands to it
    from shapecheck import infer
    for op, idx in (("ScatterElements", "int64[1] = [2]"), ("ScatterND", "int64[1,1] = [[2]]")):
        r = infer(op, 18, {"data": "int64[4] = [B, 4, 16, 8]", "indices": idx, "updates": "int64[1] = [S]"})
        assert str(r.outputs["output"]) == "int64[4] = [B, 4, S, 8]"
    r = infer("ScatterElements", 18, {"data": "int64[2] = [B, 2]", "indices": "int64[1] = [-1]",
                                      "updates": "int64[1] = [3]"}, {"reduction": "add"})
    assert str(r.outputs["output"]) == "int64[2] = [B, 5]"


def test_a_reshaped_shape_tensor_keeps_its_value():
    from shapecheck import infer
    r = infer("Reshape", 14, {"data": "int64[4] = [B, -1, S, S]", "shape": "int64[1] = [-1]"})
    assert str(r.outputs["reshaped"]) == "int64[4] = [B, -1, S, S]"
    assert str(infer("Reshape", 14, {"data": "int64[1] = [B]", "shape": "int64[0] = []"}).outputs["reshaped"]) \
        == "int64[] = B"


def test_a_size_held_in_float_is_exact_under_the_stated_assumption():
    """A size cast to float32 keeps its value (the float Range above is [S] long), and the domain says
    what that assumes: every size held in float below 2**24, naming the node.  A cast to float16 (exact
    only up to 2048) keeps no value, and nothing is assumed."""
    rep = check_model(_model(**FLOAT_RANGE))
    assert "every size held in float below 2**24" in rep.domain.assumption and "Cast" in rep.domain.assumption
    half = {**FLOAT_RANGE, "nodes": [n if n.op_type != "Cast" else helper.make_node("Cast", ["len"], ["lenf"], to=T.FLOAT16)
                                     for n in FLOAT_RANGE["nodes"][:3]]}
    half["outputs"] = ["lenf"]
    rep16 = check_model(_model(**half))
    assert str(rep16.types["lenf"]) == "float16[]" and "2**24" not in rep16.domain.assumption
    assert "2**24" not in check_model(_model(**RANGE)).domain.assumption   # an integer Range assumes nothing


def test_a_float_value_cast_back_to_int_keeps_only_integers():
    """Cast to an integer type truncates: an element that is an integer for every size passes, any other
    (a float quotient W/8) is a fresh size, never the quotient itself."""
    import sympy
    from shapecheck.dims import is_unknown, symbol
    from shapecheck.functions.constant import cast_value
    W = symbol("W")
    kept, quotient = cast_value((W, 2 * W + 1), "int64"), cast_value((W / 8,), "int64")
    assert kept == (W, 2 * W + 1) and is_unknown(quotient[0]) and not isinstance(quotient[0], sympy.Rational)
    # brute force: the float round trip of a size below 2**24 is the size (what the assumption rests on)
    for w in (1, 7, 2**23 + 1, 2**24 - 1, 2**24):
        assert int(np.float32(w)) == w
    assert int(np.float32(2**24 + 1)) != 2**24 + 1


def test_a_tf2onnx_unk_name_on_a_graph_input_is_a_dim_of_its_own():
    """tf2onnx names the batch unk__214: on a graph input it is the model's name for that dim (onnxruntime
    keeps it), so two inputs that share it share the dim; in a declaration (value_info) it is one onnx's
    inference made up, unknown."""
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"])], "g",
                          [helper.make_tensor_value_info("a", T.FLOAT, ["unk__214", 3]),
                           helper.make_tensor_value_info("b", T.FLOAT, ["unk__214", 3])],
                          [helper.make_tensor_value_info("c", T.FLOAT, ["unk__9", 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    rep = check_model(m)
    assert str(rep.types["c"]) == "float[unk__214,3]" and rep.summary["conditional"] == 0
    assert [d.status for d in rep.declarations if d.tensor == "c"] != ["contradicts"]
