"""The quantization ops (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear): seeded random cases
against the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on
concrete and on symbolic dims) and the rules' edges, and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest

import shapecheck

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import code, compare, random_shape, rng_for


DQL_CASES = list(range(8))


@pytest.mark.parametrize("seed", DQL_CASES, ids=[f"DynamicQuantizeLinear-11-{s}" for s in DQL_CASES])
def test_dynamic_quantize_linear_matches_onnxruntime(seed):
    rng = rng_for("dql", seed)
    shape = tuple(int(d) for d in rng.integers(0 if seed == 0 else 1, 5, size=int(rng.integers(1, 4))))
    x = (rng.standard_normal(shape) * [0, 1, 10, 0.01][seed % 4] + [0, 0.5, -2, 3][seed % 4]).astype(np.float32)
    compare("DynamicQuantizeLinear", 11, [("x", x)], {}, [code(np.uint8), code(np.float32), code(np.uint8)], tol=1e-6)


Q_CASES = [(op, v, s) for op in ("QuantizeLinear", "DequantizeLinear") for v in (10, 13, 19, 21, 23, 24) for s in range(4)]


def quant_case(op: str, opset: int, seed: int) -> tuple[list, dict, np.dtype]:
    """A random per-tensor, per-axis (13+) or blocked (21+) case; returns inputs, attributes, y's dtype."""
    rng = rng_for(op, opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 5))
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    mode = seed % 3 if opset >= 21 else (seed % 2 if opset >= 13 else 0)      # 0 tensor, 1 axis, 2 blocked
    attrs: dict = {"axis": axis} if mode else {}
    if mode == 0:
        pshape: tuple = ()
    elif mode == 1:
        pshape = (shape[a],)
    else:
        attrs["block_size"] = block = int(rng.integers(1, 3))
        pshape = shape[:a] + (-(-shape[a] // block),) + shape[a + 1:]
    qtype = np.dtype([np.uint8, np.int8, np.uint16, np.int16][seed % (4 if opset >= 21 else 2)])
    ftype = np.dtype(np.float16 if opset >= 19 and seed % 4 == 3 else np.float32)
    scale = rng.uniform(0.5, 2, pshape).astype(ftype)
    info = np.iinfo(qtype)
    zp = rng.integers(max(info.min, -20), min(info.max, 20) + 1, size=pshape).astype(qtype)
    if op == "QuantizeLinear":
        x = (rng.standard_normal(shape) * 40).astype(ftype)
        return [("x", x), ("y_scale", scale), ("y_zero_point", zp)], attrs, qtype
    x = rng.integers(max(info.min, -100), min(info.max, 100) + 1, size=shape).astype(qtype)
    return [("x", x), ("x_scale", scale), ("x_zero_point", zp if seed % 2 == 0 else None)], attrs, ftype


@pytest.mark.parametrize("op,opset,seed", Q_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in Q_CASES])
def test_quantize_dequantize_match_onnxruntime(op, opset, seed):
    inputs, attrs, out = quant_case(op, opset, seed)
    tol = 1e-2 if out == np.float16 else 1e-5
    compare(op, opset, inputs, attrs, [code(out)], tol=tol)


def test_blocked_scale_of_the_wrong_shape_is_refuted():
    r = shapecheck.infer("QuantizeLinear", 21, {"x": "float[N,64]", "y_scale": "float[N,3]"}, {"block_size": 32})
    assert r.status == "invalid" and [v.constraint for v in r.violations] == ["C3"]
    r = shapecheck.infer("DequantizeLinear", 23, {"x": "int8[N,K]", "x_scale": "float16[N,2]"}, {"block_size": 32})
    assert r.status == "conditional" and str(r.outputs["y"]) == "float16[N,K]"


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("quantize")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 10


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "quantize")
