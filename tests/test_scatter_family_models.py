"""The new ONNX specs inside models (TensorScatter with and without its optional input, GatherND
with batch_dims, GatherElements), and the OpenVINO specs through ``infer`` and the CLI."""
from __future__ import annotations

import json

from onnx import TensorProto as T
from onnx import helper

import shapecheck
from shapecheck.cli import main


def _model(past_len="M", update_len="S", w_shape=("B",)):
    g = helper.make_graph([
        helper.make_node("TensorScatter", ["k", "u", ""], ["k2"], mode="circular"),
        helper.make_node("TensorScatter", ["k2", "u", "w"], ["k3"]),
        helper.make_node("GatherND", ["k3", "i"], ["g"], batch_dims=1),
        helper.make_node("GatherElements", ["d", "j"], ["h"], axis=1)], "g",
        [helper.make_tensor_value_info("k", T.FLOAT, ["B", 8, past_len, 64]),
         helper.make_tensor_value_info("u", T.FLOAT, ["B", 8, update_len, 64]),
         helper.make_tensor_value_info("w", T.INT64, list(w_shape)),
         helper.make_tensor_value_info("i", T.INT64, ["B", 3, 2]),
         helper.make_tensor_value_info("d", T.FLOAT, [3, 7]), helper.make_tensor_value_info("j", T.INT64, [3, 9])],
        [helper.make_tensor_value_info("g", T.FLOAT, None), helper.make_tensor_value_info("h", T.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 24)])


def test_kv_cache_model_is_checked_with_its_conditions():
    rep = shapecheck.check_model(_model())
    got = [(n.op_type, n.spec, n.status, n.outputs["output"], n.conditions) for n in rep.nodes]
    assert got == [("TensorScatter", "TensorScatter-24", "conditional", "float[B,8,M,64]", ["S <= M"]),
                   ("TensorScatter", "TensorScatter-24", "conditional", "float[B,8,M,64]", ["S <= M"]),
                   ("GatherND", "GatherND-13", "valid", "float[B,3,64]", []),
                   ("GatherElements", "GatherElements-13", "valid", "float[3,9]", [])]
    assert [a["condition"] for a in rep.assumptions] == ["S <= M"]


def test_kv_cache_model_broken():
    rep = shapecheck.check_model(_model(past_len=4, update_len=6, w_shape=(2,)))
    ts = [n for n in rep.nodes if n.op_type == "TensorScatter"]
    assert [sorted(v.constraint for v in n.violations) for n in ts] == [["C4"], ["C4"]]
    assert ts[1].conditions == ["B == 2"]      # write_indices has 2 entries: valid only for batch 2


def test_infer_cli_takes_openvino_ops_with_their_opset(capsys):
    argv = ["infer", "--json", "openvino:ScatterNDUpdate", "--opset", "15", "-i", "data=f32[N,4]",
            "-i", "indices=i32[M,1]", "-i", "updates=f32[M,4]", "-a", "reduction=sub"]
    assert main(argv) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["spec"] == "openvino:ScatterNDUpdate-15" and d["status"] == "valid"
    argv[argv.index("15")] = "14"
    assert main(argv) == 2           # version 3 (opsets 3..14) has no reduction: the hint names -15
    assert "use openvino:ScatterNDUpdate-15 (opset >= 15)" in capsys.readouterr().err
    r = shapecheck.infer("openvino:SliceScatter", 15, {"data": "float[4,10]", "updates": "float[4,5]",
                                                       "start": "int64[1] = [0]", "stop": "int64[1] = [10]",
                                                       "step": "int64[1] = [2]", "axes": "int64[1] = [1]"})
    assert r.status == "valid" and str(r.outputs["output"]) == "float[4,10]"
