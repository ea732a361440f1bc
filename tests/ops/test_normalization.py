"""The normalization ops (Batch/Layer/Group/Instance/RMS normalization, MeanVarianceNormalization, LRN,
the skip and simplified layer normalizations, EmbedLayerNormalization): seeded random cases against
the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete
and on symbolic dims) and the rules' edges, and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.dims import symbol
from shapecheck.errors import ConstraintError
from shapecheck.solver import solve
from shapecheck.types import dtype_of_array

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import (check_inferred, code, compare, compare_in_domain, MS, randn, REG, rng_for, run_ort,
                                   type_of)


F32 = helper.np_dtype_to_tensor_dtype(np.dtype(np.float32))


def compare_normalization(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int]) -> None:
    """Run ``op`` in onnxruntime and through execute and solve; outputs must agree (values within tolerance)."""
    want = run_ort(op, opset, inputs, attrs, out_types)
    feeds = {n: a for n, a in inputs if a is not None}
    got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types)).values())
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
        tol = 2e-2 if w.dtype == np.float16 else 1e-4
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)
    spec = REG.resolve(op, opset)
    types = {n: type_of(a) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    outs = list(res.outputs.values())
    for t, w in zip(outs, want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_of(w))
    name, arr = inputs[0]                               # again with the first input's dims as symbols
    types[name] = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status in ("valid", "conditional"), res.violations
    for t, w in zip(res.outputs.values(), want):
        assert t.shape is not None, str(t)
        check_inferred(t, w, {symbol(f"D{i}"): n for i, n in enumerate(arr.shape)}, False)


LN_CASES = [(v, s) for v in (17, 18, 24) for s in range(8)]


@pytest.mark.parametrize("opset,seed", LN_CASES, ids=[f"LayerNormalization-{v}-{s}" for v, s in LN_CASES])
def test_layer_normalization_matches_onnxruntime(opset, seed):
    rng = rng_for("ln", opset, seed)
    rank = int(rng.integers(1, 5))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    dt = rng.choice([np.float32, np.float64, np.float16])
    x = rng.standard_normal(shape).astype(dt)
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    norm = shape[a:]
    k = int(rng.integers(0, len(norm) + 1))          # a suffix of the normalized shape, some dims set to 1
    sshape = tuple(1 if rng.random() < 0.3 else d for d in norm[len(norm) - k:])
    inputs = [("X", x), ("Scale", rng.standard_normal(sshape).astype(dt))]
    if rng.random() < 0.6:
        inputs.append(("B", rng.standard_normal(norm).astype(dt)))
    n_out = int(rng.integers(1, 4))
    stash = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    compare_normalization("LayerNormalization", opset, inputs, {"axis": axis, "epsilon": 1e-3}, [stash] + [F32] * (n_out - 1))


def test_layer_normalization_symbolic_outputs():
    r = shapecheck.infer("LayerNormalization", 17, {"X": "float16[N,S,768]", "Scale": "float16[768]"}, {})
    assert [str(t) for t in r.outputs.values()] == ["float16[N,S,768]", "float[N,S,1]", "float[N,S,1]"]
    r = shapecheck.infer("LayerNormalization", 17, {"X": "float[N,S,D]", "Scale": "float[D]"}, {"axis": 1})
    assert str(r.outputs["Mean"]) == "float[N,1,1]" and r.status == "valid"


def test_layer_normalization_scale_that_does_not_fit_is_refuted():
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("LayerNormalization", 17, {"X": np.zeros((2, 3, 4), np.float32),
                                                     "Scale": np.ones(5, np.float32)})
    assert exc.value.constraint == "C3"


BN_CASES = [(v, s) for v in (7, 9, 14, 15) for s in range(8)]


@pytest.mark.parametrize("opset,seed", BN_CASES, ids=[f"BatchNormalization-{v}-{s}" for v, s in BN_CASES])
def test_batch_normalization_matches_onnxruntime(opset, seed):
    rng = rng_for("bn", opset, seed)
    rank = int(rng.integers(2, 5))
    shape = tuple(int(s) for s in rng.integers(1, 4, size=rank))
    shape = (shape[0] + 1,) + shape[1:]                 # a batch of 2 or more: a batch variance of 0 is no test
    dt = rng.choice([np.float32, np.float64])
    training = int(rng.random() < 0.5)
    spatial = 0 if opset == 7 and not training and rng.random() < 0.5 else 1   # no training per activation in onnxruntime
    pshape = shape[1:2] if spatial else shape[1:]
    x = rng.standard_normal(shape).astype(dt)
    names = ["scale", "B", "mean", "var"] if opset < 14 else ["scale", "B", "input_mean", "input_var"]
    params = [rng.standard_normal(pshape).astype(dt) for _ in range(3)] + [rng.uniform(0.5, 2, pshape).astype(dt)]
    attrs = {"epsilon": 1e-3, "momentum": 0.8}
    if opset == 7 and not spatial:
        attrs["spatial"] = 0
    if opset >= 14:
        attrs["training_mode"] = training
        n_out = 3 if training else 1
    else:
        n_out = 5 if training else 1
    stash = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    compare_normalization("BatchNormalization", opset, [("X", x)] + list(zip(names, params)), attrs, [stash] * n_out)


def test_batch_normalization_symbolic_and_refuted():
    r = shapecheck.infer("BatchNormalization", 15, {"X": "float[N,64,H,W]", "scale": "float[64]", "B": "float[64]",
                                                    "input_mean": "float[64]", "input_var": "float[64]"})
    assert str(r.outputs["Y"]) == "float[N,64,H,W]" and r.status == "valid"
    r = shapecheck.infer("BatchNormalization", 9, {"X": "float[N,C,H]", "scale": "float[C]", "B": "float[C]",
                                                   "mean": "float[C]", "var": "float[D]"})
    assert r.status == "conditional" and any("D" in str(c) for c in r.conditions)
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("BatchNormalization", 15, {"X": np.zeros((2, 3, 4), np.float32),
                                                      **{n: np.ones(4, np.float32) for n in ("scale", "B", "input_mean", "input_var")}},
                           output_count=1)
    assert exc.value.constraint == "C3"


IN_CASES = [(v, s) for v in (7, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", IN_CASES, ids=[f"InstanceNormalization-{v}-{s}" for v, s in IN_CASES])
def test_instance_normalization_matches_onnxruntime(opset, seed):
    rng = rng_for("in", opset, seed)
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(int(s) for s in rng.integers(2, 4, size=int(rng.integers(1, 3))))
    dt = np.float32                                    # onnxruntime's CPU kernel is float only
    c = shape[1]
    inputs = [("input", rng.standard_normal(shape).astype(dt)), ("scale", rng.standard_normal(c).astype(dt)),
              ("B", rng.standard_normal(c).astype(dt))]
    compare_normalization("InstanceNormalization", opset, inputs, {"epsilon": 1e-3}, [helper.np_dtype_to_tensor_dtype(np.dtype(dt))])


GN_CASES = [(v, s) for v in (18, 21) for s in range(6)]


@pytest.mark.parametrize("opset,seed", GN_CASES, ids=[f"GroupNormalization-{v}-{s}" for v, s in GN_CASES])
def test_group_normalization_matches_onnxruntime(opset, seed):
    rng = rng_for("gn", opset, seed)
    g = int(rng.integers(1, 4))
    c = g * int(rng.integers(1, 3))
    shape = (int(rng.integers(1, 3)), c) + tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    dt = rng.choice([np.float32, np.float64])
    p = c if opset >= 21 else g
    inputs = [("X", rng.standard_normal(shape).astype(dt)), ("scale", rng.standard_normal(p).astype(dt)),
              ("bias", rng.standard_normal(p).astype(dt))]
    compare_normalization("GroupNormalization", opset, inputs, {"epsilon": 1e-3, "num_groups": g}, [helper.np_dtype_to_tensor_dtype(np.dtype(dt))])


RMS_CASES = [(23, s) for s in range(8)] + [(24, s) for s in range(2)]


@pytest.mark.parametrize("opset,seed", RMS_CASES, ids=[f"RMSNormalization-{v}-{s}" for v, s in RMS_CASES])
def test_rms_normalization_matches_onnxruntime(opset, seed):
    rng = rng_for("rms", opset, seed)
    rank = int(rng.integers(1, 5))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    x_dt = s_dt = rng.choice([np.float32, np.float64])   # onnxruntime refuses mixed types
    axis = int(rng.integers(-rank, rank))
    norm = shape[axis + rank if axis < 0 else axis:]
    k = int(rng.integers(0, len(norm) + 1))
    sshape = tuple(1 if rng.random() < 0.3 else d for d in norm[len(norm) - k:])
    inputs = [("X", rng.standard_normal(shape).astype(x_dt)), ("scale", rng.standard_normal(sshape).astype(s_dt))]
    compare_normalization("RMSNormalization", opset, inputs, {"axis": axis, "epsilon": 1e-3}, [helper.np_dtype_to_tensor_dtype(np.dtype(s_dt))])


def test_group_normalization_channels_not_a_multiple_is_refuted():
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("GroupNormalization", 21, {"X": np.zeros((2, 4, 5), np.float32), "scale": np.ones(4, np.float32),
                                                      "bias": np.ones(4, np.float32)}, {"num_groups": 3})
    assert exc.value.constraint == "C3"
    r = shapecheck.infer("GroupNormalization", 21, {"X": "float[N,C,H,W]", "scale": "float[C]", "bias": "float[C]"},
                         {"num_groups": 32})
    assert str(r.outputs["Y"]) == "float[N,C,H,W]" and r.status == "conditional"


MVN_CASES = [(v, s) for v in (9, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", MVN_CASES, ids=[f"MeanVarianceNormalization-{v}-{s}" for v, s in MVN_CASES])
def test_mvn_matches_onnxruntime(opset, seed):
    rng = rng_for("mvn", opset, seed)
    shape = tuple(int(d) for d in rng.integers(2, 4, size=4))
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    attrs = {} if seed % 2 else {"axes": sorted({int(a) for a in rng.integers(0, 4, size=2)})}
    compare("MeanVarianceNormalization", opset, [("X", x)], attrs, [code(np.float32)], tol=1e-3)


LRN_CASES = [(v, s) for v in (1, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", LRN_CASES, ids=[f"LRN-{v}-{s}" for v, s in LRN_CASES])
def test_lrn_matches_onnxruntime(opset, seed):
    rng = rng_for("lrn", opset, seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=4))
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = {"size": int(rng.choice([1, 3, 5])), "alpha": 0.5, "beta": 0.6, "bias": 1.5}
    compare("LRN", opset, [("X", x)], attrs, [code(np.float32)], tol=1e-4)


SLN_CASES = [(op, s) for op in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization") for s in range(8)]


@pytest.mark.parametrize("op,seed", SLN_CASES, ids=[f"{o}-{s}" for o, s in SLN_CASES])
def test_skip_layer_normalizations_match_onnxruntime(op, seed):
    rng = rng_for("sln", op, seed)
    dt = np.float32 if rng.random() < 0.7 else np.float16
    h = int(rng.integers(2, 9))
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 4)), h) if rng.random() < 0.7 else (int(rng.integers(1, 5)), h)
    skip = shape
    if len(shape) == 3 and rng.random() < 0.5:
        skip = shape[1:] if rng.random() < 0.5 else (1,) + shape[1:]
    inputs = [("input", randn(rng, shape, dt)), ("skip", randn(rng, skip, dt)), ("gamma", randn(rng, (h,), dt))]
    if op == "SkipLayerNormalization":
        inputs.append(("beta", randn(rng, (h,), dt) if rng.random() < 0.5 else None))
    inputs.append(("bias", randn(rng, (h,), dt) if rng.random() < 0.5 else None))
    n_out = int(rng.integers(1, 5))
    types = [code(dt), 1, 1, code(dt)][:n_out]
    compare_in_domain(op, 17, inputs, {"epsilon": 1e-5}, types, domain=MS, tol=1e-3)


SIM_CASES = list(range(8))


@pytest.mark.parametrize("seed", SIM_CASES, ids=[f"SimplifiedLayerNormalization-{s}" for s in SIM_CASES])
def test_simplified_layer_normalization_matches_onnxruntime(seed):
    rng = rng_for("siln", seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    xt, st = (rng.choice([np.float32, np.float16, np.float64]) for _ in range(2))
    if np.float64 in (xt, st):
        xt = st = np.float64
    inputs = [("X", randn(rng, shape, xt)), ("scale", randn(rng, shape[a:], st))]
    compare_in_domain("SimplifiedLayerNormalization", 17, inputs, {"axis": axis, "epsilon": 1e-3},
            [code(st), 1][:int(rng.integers(1, 3))], tol=1e-3)


ELN_CASES = list(range(8))


@pytest.mark.parametrize("seed", ELN_CASES, ids=[f"EmbedLayerNormalization-{s}" for s in ELN_CASES])
def test_embed_layer_normalization_types_match_onnxruntime(seed):
    rng = rng_for("eln", seed)
    b, s, h = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.choice([4, 8]))
    dt = np.float32 if rng.random() < 0.7 else np.float16
    seg = rng.random() < 0.6
    ids = lambda hi, shape: rng.integers(0, hi, size=shape).astype(np.int32)   # noqa: E731
    inputs = [("input_ids", ids(10, (b, s))), ("segment_ids", ids(2, (b, s)) if seg else None),
              ("word_embedding", randn(rng, (10, h), dt)), ("position_embedding", randn(rng, (s + 2, h), dt)),
              ("segment_embedding", randn(rng, (2, h), dt) if seg else None), ("gamma", randn(rng, (h,), dt)),
              ("beta", randn(rng, (h,), dt)), ("mask", np.ones((b, s), np.int32) if rng.random() < 0.5 else None)]
    n_out = int(rng.integers(2, 4))                # MS8: onnxruntime refuses a node without mask_index
    compare_in_domain("EmbedLayerNormalization", 17, inputs, {}, [code(dt), 6, code(dt)][:n_out], domain=MS, execute=False)


def test_embed_layer_normalization_needs_mask_index_in_onnxruntime():
    """MS8: the schema makes mask_index optional; onnxruntime 1.32 refuses the node without it."""
    rng = rng_for("eln-one-output")
    inputs = [("input_ids", np.zeros((1, 2), np.int32)), ("segment_ids", None), ("word_embedding", randn(rng, (4, 4))),
              ("position_embedding", randn(rng, (4, 4))), ("segment_embedding", None), ("gamma", randn(rng, (4,))),
              ("beta", randn(rng, (4,)))]
    with pytest.raises(Exception, match="output index 1 is out of range"):
        run_ort("EmbedLayerNormalization", 17, inputs, {}, [1], MS)
    r = shapecheck.infer("EmbedLayerNormalization", 1, {n: type_of(a) for n, a in inputs if a is not None}, domain=MS)
    assert r.status == "valid" and str(r.outputs["output"]) == "float[1,2,4]"


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("normalization")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 45


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "normalization")
