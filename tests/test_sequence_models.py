"""Sequences, optionals and maps through a whole model: the forward pass (If, Loop, Scan and
SequenceMap's body), declarations compared with inference, the annotated copy (onnx.checker's full
check accepts it), JSON, and the solve cache keyed by what a sequence's type says.

The models are onnx's own backend models (node and model cases) with sequence, optional and control
flow ops, and a few written here.
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T, helper

import shapecheck
from shapecheck.containers import SequenceType, parse_value_type
from shapecheck.registry import default_registry
from shapecheck.solver.cache import SolveCache

OPS = {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength",
       "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalGetElement", "OptionalHasElement",
       "Scan", "Loop", "If"}


def _onnx_cases() -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.model import collect_testcases as model_cases
        from onnx.backend.test.case.node import collect_testcases
        cases = list(collect_testcases()) + list(model_cases())
    return {c.name: c.model for c in cases if c.model is not None and any(n.op_type in OPS for n in c.model.graph.node)}


CASES = _onnx_cases()
EXPECTED = {
    "test_sequence_model4": {"out": "float[2,9,4]"},
    "test_sequence_model5": {"out": "float[2,3,4,3]"},
    "test_sequence_model6": {"len": "int64[] = 4"},
    "test_sequence_model7": {"out": "double[3,4]"},
    "test_split_to_sequence_2": {"seq": "seq(float[?,6], 2)"},   # the split is an input: each part unknown
    "test_sequence_map_extract_shapes": {"shapes": "seq(int64[3])"},
    "test_if_seq": {"res": "seq(float[5], 1)"},
    "test_if_opt": {"sequence": "optional(seq(float[5]))"},
    "test_scan9_sum": {"y": "float[2]", "z": "float[3,2]"},
}


def test_the_onnx_models_are_collected():
    assert len(CASES) >= 60 and set(EXPECTED) <= set(CASES)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_outputs_are_inferred(name):
    report = shapecheck.check_model(CASES[name])
    assert report.coverage["unknown"] == 0
    assert {o: str(report.types[o]) for o in EXPECTED[name]} == EXPECTED[name]


def test_every_annotated_model_passes_onnxs_full_check():
    for name, model in sorted(CASES.items()):
        onnx.checker.check_model(shapecheck.annotate(model), full_check=True)


def test_annotate_types_a_sequence_maps_outputs():
    out = shapecheck.annotate(CASES["test_sequence_map_extract_shapes"])
    [vi] = [o for o in out.graph.output if o.name == "shapes"]
    elem = vi.type.sequence_type.elem_type.tensor_type
    assert elem.elem_type == T.INT64 and [d.dim_value for d in elem.shape.dim] == [3]


def _model(nodes, inputs, outputs, opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _seq_info(name, elem, dims):
    return helper.make_value_info(name, helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, dims)))


def test_a_known_split_keeps_each_part_and_its_length():
    m = _model([helper.make_node("SplitToSequence", ["x", "split"], ["s"], axis=1),
                helper.make_node("SequenceAt", ["s", "one"], ["y"]),
                helper.make_node("SequenceLength", ["s"], ["n"]),
                helper.make_node("ConcatFromSequence", ["s"], ["z"], axis=0)],
               [helper.make_tensor_value_info("x", T.FLOAT, ["N", 6])],
               [helper.make_tensor_value_info("y", T.FLOAT, None), helper.make_tensor_value_info("n", T.INT64, []),
                helper.make_tensor_value_info("z", T.FLOAT, None)])
    m.graph.initializer.extend([onnx.numpy_helper.from_array(np.array([2, 4], np.int64), "split"),
                                onnx.numpy_helper.from_array(np.array(1, np.int64), "one")])
    r = shapecheck.check_model(m)
    assert (str(r.types["y"]), str(r.types["n"])) == ("float[N,4]", "int64[] = 2")
    # the parts differ on axis 1: concatenated on axis 0 they must agree there, which they do not
    assert r.exit_code == 1 and [v.constraint for n in r.nodes for v in n.violations] == ["C6"]


def test_a_declaration_is_compared_with_the_inferred_sequence():
    nodes = [helper.make_node("SequenceConstruct", ["a", "b"], ["s"])]
    ins = [helper.make_tensor_value_info(x, T.FLOAT, ["N", 4]) for x in "ab"]
    agree = shapecheck.check_model(_model(nodes, ins, [_seq_info("s", T.FLOAT, [None, 4])]))
    assert agree.exit_code == 0 and agree.declarations[0].status == "agrees"
    wrong_kind = shapecheck.check_model(_model(nodes, ins, [helper.make_tensor_value_info("s", T.FLOAT, None)]))
    assert wrong_kind.declarations[0].status == "contradicts"
    assert "sequence inferred" in wrong_kind.declarations[0].message
    wrong_elem = shapecheck.check_model(_model(nodes, ins, [_seq_info("s", T.INT64, None)]))
    assert wrong_elem.declarations[0].status == "contradicts"


def test_an_optional_known_empty_decides_an_if():
    then = helper.make_graph([helper.make_node("Constant", [], ["t"], value=helper.make_tensor("v", T.FLOAT, [1], [1.0]))],
                             "then", [], [helper.make_tensor_value_info("t", T.FLOAT, [1])])
    other = helper.make_graph([helper.make_node("Constant", [], ["e"], value=helper.make_tensor("v", T.FLOAT, [2], [1, 2]))],
                              "else", [], [helper.make_tensor_value_info("e", T.FLOAT, [2])])
    m = _model([helper.make_node("Optional", [], ["o"], type=helper.make_tensor_type_proto(T.FLOAT, [3])),
                helper.make_node("OptionalHasElement", ["o"], ["has"]),
                helper.make_node("If", ["has"], ["y"], then_branch=then, else_branch=other)],
               [], [helper.make_tensor_value_info("y", T.FLOAT, None)])
    r = shapecheck.check_model(m)
    assert str(r.types["has"]) == "bool[] = false" and str(r.types["y"]).startswith("float[2]")


def test_json_prints_the_types_of_sequences():
    r = shapecheck.check_model(CASES["test_sequence_model6"])
    nodes = json.loads(json.dumps(r.to_dict()))["nodes"]
    assert any(o.startswith("seq(float") for n in nodes for o in n["outputs"].values())


def test_the_solve_cache_keys_cover_a_sequences_element_type_and_length():
    cache = SolveCache()
    spec = default_registry().resolve("SequenceLength", 18)
    a = cache.solve(spec, {"input_sequence": parse_value_type("seq(float[N], 2)")}, {})
    b = cache.solve(spec, {"input_sequence": parse_value_type("seq(float[N], 3)")}, {})
    c = cache.solve(spec, {"input_sequence": parse_value_type("seq(bfloat16[N], 2)")}, {})
    assert (str(a.outputs["length"]), str(b.outputs["length"])) == ("int64[] = 2", "int64[] = 3")
    assert c.status == "invalid" and cache.misses == 3
    renamed = cache.solve(spec, {"input_sequence": SequenceType(parse_value_type("float[M]"), 2)}, {})
    assert cache.misses == 3 and str(renamed.outputs["length"]) == "int64[] = 2"


def test_annotate_writes_sequence_types_into_value_info():
    """A sequence's type (SequenceConstruct's, SequenceInsert's into an empty sequence) is written as ONNX's
    sequence TypeProto, its elements' dims where known; onnx's full checker accepts the copy."""
    h = helper
    g = h.make_graph([h.make_node("SequenceConstruct", ["a", "b"], ["s"]), h.make_node("SequenceLength", ["s"], ["n"]),
                      h.make_node("SequenceEmpty", [], ["e"], dtype=T.FLOAT), h.make_node("SequenceInsert", ["e", "a"], ["e2"])],
                     "g", [h.make_tensor_value_info("a", T.FLOAT, [2, 3]), h.make_tensor_value_info("b", T.FLOAT, [2, "N"])],
                     [h.make_tensor_value_info("n", T.INT64, None), h.make_tensor_value_info("e2", T.FLOAT, None)])
    out = shapecheck.annotate(h.make_model(g, opset_imports=[h.make_opsetid("", 18)]))
    types = {v.name: v.type for v in list(out.graph.value_info) + list(out.graph.output)}
    assert types["s"].sequence_type.elem_type.tensor_type.shape.dim[0].dim_value == 2
    assert [d.dim_value for d in types["e2"].sequence_type.elem_type.tensor_type.shape.dim] == [2, 3]
    assert types["e"].sequence_type.elem_type.tensor_type.elem_type == T.FLOAT
    onnx.checker.check_model(out, full_check=True)
