"""A model checked from its path is let go once it is read (``ModelGraph.drop_model``): its parsed
protobuf is a 60k-node model's largest object.  Letting it go must not change an answer: every
model of the corpora is checked from its path (dropped) and from the ModelProto the caller holds
(kept), and the two reports must be equal; and nothing the check keeps holds on to the model.
"""
from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto as T, helper

import shapecheck
from shapecheck.frontends.graph import ModelGraph
from shapecheck.frontends.onnx_types import attr_value
from shapecheck.model import check
from shapecheck.registry import default_registry
from tests.harness.corpora import corpus_models
from tests.harness.fresh import _report


def _dropped(monkeypatch) -> list[ModelGraph]:
    seen: list[ModelGraph] = []
    drop = ModelGraph.drop_model

    def recorded(self):
        drop(self)
        seen.append(self)
    monkeypatch.setattr(ModelGraph, "drop_model", recorded)
    return seen


@pytest.mark.parametrize("path", [p for p in corpus_models() if p.endswith(".onnx")], ids=lambda p: p.split("/")[-1])
def test_a_model_checked_from_its_path_drops_it_and_reports_as_from_the_proto_it_was_read_from(path, monkeypatch):
    seen = _dropped(monkeypatch)
    from_path = _report(shapecheck.check_model(path))
    assert len(seen) == 1
    graph = seen[0]
    if graph.infer_node is None:   # onnx's per-node inference reads the nodes' protos: then nothing is dropped
        assert graph.proto is None and all(n.proto is None for n in graph.nodes)
    kept = onnx.load(path, load_external_data=False)
    assert _report(shapecheck.check_model(kept)) == from_path
    assert len(seen) == 1   # a model the caller passed in is the caller's: never dropped


def test_annotate_and_an_output_file_keep_the_model(tmp_path, monkeypatch):
    seen = _dropped(monkeypatch)
    path = "examples/kv_cache.onnx"
    shapecheck.check_model(path, output=str(tmp_path / "out.onnx"))
    shapecheck.annotate(path)
    assert seen == []
    assert onnx.load(str(tmp_path / "out.onnx")).graph.output[0].type.tensor_type.shape.dim


def test_a_tensor_attribute_is_read_into_a_message_of_its_own():
    # a reference into the parsed model would keep all of it alive
    value = helper.make_tensor("v", T.FLOAT, [1], [2.5])
    node = helper.make_node("ConstantOfShape", ["s"], ["y"], value=value)
    got = attr_value(node.attribute[0])
    node.attribute[0].t.float_data[0] = 7.0
    assert list(got.float_data) == [2.5] and got.dims == [1]


def test_run_checks_reads_the_exporters_ranges_before_it_drops_the_model(tmp_path, monkeypatch):
    # a recorded range lives in the model's metadata: it is read first, then the model is dropped
    x = helper.make_tensor_value_info("x", T.FLOAT, ["seq"])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    from shapecheck.model.sizes import RANGES_KEY
    m.metadata_props.add(key=RANGES_KEY, value="{seq: VR[2, 64]}")
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    declared = []
    check_graph = check.check_graph
    monkeypatch.setattr(check, "check_graph", lambda graph, *a: declared.append(a[4]) or check_graph(graph, *a))
    graph = check.load_graph(str(path), default_registry())
    dropped = check.run_checks(graph, default_registry(), drop_model=True)
    assert graph.proto is None
    kept = check.run_checks(check.load_graph(str(path), default_registry()), default_registry())
    # each run checks with the recorded range, then once more without its top (model/recorded.py)
    assert declared == [{"seq": (2, 64)}, {"seq": (2, None)}, {"seq": (2, 64)}, {"seq": (2, None)}]
    assert _report(dropped) == _report(kept)
