"""Which constants a bound's fix names (``model/provenance.py``): those whose number reaches the node
that needs the bound, along tensors that still hold it.

A new user's trial: a rotary block with a 32-row cos cache and a hidden size of 32 was told to enlarge
the cache *and* the qkv projection's weight ``float[32,96]``; the projection's 32 is its input width,
which its MatMul sums away, and no size of it bounds the sequence.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto as T, helper

import shapecheck
from tests.harness.runtime import run_model


def _rotary_like():
    """q = x @ w (w: float[32,16], hidden 32) times the first T rows of cos (float[32,16])."""
    rng = np.random.default_rng(0)
    w = helper.make_tensor("w", T.FLOAT, [32, 16], rng.standard_normal(512).astype(np.float32).tolist())
    cos = helper.make_tensor("cos", T.FLOAT, [32, 16], rng.standard_normal(512).astype(np.float32).tolist())
    ints = lambda name, v: helper.make_tensor(name, T.INT64, [len(v)], v)  # noqa: E731
    nodes = [helper.make_node("MatMul", ["x", "w"], ["q"], name="proj"),
             helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "one"], ["t"], axis=0),
             helper.make_node("Slice", ["cos", "zero", "t", "zero"], ["c"], name="rows"),
             helper.make_node("Mul", ["q", "c"], ["y"], name="rotate")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["B", "T", 32])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)],
                          [w, cos, ints("one", [1]), ints("zero", [0])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_a_weight_whose_width_is_the_bound_is_not_named():
    m = _rotary_like()
    assert run_model(m, {"x": np.ones((2, 32, 32), np.float32)}) is not None
    assert run_model(m, {"x": np.ones((2, 33, 32), np.float32)}) is None
    rep = shapecheck.check_model(m)
    (rel,) = [r for r in rep.domain.relations if r.dims == ("T",)]
    assert rel.text == "1 <= T <= 32"
    assert [c for s in rel.sources for c in s.constants] == ["initializer 'cos' float[32,16]"]
