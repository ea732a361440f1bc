"""Sibling subgraphs that name their tensors alike (``frontends/onnx_siblings.py``).

ONNX lets an If's then and else branches each make a tensor ``B``; the reader, which holds every
tensor of a model in one table of names, took the branch read last for both, so the If's output had
one branch's rank.  A new user's trial found it on skl2onnx's KNNImputer (``knn_imputer.onnx``: made
with scikit-learn 1.9.1 and skl2onnx 1.20.0, ``to_onnx(KNNImputer(n_neighbors=3).fit(X), X[:1],
target_opset=18)``, X a seeded 20x4 float array with NaNs in column 1, its batch dim named ``batch``):
a ScatterND in a branch was reported invalid (updates ``[n,3]`` for ``[n]``) where onnxruntime runs.

What is still missing there: the If's output has rank 2 or 3 by the branch taken, a type shapecheck
cannot hold, so the model's domain states conditions over its internal tensors
(``rank(knn_imputer_column_nan_found/calc_impute_output) == 1``).  That is why the model lives in
``tests/data``, not among the corpora of ``tests/fixtures``, whose domains
``test_domain_corpus.test_no_condition_names_an_internal_tensor`` holds to input dims.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T, helper

import shapecheck
from tests.harness.runtime import run_model

KNN = Path(__file__).parent / "data" / "regions" / "knn_imputer.onnx"


def _if_model() -> onnx.ModelProto:
    """An If whose branches both output ``B``: rank 3 (then) or rank 2 (else), reduced over axis 1."""
    then = helper.make_graph([helper.make_node("Unsqueeze", ["x", "ax"], ["B"])], "then", [],
                             [helper.make_tensor_value_info("B", T.FLOAT, None)])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["B"])], "else", [],
                              [helper.make_tensor_value_info("B", T.FLOAT, None)])
    nodes = [helper.make_node("Constant", [], ["ax"], value=helper.make_tensor("v", T.INT64, [1], [1])),
             helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other),
             helper.make_node("ReduceSum", ["y", "ax"], ["z"], keepdims=0)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N", 20]),
                                       helper.make_tensor_value_info("c", T.BOOL, [])],
                          [helper.make_tensor_value_info("z", T.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_an_ifs_branches_that_name_their_outputs_alike_keep_their_own_types():
    m = _if_model()
    ranks = {c: run_model(m, {"x": np.ones((5, 20), np.float32), "c": np.array(c)})[0].ndim for c in (True, False)}
    assert ranks == {True: 2, False: 1}   # onnxruntime: the branch decides the rank
    rep = shapecheck.check_model(m)
    y = rep.types["y"]
    assert y.shape is None   # either rank: not one branch's [N,1,20] or [N,20]
    (reduce,) = [n for n in rep.nodes if n.op_type == "ReduceSum"]
    assert reduce.status != "invalid" and reduce.outputs["reduced"] == "float"
    branch_types = {n.name.split("/")[1]: n.outputs for n in rep.nodes if "_branch/" in n.name}
    assert branch_types == {"else_branch": {"output": "float[N,20]"}, "then_branch": {"expanded": "float[N,1,20]"}}


def test_the_ir_reader_and_the_proto_reader_agree_on_it():
    import onnx_ir as ir
    from shapecheck.passes import infer_shapes
    m = _if_model()
    model = ir.serde.deserialize_model(m)
    infer_shapes(model)
    (if_node,) = [n for n in model.graph if n.op_type == "If"]
    assert if_node.outputs[0].shape is None and shapecheck.check_model(m).types["y"].shape is None


def test_an_annotated_copy_leaves_the_shared_names_as_they_were():
    m = _if_model()
    out = shapecheck.annotate(m)
    (if_node,) = [n for n in out.graph.node if n.op_type == "If"]
    for a in if_node.attribute:
        (b,) = a.g.output
        assert not b.type.tensor_type.HasField("shape"), a.name   # no branch gets the other's type
    assert {vi.name for vi in out.graph.value_info} >= {"y"}


def test_knn_imputer_is_valid_where_onnxruntime_runs_it():
    rep = shapecheck.check_model(str(KNN))
    assert rep.exit_code == 0 and not rep.violations, [str(v) for v in rep.violations]
    assert not [n.name for n in rep.nodes if n.status == "invalid"]
    assert str(rep.types[onnx.load(str(KNN)).graph.output[0].name]) == "float[batch,4]"
    rng = np.random.default_rng(3)
    for batch in (1, 4, 9):
        x = rng.random((batch, 4), dtype=np.float32)
        x[::2, 1] = np.nan
        x[0, 3] = np.nan
        (y,) = run_model(onnx.load(str(KNN)), {"X": x})
        assert y.shape == (batch, 4) and not np.isnan(y).any()
