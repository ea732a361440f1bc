"""Model-local functions are checked through their bodies with the caller's types bound; shapes
confirmed by onnxruntime at two sizes."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper

import shapecheck
from shapecheck.errors import UsageError


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def block():
    """local:Block(x, w) -> y = Transpose(x @ w, perm) with perm from the caller's attribute."""
    transpose = helper.make_node("Transpose", ["h"], ["y"])
    transpose.attribute.append(helper.make_attribute_ref("perm", onnx.AttributeProto.INTS))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), transpose]
    return helper.make_function("local", "Block", ["x", "w"], ["y"], nodes, [helper.make_opsetid("", 18)],
                                attributes=["perm"])


def nested():
    """local:Twice(x, w) -> Block(Block(x, w), w') via two calls: tensors of the two calls never mix."""
    nodes = [helper.make_node("Block", ["x", "w"], ["a"], domain="local", perm=[0, 2, 1]),
             helper.make_node("Block", ["a", "v"], ["y"], domain="local", perm=[0, 2, 1])]
    return helper.make_function("local", "Twice", ["x", "w", "v"], ["y"], nodes,
                                [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)])


def model(functions, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
                          functions=functions)
    m.ir_version = 9
    return m


def two_calls():
    w = helper.make_tensor("w", T.FLOAT, [4, 6], np.ones(24, np.float32))
    v = helper.make_tensor("v", T.FLOAT, [6, 3], np.ones(18, np.float32))
    nodes = [helper.make_node("Twice", ["x", "w", "v"], ["y"], name="t0", domain="local"),
             helper.make_node("Block", ["y", "v2"], ["z"], name="b1", domain="local", perm=[1, 0, 2])]
    v2 = helper.make_tensor("v2", T.FLOAT, [6, 2], np.ones(12, np.float32))
    return model([block(), nested()], nodes, [vi("x", T.FLOAT, ["B", "S", 4])],
                 [vi("z", T.FLOAT, None)], [w, v, v2])


@pytest.mark.parametrize("b,s", [(2, 5), (3, 1)])
def test_function_bodies_keep_symbolic_shapes(b, s):
    m = two_calls()
    rep = shapecheck.check_model(m)
    # Twice: [B,S,4] @ [4,6] -> [B,S,6] -> T [B,6,S]; Block([B,6,S], [6,3]) needs S == 6 -> [B,6,3] -> T [B,3,6]
    assert str(rep.types["y"]) == "float[B,3,6]" and str(rep.types["z"]) == "float[3,B,2]"
    assert rep.summary["invalid"] == 0 and rep.coverage["fallback"] == 0 and rep.coverage["unknown"] == 0
    assert {a["condition"] for a in rep.assumptions} == {"S == 6"}
    names = [n.name for n in rep.nodes]
    assert names == ["t0/Block_0/MatMul_0", "t0/Block_0/Transpose_1", "t0/Block_1/MatMul_0",
                     "t0/Block_1/Transpose_1", "b1/MatMul_0", "b1/Transpose_1"]
    # the stated condition is real: at S != 6 onnxruntime refuses the model
    with pytest.raises(Exception, match="MatMul"):
        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
            None, {"x": np.ones((b, s, 4), np.float32)})


@pytest.mark.parametrize("b", [2, 3])
def test_function_result_shapes_match_onnxruntime(b):
    m = two_calls()
    out = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": np.ones((b, 6, 4), np.float32)})[0]
    rep = shapecheck.check_model(m)
    dims = [d if isinstance(d, int) else int(d.subs({d.free_symbols.pop(): b})) for d in rep.types["z"].shape]
    assert tuple(dims) == out.shape == (3, b, 2)


def test_a_function_that_calls_itself_is_refused():
    loop = helper.make_function("local", "F", ["x"], ["y"],
                                [helper.make_node("F", ["x"], ["y"], domain="local")],
                                [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)])
    m = model([loop], [helper.make_node("F", ["x"], ["y"], domain="local")], [vi("x", T.FLOAT, [2])],
              [vi("y", T.FLOAT, None)])
    with pytest.raises(UsageError, match="calls itself"):
        shapecheck.check_model(m)
