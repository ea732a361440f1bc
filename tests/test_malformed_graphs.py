"""Graphs that are no graphs, which a new user's trial saw reported ``OK`` (exit 0) or with an input
domain: a graph output nothing makes, an operator ai.onnx does not have, a cycle.  onnxruntime
refuses to load each; shapecheck fails each, and its domain is ``no input size``.  And what a node
needs of types nothing infers (``dtype(X) in T`` after a custom op) is no size condition."""
from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto as T, helper

from shapecheck import check_model
from shapecheck.cli import main

ort = pytest.importorskip("onnxruntime")


def _model(nodes, outputs=("y",), opsets=(("", 18),)) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N", 4])],
                          [helper.make_tensor_value_info(o, T.FLOAT, None) for o in outputs])
    return helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])


MALFORMED = {
    "an output nothing makes": (_model([helper.make_node("Relu", ["x"], ["t"])]), "G3"),
    "an operator ai.onnx does not have": (_model([helper.make_node("NotAnOp", ["x"], ["y"])]), "opset"),
    "a cycle": (_model([helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Relu", ["a"], ["b"]),
                        helper.make_node("Relu", ["a"], ["y"])]), "G2"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_graph_onnxruntime_refuses_to_load_is_valid_at_no_size(name, tmp_path, capsys):
    model, rule = MALFORMED[name]
    with pytest.raises(Exception):
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    report = check_model(model)
    assert report.failed and report.domain.text() == "no input size" and report.domain.admits({"N": 2}) is False
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    assert main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert f"error[{rule}]" in err and "valid for: no input size" in out


def test_what_a_node_needs_of_types_nothing_infers_is_no_size_condition(capsys, tmp_path):
    model = _model([helper.make_node("Foo", ["x"], ["f"], domain="my.custom"), helper.make_node("Relu", ["f"], ["y"])],
                   opsets=(("", 18), ("my.custom", 1)))
    report = check_model(model)
    (rel,) = report.domain.relations
    assert rel.opaque and rel.text == "dtype(X) in T"
    assert report.domain.text() == "N >= 1, where 1 condition on what is not inferred holds"
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    main(["check", str(path)])
    out = capsys.readouterr().out
    assert "  dtype(X) in T    (needed by Relu_1, of types or shapes not inferred here: not a size condition)" in out
