"""The attention and onnxruntime-contrib specs (ONNX Attention-23/24, RotaryEmbedding-23, the
com.microsoft ops and ai.onnx SimplifiedLayerNormalization) against onnxruntime 1.32 on seeded random
cases: output values (within a float tolerance: the kernels compute in float64), dtypes and shapes
from shapecheck.execute, and the solver's inferred output types, on concrete dims and with the first
input's dims as symbols. The ops without a kernel are confirmed through onnxruntime in
tests/test_specs_msops_confirm.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck

from .msops_kit import MS, onnx_code, randn, seeded, compare, run_ort


# ---------------------------------------------------------------- ONNX Attention

ATT_CASES = [(v, s) for v in (23, 24) for s in range(14)]


@pytest.mark.parametrize("opset,seed", ATT_CASES, ids=[f"Attention-{v}-{s}" for v, s in ATT_CASES])
def test_attention_matches_onnxruntime(opset, seed):
    rng = seeded("att", opset, seed)
    b, kvh = int(rng.integers(1, 3)), int(rng.choice([1, 2]))
    qh = kvh * int(rng.choice([1, 2]))
    s, kv, hs, vhs = int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.choice([4, 8])), int(rng.choice([4, 6]))
    dt = np.float32 if rng.random() < 0.8 else np.float16
    three_d = rng.random() < 0.4
    past = int(rng.integers(1, 4)) if rng.random() < 0.4 else 0
    nonpad = opset >= 24 and not past and rng.random() < 0.5
    causal = rng.random() < 0.5
    if causal and past:
        s = max(s, 2)             # MS6: onnxruntime drops the causal mask of a one-token query
    attrs = {"is_causal": 1} if causal else {}
    if three_d:
        q, k, v = randn(rng, (b, s, qh * hs), dt), randn(rng, (b, kv, kvh * hs), dt), randn(rng, (b, kv, kvh * vhs), dt)
        attrs.update(q_num_heads=qh, kv_num_heads=kvh)
    else:
        q, k, v = randn(rng, (b, qh, s, hs), dt), randn(rng, (b, kvh, kv, hs), dt), randn(rng, (b, kvh, kv, vhs), dt)
    total = past + kv
    mask = None
    if rng.random() < 0.5:
        lead = [(b, qh, s), (1, qh, s), (b, 1, s), (s,), (1, s)][int(rng.integers(0, 5))]
        shape = lead + (total,)
        mask = rng.random(shape) < 0.8 if rng.random() < 0.5 else randn(rng, shape, dt)
    if rng.random() < 0.3:
        attrs["scale"] = 0.5
    if rng.random() < 0.3:
        attrs["softcap"] = 2.0
    n_out = 4 if rng.random() < 0.5 else int(rng.integers(1, 4))
    if past:
        n_out = max(n_out, 3)     # MS5: onnxruntime refuses past_key without present_key
    if n_out == 4:
        attrs["qk_matmul_output_mode"] = int(rng.integers(0, 4))
    inputs = [("Q", q), ("K", k), ("V", v), ("attn_mask", mask),
              ("past_key", randn(rng, (b, kvh, past, hs), dt) if past else None),
              ("past_value", randn(rng, (b, kvh, past, vhs), dt) if past else None)]
    if nonpad:
        inputs.append(("nonpad_kv_seqlen", rng.integers(1, kv + 1, size=b).astype(np.int64)))
    compare("Attention", opset, inputs, attrs, [onnx_code(dt)] * n_out, tol=1e-3)


def test_attention_symbolic_outputs_and_refusals():
    r = shapecheck.infer("Attention", 23, {"Q": "float[N,S,512]", "K": "float[N,L,128]", "V": "float[N,L,128]",
                                           "past_key": "float[N,2,P,64]", "past_value": "float[N,2,P,64]"},
                         {"q_num_heads": 8, "kv_num_heads": 2})
    assert r.status == "valid"
    assert [str(t) for t in r.outputs.values()] == ["float[N,S,512]", "float[N,2,L+P,64]", "float[N,2,L+P,64]",
                                                    "float[N,8,S,L+P]"]
    r = shapecheck.infer("Attention", 23, {"Q": "float[N,S,512]", "K": "float[N,L,512]", "V": "float[N,L,512]"})
    assert r.status == "invalid" and r.violations[0].constraint == "C3"
    r = shapecheck.infer("Attention", 24, {"Q": "float[2,8,3,64]", "K": "float[2,8,5,64]", "V": "float[2,8,5,64]",
                                           "nonpad_kv_seqlen": "int64[3]"})
    assert r.status == "invalid" and [v.constraint for v in r.violations] == ["C13"]


def test_attention_short_mask_runs_in_the_reference_but_not_onnxruntime():
    """MS1: the page (and onnx.reference) pad a short mask's last dim; onnxruntime refuses it."""
    from onnx.reference import ReferenceEvaluator
    rng = seeded("short-mask")
    q, k, v, m = randn(rng, (1, 2, 3, 4)), randn(rng, (1, 2, 5, 4)), randn(rng, (1, 2, 5, 4)), randn(rng, (3, 4))
    node = helper.make_node("Attention", ["Q", "K", "V", "attn_mask"], ["Y"])
    vis = [helper.make_tensor_value_info(n, 1, list(a.shape)) for n, a in zip("QKV", (q, k, v))]
    vis.append(helper.make_tensor_value_info("attn_mask", 1, [3, 4]))
    model = helper.make_model(helper.make_graph([node], "g", vis, [helper.make_tensor_value_info("Y", 1, None)]),
                              opset_imports=[helper.make_opsetid("", 23)])
    ref = ReferenceEvaluator(model).run(None, {"Q": q, "K": k, "V": v, "attn_mask": m})[0]
    ours = shapecheck.execute("Attention", 23, {"Q": q, "K": k, "V": v, "attn_mask": m})["Y"]
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(Exception, match="total_sequence_length"):
        run_ort("Attention", 23, [("Q", q), ("K", k), ("V", v), ("attn_mask", m)], {}, [1])


def test_attention_causal_one_token_query_with_past_differs_in_onnxruntime():
    """MS6: with past_key, a causal query of one token sees every key in onnxruntime 1.32 (offset = total - 1);
    the page's query i sees keys j <= i + past_seq only, so the last of two new keys is masked."""
    rng = seeded("causal-decode")
    q, k, v = randn(rng, (1, 1, 1, 4)), randn(rng, (1, 1, 2, 4)), randn(rng, (1, 1, 2, 4))
    pk, pv = randn(rng, (1, 1, 2, 4)), randn(rng, (1, 1, 2, 4))
    inputs = [("Q", q), ("K", k), ("V", v), ("attn_mask", None), ("past_key", pk), ("past_value", pv)]
    theirs = run_ort("Attention", 23, inputs, {"is_causal": 1}, [1, 1, 1])[0]
    feeds = {n: a for n, a in inputs if a is not None}
    ours = shapecheck.execute("Attention", 23, feeds, {"is_causal": 1})["Y"]
    unmasked = shapecheck.execute("Attention", 23, feeds, {})["Y"]
    np.testing.assert_allclose(theirs, unmasked, rtol=1e-4, atol=1e-5)
    assert not np.allclose(ours, unmasked, atol=1e-3)
    masked = np.array([[[[0.0, 0.0, 0.0, -np.inf]]]], np.float32)      # the page's causal mask, as attn_mask
    np.testing.assert_allclose(ours, shapecheck.execute("Attention", 23, {**feeds, "attn_mask": masked}, {})["Y"],
                               rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- RotaryEmbedding (ONNX and com.microsoft)

ROT_CASES = list(range(12))


@pytest.mark.parametrize("seed", ROT_CASES, ids=[f"RotaryEmbedding-23-{s}" for s in ROT_CASES])
def test_rotary_embedding_matches_onnxruntime(seed):
    rng = seeded("rot", seed)
    b, s, n, hs = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.choice([4, 8]))
    dt = np.float32 if rng.random() < 0.8 else np.float16
    attrs = {"interleaved": int(rng.random() < 0.5)}
    dim = hs
    if rng.random() < 0.3:
        dim = attrs["rotary_embedding_dim"] = hs // 2
    x = randn(rng, (b, n, s, hs), dt) if rng.random() < 0.5 else randn(rng, (b, s, n * hs), dt)
    if x.ndim == 3:
        attrs["num_heads"] = n
    if rng.random() < 0.7:
        cache = (8, dim // 2)
        pos = rng.integers(0, 8, size=(b, s)).astype(np.int64)
    else:
        cache, pos = (b, s, dim // 2), None
    inputs = [("X", x), ("cos_cache", randn(rng, cache, dt)), ("sin_cache", randn(rng, cache, dt)), ("position_ids", pos)]
    compare("RotaryEmbedding", 23, inputs, attrs, [onnx_code(dt)], tol=1e-4)


MS_ROT_CASES = list(range(10))


@pytest.mark.parametrize("seed", MS_ROT_CASES, ids=[f"com.microsoft-RotaryEmbedding-{s}" for s in MS_ROT_CASES])
def test_ms_rotary_embedding_matches_onnxruntime(seed):
    rng = seeded("msrot", seed)
    b, s, n, hs = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.choice([4, 8]))
    dt = np.float32 if rng.random() < 0.8 else np.float16
    attrs = {"interleaved": int(rng.random() < 0.5)}
    dim = hs
    x = randn(rng, (b, n, s, hs), dt) if rng.random() < 0.5 else randn(rng, (b, s, n * hs), dt)
    if x.ndim == 3 and rng.random() < 0.5:
        attrs["num_heads"] = n
        if rng.random() < 0.5:
            dim = attrs["rotary_embedding_dim"] = hs // 2
    pos = rng.integers(0, 8, size=(b, s)).astype(np.int64) if rng.random() < 0.5 else \
        np.array([rng.integers(0, 16 - s)], np.int64)
    cache = (16, dim // 2)
    inputs = [("input", x), ("position_ids", pos), ("cos_cache", randn(rng, cache, dt)), ("sin_cache", randn(rng, cache, dt))]
    compare("RotaryEmbedding", 17, inputs, attrs, [onnx_code(dt)], domain=MS)


# ---------------------------------------------------------------- normalizations, FusedMatMul, Gelus

SLN_CASES = [(op, s) for op in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization") for s in range(8)]


@pytest.mark.parametrize("op,seed", SLN_CASES, ids=[f"{o}-{s}" for o, s in SLN_CASES])
def test_skip_layer_normalizations_match_onnxruntime(op, seed):
    rng = seeded("sln", op, seed)
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
    types = [onnx_code(dt), 1, 1, onnx_code(dt)][:n_out]
    compare(op, 17, inputs, {"epsilon": 1e-5}, types, domain=MS, tol=1e-3)


SIM_CASES = list(range(8))


@pytest.mark.parametrize("seed", SIM_CASES, ids=[f"SimplifiedLayerNormalization-{s}" for s in SIM_CASES])
def test_simplified_layer_normalization_matches_onnxruntime(seed):
    rng = seeded("siln", seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    xt, st = (rng.choice([np.float32, np.float16, np.float64]) for _ in range(2))
    if np.float64 in (xt, st):
        xt = st = np.float64
    inputs = [("X", randn(rng, shape, xt)), ("scale", randn(rng, shape[a:], st))]
    compare("SimplifiedLayerNormalization", 17, inputs, {"axis": axis, "epsilon": 1e-3},
            [onnx_code(st), 1][:int(rng.integers(1, 3))], tol=1e-3)


FMM_CASES = list(range(12))


@pytest.mark.parametrize("seed", FMM_CASES, ids=[f"FusedMatMul-{s}" for s in FMM_CASES])
def test_fused_matmul_matches_onnxruntime(seed):
    rng = seeded("fmm", seed)
    m, k, n = (int(x) for x in rng.integers(1, 5, size=3))
    attrs = {"alpha": float(rng.choice([1.0, 0.5, 2.0]))}
    if rng.random() < 0.4:                            # transBatch: one rank >= 3 on both sides
        rank = int(rng.integers(3, 5))
        batch = tuple(int(x) for x in rng.integers(1, 4, size=rank - 2))
        a, b = batch + (m, k), batch + (k, n)
        if rng.random() < 0.5:
            attrs["transBatchA"] = 1
            a = a[-2:-1] + a[:-2] + a[-1:]            # the array whose transBatch is [*batch, m, k]
        if rng.random() < 0.5:
            attrs["transBatchB"] = 1
            b = b[-2:-1] + b[:-2] + b[-1:]
    else:
        a = tuple(int(x) for x in rng.integers(1, 3, size=int(rng.integers(0, 3)))) + (m, k)
        b = (k, n) if rng.random() < 0.5 else a[:-2] + (k, n)
    if rng.random() < 0.5:
        attrs["transA"] = 1
        a = a[:-2] + (a[-1], a[-2])
    if rng.random() < 0.5:
        attrs["transB"] = 1
        b = b[:-2] + (b[-1], b[-2])
    dt = rng.choice([np.float32, np.float64])
    compare("FusedMatMul", 17, [("A", randn(rng, a, dt)), ("B", randn(rng, b, dt))], attrs, [onnx_code(dt)], domain=MS)


GELU_CASES = [(op, s) for op in ("Gelu", "QuickGelu", "FastGelu", "BiasGelu") for s in range(4)]


@pytest.mark.parametrize("op,seed", GELU_CASES, ids=[f"{o}-{s}" for o, s in GELU_CASES])
def test_gelus_match_onnxruntime(op, seed):
    rng = seeded("gelu", op, seed)
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
    compare(op, 17, inputs, attrs, [onnx_code(dt)], domain=MS, tol=1e-3)
