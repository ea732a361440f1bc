"""A declaration that fills in what inference left unknown, tried at the smallest sizes the domain
admits (``model/refinements.py``).  A new user's trial: dynamo declares ``x[:, ::2] + x[:, 1::2]`` as
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


def test_a_refinement_wrong_at_an_admitted_size_is_a_warning_with_the_sizes(capsys):
    m = _even_odd(["B", "((T + 1)//2)", 3])   # as dynamo writes it
    assert run_model(m, {"x": np.ones((1, 1, 3), np.float32)})[0].shape == (1, 0, 3)
    rep = shapecheck.check_model(m)
    assert rep.domain.admits({"B": 1, "T": 1}) is True
    (d,) = rep.declarations
    assert (d.status, d.severity) == ("refines", "warning")
    assert "but at B = 1, T = 1, which the domain admits, inference gives float[1,0,3] where the graph output " \
           "says float[1,1,3]" in d.message
    assert d.fix == "declare 'out' as float[B,?,3], what inference gives at every size"
    assert rep.exit_code == 0   # a warning: the graph itself runs there


def test_a_refinement_that_holds_at_the_sizes_tried_stays_a_note():
    rep = shapecheck.check_model(_even_odd(["B", "Tout", 3]))   # a name of its own: no claim to refute
    assert [(d.status, d.severity) for d in rep.declarations] in ([("refines", "info")], [("agrees", "info")])
