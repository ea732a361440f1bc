"""The activation ops (Softmax, LogSoftmax, Hardmax, Dropout, the Gelu variants, BiasAdd): seeded
random cases against the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the
solver's types on concrete and on symbolic dims) and the rules' edges, and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.errors import ConstraintError

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import (against, check_views, code, compare, compare_in_domain, MS, randn, random_shape,
                                   rng_for, run_ort)


SOFTMAX = [(op, v, s) for op in ("Softmax", "LogSoftmax") for v in (1, 11, 13) for s in range(5)]


@pytest.mark.parametrize("op,opset,seed", SOFTMAX, ids=[f"{o}-{v}-{s}" for o, v, s in SOFTMAX])
def test_softmax_matches_onnxruntime(op, opset, seed):
    rng = rng_for(op, opset, seed)
    rank = int(rng.integers(1, 5))
    shape = [int(d) for d in rng.integers(1, 5, size=rank)]
    dt = (np.float32, np.float64)[int(rng.integers(2))]
    x = rng.standard_normal(shape).astype(dt)
    default_ok = opset >= 13 or rank >= 2        # the default axis 1 needs rank 2 before 13
    attrs = {} if default_ok and rng.random() < 0.3 else {"axis": int(rng.integers(-rank, rank))}
    check_views(op, opset, [("input", x)], attrs)


def test_softmax_coerces_to_2d_before_13():
    """Versions 1 and 11 normalize over every dim from axis on; 13 over axis alone (as onnxruntime)."""
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    old = check_views("Softmax", 11, [("input", x)], {"axis": 1})[0]
    new = check_views("Softmax", 13, [("input", x)], {"axis": 1})[0]
    np.testing.assert_allclose(old.reshape(2, 12).sum(axis=1), 1, rtol=1e-5)
    np.testing.assert_allclose(new.sum(axis=1), 1, rtol=1e-5)
    assert not np.allclose(old, new)


def test_softmax_axis_outside_the_rank_is_refuted():
    for opset in (1, 11, 13):
        r = shapecheck.infer("Softmax", opset, {"input": "float[N,S,D]"}, {"axis": 3})
        assert r.status == "invalid" and any(v.constraint == "C2" for v in r.violations)
        assert str(shapecheck.infer("LogSoftmax", opset, {"input": "float[N,S,D]"}).outputs["output"]) == "float[N,S,D]"


DROPOUT = [(v, s) for v in (7, 10, 12, 13) for s in range(5)]


BOOL = helper.np_dtype_to_tensor_dtype(np.dtype(bool))


@pytest.mark.parametrize("opset,seed", DROPOUT, ids=[f"Dropout-{v}-{s}" for v, s in DROPOUT])
def test_dropout_matches_onnxruntime(opset, seed):
    """Out of training mode (the values are deterministic): output = data, mask as onnxruntime gives."""
    rng = rng_for("Dropout", opset, seed)
    shape = [int(d) for d in rng.integers(1, 5, size=int(rng.integers(0, 4)))]
    dt = (np.float32, np.float64)[int(rng.integers(2))]
    x = rng.standard_normal(shape).astype(dt)
    inputs, attrs = [("data", x)], {}
    ratio = float(rng.choice([0.0, 0.25, 0.5]))
    if opset >= 12:
        if rng.random() < 0.7:
            inputs.append(("ratio", np.array(ratio, dtype=(np.float32, np.float64)[int(rng.integers(2))])))
            if rng.random() < 0.6:
                inputs.append(("training_mode", np.array(False)))
    else:
        attrs["ratio"] = ratio
    mask_type = helper.np_dtype_to_tensor_dtype(x.dtype) if opset < 10 else BOOL
    check_views("Dropout", opset, inputs, attrs, out_types=[helper.np_dtype_to_tensor_dtype(x.dtype), mask_type])


def test_dropout_training_keeps_the_shape():
    """In training mode the values are random; shapes and dtypes still match onnxruntime's."""
    x = np.ones((3, 4), np.float32)
    inputs = [("data", x), ("ratio", np.array(0.5, np.float32)), ("training_mode", np.array(True))]
    want = run_ort("Dropout", 13, inputs, {"seed": 1}, [1, BOOL])
    got = list(shapecheck.execute("Dropout", 13, dict(inputs), {"seed": 1}).values())
    assert [(g.dtype, g.shape) for g in got] == [(w.dtype, w.shape) for w in want]
    assert set(np.unique(got[0])) <= {0.0, 2.0}
    r = shapecheck.infer("Dropout", 13, {"data": "float[N,S]", "ratio": "float[]", "training_mode": "bool[]"})
    assert r.status == "valid" and [str(t) for t in r.outputs.values()] == ["float[N,S]", "bool[N,S]"]


HM_CASES = [(v, s) for v in (1, 11, 13) for s in range(6)]


@pytest.mark.parametrize("opset,seed", HM_CASES, ids=[f"Hardmax-{v}-{s}" for v, s in HM_CASES])
def test_hardmax_matches_onnxruntime(opset, seed):
    rng = rng_for("hardmax", opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 4))
    # onnxruntime has no float64 Hardmax; onnx.reference ignores the 2-D coercion of versions 1 and 11 (MO5),
    # so other types are compared with onnx.reference at version 13 only
    dt = [np.float32, np.float64, np.float16][seed % 3] if opset >= 13 else np.float32
    x = rng.integers(-2, 3, size=shape).astype(dt)          # small integers: ties, the first maximum wins
    attrs = {"axis": int(rng.integers(-rank, rank))} if rng.random() < 0.7 or (rank == 1 and opset < 13) else {}
    compare("Hardmax", opset, [("input", x)], attrs, [code(dt)], reference=dt != np.float32)


def test_hardmax_default_axis_of_a_vector_is_refuted_before_13():
    """The default axis is 1 before version 13: a rank-1 input fails in onnxruntime and in shapecheck (C2)."""
    x = np.array([1.0, 3.0], np.float32)
    with pytest.raises(Exception, match="axis"):
        run_ort("Hardmax", 11, [("input", x)], {}, [code(np.float32)])
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("Hardmax", 11, {"input": x})
    assert exc.value.constraint == "C2"
    assert shapecheck.execute("Hardmax", 13, {"input": x})["output"].tolist() == [0.0, 1.0]


GELU_CASES = [(op, s) for op in ("Gelu", "QuickGelu", "FastGelu", "BiasGelu") for s in range(4)]


@pytest.mark.parametrize("op,seed", GELU_CASES, ids=[f"{o}-{s}" for o, s in GELU_CASES])
def test_gelus_match_onnxruntime(op, seed):
    rng = rng_for("gelu", op, seed)
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    dt = np.float32 if rng.random() < 0.7 else np.float16
    x = randn(rng, shape, dt)
    bias = randn(rng, shape[-1:], dt)
    attrs = {}
    if op == "BiasGelu":
        inputs = [("A", x), ("B", bias)]
    elif op == "FastGelu":
        inputs = [("X", x), ("bias", bias if rng.random() < 0.5 else None)]
    else:
        inputs = [("X", x)]
        if op == "QuickGelu" and rng.random() < 0.5:
            attrs["alpha"] = 1.5
    compare_in_domain(op, 17, inputs, attrs, [code(dt)], domain=MS, tol=1e-3)


LOSS_CASES = [(op, v, s) for op, versions in (("NegativeLogLikelihoodLoss", (12, 13, 22)),
                                                ("SoftmaxCrossEntropyLoss", (12, 13))) for v in versions for s in range(3)]


@pytest.mark.parametrize("op,opset,seed", LOSS_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in LOSS_CASES])
def test_losses_match_the_runtimes(op, opset, seed):
    """The losses on seeded [N, C, d...] inputs, every reduction, with weights and ignore_index at times:
    onnxruntime runs versions 12 and 13, onnx.reference every version."""
    rng = rng_for(op, opset, seed)
    n, c = int(rng.integers(1, 4)), int(rng.integers(2, 5))
    extra = tuple(int(d) for d in rng.integers(1, 4, size=seed % 3))
    x = randn(rng, (n, c) + extra)
    target = rng.integers(0, c, size=(n,) + extra).astype([np.int64, np.int32][seed % 2])
    attrs: dict = {"reduction": ["none", "sum", "mean"][seed % 3]}
    if seed == 2:
        attrs["ignore_index"] = 0
    weight = rng.uniform(0.5, 2, c).astype(np.float32) if seed else None
    names = ("input", "target", "weight") if op.startswith("Negative") else ("scores", "labels", "weights")
    inputs = list(zip(names, (x, target, weight)))
    outs = [code(np.float32)] * (1 if op.startswith("Negative") else 2)
    against(op, opset, inputs, attrs, outs, ("ort", "ref") if opset < 22 else ("ref",), tol=1e-5)


SWIGLU_CASES = list(range(3))


@pytest.mark.parametrize("seed", SWIGLU_CASES, ids=[f"SwiGLU-28-{s}" for s in SWIGLU_CASES])
def test_swiglu_matches_onnx_reference(seed):
    """onnxruntime 1.32 has no SwiGLU (opset 28): onnx.reference runs its function body."""
    rng = rng_for("SwiGLU", seed)
    _, shape = random_shape(rng, (1, 4), (1, 5))
    a, b = randn(rng, shape), randn(rng, shape)
    against("SwiGLU", 28, [("A", a), ("B", b)], {"alpha": [1.0, 1.702, 0.5][seed]}, [code(np.float32)], ("ref",),
            tol=1e-5)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("activation")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 30


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "activation")
