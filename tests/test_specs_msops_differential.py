"""The attention and onnxruntime-contrib specs (ONNX Attention-23/24, RotaryEmbedding-23, the
com.microsoft ops and ai.onnx SimplifiedLayerNormalization) against onnxruntime 1.32 on seeded random
cases: output values (within a float tolerance: the kernels compute in float64), dtypes and shapes
from shapecheck.execute, and the solver's inferred output types, on concrete dims and with the first
input's dims as symbols. Ops without a kernel (GroupQueryAttention, MultiHeadAttention, MatMulNBits,
EmbedLayerNormalization) are confirmed through onnxruntime: the inferred types must be the run's.
"""
from __future__ import annotations

import zlib

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.spec.load import default_registry
from shapecheck.types import dtype_of_array, symbol

from .layout_harness import check_inferred

ort.set_default_logger_severity(3)
REG = default_registry()
MS = "com.microsoft"


def _type(a: np.ndarray) -> str:
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def _code(dt) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dt))


def run_ort(op: str, opset: int, inputs: list, attrs: dict, out_types: list, domain: str = "") -> list[np.ndarray]:
    """One-node model in onnxruntime; ``inputs`` are (name, array or None); a None out type skips that output."""
    names = [n if a is not None else "" for n, a in inputs]
    while names and not names[-1]:
        names.pop()
    vis = [helper.make_tensor_value_info(n, _code(a.dtype), list(a.shape)) for n, a in inputs if a is not None]
    outs = [f"out{i}" if t is not None else "" for i, t in enumerate(out_types)]
    node = helper.make_node(op, names, outs, domain=domain, **attrs)
    graph = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(o, t, None)
                                                 for o, t in zip(outs, out_types) if o])
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=imports, ir_version=10)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {n: a for n, a in inputs if a is not None})


def compare(op: str, opset: int, inputs: list, attrs: dict, out_types: list, *, domain: str = "",
            execute: bool = True, tol: float = 1e-4) -> None:
    """onnxruntime against execute (values) and solve (types, concrete and symbolic)."""
    want = run_ort(op, opset, inputs, attrs, out_types, domain)
    feeds = {n: a for n, a in inputs if a is not None}
    spec = REG.resolve(op, opset, domain or None)
    if execute:
        got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types), domain=domain or None).values())
        got = [g for g, t in zip(got, out_types) if t is not None]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
            t = 2e-2 if w.dtype == np.float16 else tol
            low = float(np.finfo(w.dtype).min)   # MS4: onnxruntime writes a masked score as the lowest finite value
            np.testing.assert_allclose(np.maximum(g.astype(np.float64), low), np.maximum(w.astype(np.float64), low),
                                       rtol=t, atol=t)
    types = {n: _type(a) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    wanted = [w for w in want]
    outs = [t for t, o in zip(res.outputs.values(), out_types) if o is not None]
    for t, w in zip(outs, wanted):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), _type(w))
    name, arr = inputs[0]                     # again with the first input's dims as symbols
    types[name] = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status in ("valid", "conditional"), res.violations
    outs = [t for t, o in zip(res.outputs.values(), out_types) if o is not None]
    for t, w in zip(outs, wanted):
        assert t.shape is not None, str(t)
        check_inferred(t, w, {symbol(f"D{i}"): n for i, n in enumerate(arr.shape)}, False)


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def _f(rng, shape, dt=np.float32):
    return rng.standard_normal(shape).astype(dt)


# ---------------------------------------------------------------- ONNX Attention

ATT_CASES = [(v, s) for v in (23, 24) for s in range(14)]


@pytest.mark.parametrize("opset,seed", ATT_CASES, ids=[f"Attention-{v}-{s}" for v, s in ATT_CASES])
def test_attention_matches_onnxruntime(opset, seed):
    rng = _rng("att", opset, seed)
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
        q, k, v = _f(rng, (b, s, qh * hs), dt), _f(rng, (b, kv, kvh * hs), dt), _f(rng, (b, kv, kvh * vhs), dt)
        attrs.update(q_num_heads=qh, kv_num_heads=kvh)
    else:
        q, k, v = _f(rng, (b, qh, s, hs), dt), _f(rng, (b, kvh, kv, hs), dt), _f(rng, (b, kvh, kv, vhs), dt)
    total = past + kv
    mask = None
    if rng.random() < 0.5:
        lead = [(b, qh, s), (1, qh, s), (b, 1, s), (s,), (1, s)][int(rng.integers(0, 5))]
        shape = lead + (total,)
        mask = rng.random(shape) < 0.8 if rng.random() < 0.5 else _f(rng, shape, dt)
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
              ("past_key", _f(rng, (b, kvh, past, hs), dt) if past else None),
              ("past_value", _f(rng, (b, kvh, past, vhs), dt) if past else None)]
    if nonpad:
        inputs.append(("nonpad_kv_seqlen", rng.integers(1, kv + 1, size=b).astype(np.int64)))
    compare("Attention", opset, inputs, attrs, [_code(dt)] * n_out, tol=1e-3)


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
    rng = _rng("short-mask")
    q, k, v, m = _f(rng, (1, 2, 3, 4)), _f(rng, (1, 2, 5, 4)), _f(rng, (1, 2, 5, 4)), _f(rng, (3, 4))
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
    rng = _rng("causal-decode")
    q, k, v = _f(rng, (1, 1, 1, 4)), _f(rng, (1, 1, 2, 4)), _f(rng, (1, 1, 2, 4))
    pk, pv = _f(rng, (1, 1, 2, 4)), _f(rng, (1, 1, 2, 4))
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
    rng = _rng("rot", seed)
    b, s, n, hs = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.choice([4, 8]))
    dt = np.float32 if rng.random() < 0.8 else np.float16
    attrs = {"interleaved": int(rng.random() < 0.5)}
    dim = hs
    if rng.random() < 0.3:
        dim = attrs["rotary_embedding_dim"] = hs // 2
    x = _f(rng, (b, n, s, hs), dt) if rng.random() < 0.5 else _f(rng, (b, s, n * hs), dt)
    if x.ndim == 3:
        attrs["num_heads"] = n
    if rng.random() < 0.7:
        cache = (8, dim // 2)
        pos = rng.integers(0, 8, size=(b, s)).astype(np.int64)
    else:
        cache, pos = (b, s, dim // 2), None
    inputs = [("X", x), ("cos_cache", _f(rng, cache, dt)), ("sin_cache", _f(rng, cache, dt)), ("position_ids", pos)]
    compare("RotaryEmbedding", 23, inputs, attrs, [_code(dt)], tol=1e-4)


MS_ROT_CASES = list(range(10))


@pytest.mark.parametrize("seed", MS_ROT_CASES, ids=[f"com.microsoft-RotaryEmbedding-{s}" for s in MS_ROT_CASES])
def test_ms_rotary_embedding_matches_onnxruntime(seed):
    rng = _rng("msrot", seed)
    b, s, n, hs = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.choice([4, 8]))
    dt = np.float32 if rng.random() < 0.8 else np.float16
    attrs = {"interleaved": int(rng.random() < 0.5)}
    dim = hs
    x = _f(rng, (b, n, s, hs), dt) if rng.random() < 0.5 else _f(rng, (b, s, n * hs), dt)
    if x.ndim == 3 and rng.random() < 0.5:
        attrs["num_heads"] = n
        if rng.random() < 0.5:
            dim = attrs["rotary_embedding_dim"] = hs // 2
    pos = rng.integers(0, 8, size=(b, s)).astype(np.int64) if rng.random() < 0.5 else \
        np.array([rng.integers(0, 16 - s)], np.int64)
    cache = (16, dim // 2)
    inputs = [("input", x), ("position_ids", pos), ("cos_cache", _f(rng, cache, dt)), ("sin_cache", _f(rng, cache, dt))]
    compare("RotaryEmbedding", 17, inputs, attrs, [_code(dt)], domain=MS)


# ---------------------------------------------------------------- normalizations, FusedMatMul, Gelus

SLN_CASES = [(op, s) for op in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization") for s in range(8)]


@pytest.mark.parametrize("op,seed", SLN_CASES, ids=[f"{o}-{s}" for o, s in SLN_CASES])
def test_skip_layer_normalizations_match_onnxruntime(op, seed):
    rng = _rng("sln", op, seed)
    dt = np.float32 if rng.random() < 0.7 else np.float16
    h = int(rng.integers(2, 9))
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 4)), h) if rng.random() < 0.7 else (int(rng.integers(1, 5)), h)
    skip = shape
    if len(shape) == 3 and rng.random() < 0.5:
        skip = shape[1:] if rng.random() < 0.5 else (1,) + shape[1:]
    inputs = [("input", _f(rng, shape, dt)), ("skip", _f(rng, skip, dt)), ("gamma", _f(rng, (h,), dt))]
    if op == "SkipLayerNormalization":
        inputs.append(("beta", _f(rng, (h,), dt) if rng.random() < 0.5 else None))
    inputs.append(("bias", _f(rng, (h,), dt) if rng.random() < 0.5 else None))
    n_out = int(rng.integers(1, 5))
    types = [_code(dt), 1, 1, _code(dt)][:n_out]
    compare(op, 17, inputs, {"epsilon": 1e-5}, types, domain=MS, tol=1e-3)


SIM_CASES = list(range(8))


@pytest.mark.parametrize("seed", SIM_CASES, ids=[f"SimplifiedLayerNormalization-{s}" for s in SIM_CASES])
def test_simplified_layer_normalization_matches_onnxruntime(seed):
    rng = _rng("siln", seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    xt, st = (rng.choice([np.float32, np.float16, np.float64]) for _ in range(2))
    if np.float64 in (xt, st):
        xt = st = np.float64
    inputs = [("X", _f(rng, shape, xt)), ("scale", _f(rng, shape[a:], st))]
    compare("SimplifiedLayerNormalization", 17, inputs, {"axis": axis, "epsilon": 1e-3},
            [_code(st), 1][:int(rng.integers(1, 3))], tol=1e-3)


FMM_CASES = list(range(12))


@pytest.mark.parametrize("seed", FMM_CASES, ids=[f"FusedMatMul-{s}" for s in FMM_CASES])
def test_fused_matmul_matches_onnxruntime(seed):
    rng = _rng("fmm", seed)
    m, k, n = (int(x) for x in rng.integers(1, 5, size=3))
    attrs = {"alpha": float(rng.choice([1.0, 0.5, 2.0]))}
    if rng.random() < 0.4:                            # transBatch: one rank >= 3 on both sides
        rank = int(rng.integers(3, 5))
        batch = tuple(int(x) for x in rng.integers(1, 4, size=rank - 2))
        a, b = batch + (m, k), batch + (k, n)
        if rng.random() < 0.5:
            attrs["transBatchA"] = 1
            a = (m,) + batch[1:] + (batch[0], k) if False else a
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
    compare("FusedMatMul", 17, [("A", _f(rng, a, dt)), ("B", _f(rng, b, dt))], attrs, [_code(dt)], domain=MS)


GELU_CASES = [(op, s) for op in ("Gelu", "QuickGelu", "FastGelu", "BiasGelu") for s in range(4)]


@pytest.mark.parametrize("op,seed", GELU_CASES, ids=[f"{o}-{s}" for o, s in GELU_CASES])
def test_gelus_match_onnxruntime(op, seed):
    rng = _rng("gelu", op, seed)
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    dt = np.float32 if rng.random() < 0.7 else np.float16
    x = _f(rng, shape, dt)
    bias = _f(rng, shape[-1:], dt)
    attrs = {}
    if op == "BiasGelu":
        inputs = [("A", x), ("B", bias)]
    elif op == "FastGelu":
        inputs = [("X", x), ("bias", bias if rng.random() < 0.5 else None)]
    else:
        inputs = [("X", x)]
        if op == "QuickGelu" and rng.random() < 0.5:
            attrs["alpha"] = 1.5
    compare(op, 17, inputs, attrs, [_code(dt)], domain=MS, tol=1e-3)


# ---------------------------------------------------------------- confirmed through onnxruntime (no kernel)

NBITS_CASES = list(range(10))


@pytest.mark.parametrize("seed", NBITS_CASES, ids=[f"MatMulNBits-{s}" for s in NBITS_CASES])
def test_matmul_nbits_types_match_onnxruntime(seed):
    rng = _rng("nbits", seed)
    bits, bs = int(rng.choice([2, 4, 8])), int(rng.choice([16, 32]))
    k, n = int(rng.integers(1, 5)) * 8 + int(rng.choice([0, bs])), int(rng.integers(1, 6))
    kb = -(-k // bs)
    dt = np.float32 if rng.random() < 0.7 else np.float16
    a = _f(rng, tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3)))) + (k,), dt)
    b = rng.integers(0, 256, size=(n, kb, bs * bits // 8)).astype(np.uint8)
    scales = _f(rng, (n * kb,) if rng.random() < 0.5 else (n, kb), dt)
    zp = None
    if rng.random() < 0.5:
        zb = -(-kb * bits // 8)
        zp = rng.integers(0, 256, size=(n, zb)).astype(np.uint8) if rng.random() < 0.5 else _f(rng, (n, kb), dt)
    inputs = [("A", a), ("B", b), ("scales", scales), ("zero_points", zp), ("g_idx", None),
              ("bias", _f(rng, (n,), dt) if rng.random() < 0.5 else None)]
    compare("MatMulNBits", 17, inputs, {"K": k, "N": n, "block_size": bs, "bits": bits}, [_code(dt)],
            domain=MS, execute=False)


GQA_CASES = list(range(10))


@pytest.mark.parametrize("seed", GQA_CASES, ids=[f"GroupQueryAttention-{s}" for s in GQA_CASES])
def test_group_query_attention_types_match_onnxruntime(seed):
    rng = _rng("gqa", seed)
    kvh = int(rng.choice([1, 2]))
    nh, h = kvh * int(rng.choice([1, 2])), int(rng.choice([8, 16]))      # onnxruntime: head_size % 8 == 0 (C3)
    mode = ["prompt", "decode", "buffer"][seed % 3]
    b = int(rng.integers(1, 3))
    s = int(rng.integers(1, 4)) if mode == "prompt" else 1
    past = 0 if mode == "prompt" else int(rng.integers(1, 5))
    total = s + past
    buf = past + int(rng.integers(1, 3)) if mode == "buffer" else past
    packed = rng.random() < 0.4
    q = _f(rng, (b, s, (nh + 2 * kvh) * h if packed else nh * h))
    inputs = [("query", q), ("key", None if packed else _f(rng, (b, s, kvh * h))),
              ("value", None if packed else _f(rng, (b, s, kvh * h))),
              ("past_key", _f(rng, (b, kvh, buf, h)) if mode != "prompt" else None),
              ("past_value", _f(rng, (b, kvh, buf, h)) if mode != "prompt" else None),
              ("seqlens_k", np.full(b, total - 1, np.int32)), ("total_sequence_length", np.array(total, np.int32))]
    attrs = {"num_heads": nh, "kv_num_heads": kvh}
    n_out = 3
    if rng.random() < 0.4:
        attrs["qk_output"], n_out = int(rng.integers(1, 3)), 4
    want = run_ort("GroupQueryAttention", 17, inputs, attrs, [1] * n_out, MS)
    spec = REG.resolve("GroupQueryAttention", 1, MS)
    types = {n: _type(a) for n, a in inputs if a is not None}
    types["total_sequence_length"] = f"int32[] = {total}"     # its value sets the present length
    res = solve(spec, types, attrs, output_count=n_out)
    assert res.status == "valid", res.violations
    for t, w in zip(res.outputs.values(), want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), _type(w))


def test_group_query_attention_symbolic():
    r = shapecheck.infer("GroupQueryAttention", 1, {
        "query": "float16[N,S,4096]", "key": "float16[N,S,1024]", "value": "float16[N,S,1024]",
        "past_key": "float16[N,8,P,128]", "past_value": "float16[N,8,P,128]", "seqlens_k": "int32[N]",
        "total_sequence_length": "int32[] = T"}, {"num_heads": 32, "kv_num_heads": 8}, domain=MS)
    assert r.status == "valid"
    assert [str(t) for t in r.outputs.values()] == ["float16[N,S,4096]", "float16[N,8,Max(P,T),128]",
                                                    "float16[N,8,Max(P,T),128]", "float16[N,32,S,T]"]


MHA_CASES = list(range(10))


@pytest.mark.parametrize("seed", MHA_CASES, ids=[f"MultiHeadAttention-{s}" for s in MHA_CASES])
def test_multi_head_attention_types_match_onnxruntime(seed):
    rng = _rng("mha", seed)
    b, s, kv, n = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.choice([1, 2]))
    h = int(rng.choice([4, 8]))
    past = int(rng.integers(1, 4)) if seed % 3 == 0 else 0
    four_d = not past and rng.random() < 0.3
    hv = h if past or four_d else int(rng.choice([4, 6]))   # onnxruntime: v_head_size == head_size there (C5, C7)
    key = _f(rng, (b, n, kv, h)) if four_d else _f(rng, (b, kv, n * h))
    value = _f(rng, (b, n, kv, hv)) if four_d else _f(rng, (b, kv, n * hv))
    total = past + kv
    inputs = [("query", _f(rng, (b, s, n * h))), ("key", key), ("value", value),
              ("bias", _f(rng, (2 * n * h + n * hv,)) if not four_d and rng.random() < 0.4 else None),
              ("key_padding_mask", None),
              ("attention_bias", _f(rng, (1, n, s, total)) if rng.random() < 0.4 else None),
              ("past_key", _f(rng, (b, n, past, h)) if past else None),
              ("past_value", _f(rng, (b, n, past, hv)) if past else None)]
    n_out = int(rng.integers(1, 5)) if not past else int(rng.choice([3, 4]))
    compare("MultiHeadAttention", 17, inputs, {"num_heads": n}, [1] * n_out, domain=MS, execute=False)


ELN_CASES = list(range(8))


@pytest.mark.parametrize("seed", ELN_CASES, ids=[f"EmbedLayerNormalization-{s}" for s in ELN_CASES])
def test_embed_layer_normalization_types_match_onnxruntime(seed):
    rng = _rng("eln", seed)
    b, s, h = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.choice([4, 8]))
    dt = np.float32 if rng.random() < 0.7 else np.float16
    seg = rng.random() < 0.6
    ids = lambda hi, shape: rng.integers(0, hi, size=shape).astype(np.int32)   # noqa: E731
    inputs = [("input_ids", ids(10, (b, s))), ("segment_ids", ids(2, (b, s)) if seg else None),
              ("word_embedding", _f(rng, (10, h), dt)), ("position_embedding", _f(rng, (s + 2, h), dt)),
              ("segment_embedding", _f(rng, (2, h), dt) if seg else None), ("gamma", _f(rng, (h,), dt)),
              ("beta", _f(rng, (h,), dt)), ("mask", np.ones((b, s), np.int32) if rng.random() < 0.5 else None)]
    n_out = int(rng.integers(2, 4))                # MS8: onnxruntime refuses a node without mask_index
    compare("EmbedLayerNormalization", 17, inputs, {}, [_code(dt), 6, _code(dt)][:n_out], domain=MS, execute=False)


def test_embed_layer_normalization_needs_mask_index_in_onnxruntime():
    """MS8: the schema makes mask_index optional; onnxruntime 1.32 refuses the node without it."""
    rng = _rng("eln-one-output")
    inputs = [("input_ids", np.zeros((1, 2), np.int32)), ("segment_ids", None), ("word_embedding", _f(rng, (4, 4))),
              ("position_embedding", _f(rng, (4, 4))), ("segment_embedding", None), ("gamma", _f(rng, (4,))),
              ("beta", _f(rng, (4,)))]
    with pytest.raises(Exception, match="output index 1 is out of range"):
        run_ort("EmbedLayerNormalization", 17, inputs, {}, [1], MS)
    r = shapecheck.infer("EmbedLayerNormalization", 1, {n: _type(a) for n, a in inputs if a is not None}, domain=MS)
    assert r.status == "valid" and str(r.outputs["output"]) == "float[1,2,4]"


# ---------------------------------------------------------------- whole models: the domain resolves

def _ms_model(k: int = 64):
    nodes = [
        helper.make_node("SkipLayerNormalization", ["x", "skip", "g", "b"], ["h", "", "", "sum"], domain=MS, name="sln"),
        helper.make_node("MatMulNBits", ["h", "w", "sc"], ["q"], domain=MS, name="proj", K=k, N=64, block_size=32, bits=4),
        helper.make_node("FusedMatMul", ["q", "kt"], ["s"], domain=MS, name="fmm", transB=1, alpha=0.125),
        helper.make_node("SimplifiedLayerNormalization", ["s", "g2"], ["y"], name="rms"),
    ]
    vi = helper.make_tensor_value_info
    inputs = [vi("x", 1, ["batch", "seq", 64]), vi("skip", 1, ["batch", "seq", 64]), vi("g", 1, [64]), vi("b", 1, [64]),
              vi("w", 2, [64, 2, 16]), vi("sc", 1, [128]), vi("kt", 1, ["batch", "kv", 64]), vi("g2", 1, ["kv"])]
    graph = helper.make_graph(nodes, "g", inputs, [vi("y", 1, None), vi("sum", 1, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])


def test_model_with_com_microsoft_nodes_is_checked_by_their_specs():
    report = shapecheck.check_model(_ms_model())
    assert [(n.spec, n.status) for n in report.nodes] == [
        ("com.microsoft:SkipLayerNormalization-1", "valid"), ("com.microsoft:MatMulNBits-1", "valid"),
        ("com.microsoft:FusedMatMul-1", "valid"), ("SimplifiedLayerNormalization-1", "valid")]
    types = shapecheck.infer(_ms_model())
    assert str(types["q"]) == "float[batch,seq,64]" and str(types["y"]) == "float[batch,seq,kv]"


def test_model_with_a_wrong_matmul_nbits_is_invalid_at_that_node():
    report = shapecheck.check_model(_ms_model(k=96))     # B [64, 2, 16] packs K = 64, not 96
    bad = [n for n in report.nodes if n.status == "invalid"]
    assert [n.name for n in bad] == ["proj"]
    assert {v.constraint for v in bad[0].violations} >= {"C2", "C4"}


MS_ATT_CASES = list(range(8))


@pytest.mark.parametrize("seed", MS_ATT_CASES, ids=[f"com.microsoft-Attention-{s}" for s in MS_ATT_CASES])
def test_ms_attention_types_match_onnxruntime(seed):
    rng = _rng("msatt", seed)
    b, s, din, n, h = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(4, 12)), int(rng.choice([1, 2])), 4
    d = n * h
    attrs = {"num_heads": n}
    w = 3 * d
    dv = d
    if rng.random() < 0.3:
        dv = n * 6
        w = 2 * d + dv
        attrs["qkv_hidden_sizes"] = [d, d, dv]
    past = int(rng.integers(1, 4)) if dv == d and rng.random() < 0.5 else 0
    total = past + s
    mask = [None, np.ones((b, total), np.int32), np.full((b,), total, np.int32), np.ones((b, s, total), np.int32)][seed % 4]
    inputs = [("input", _f(rng, (b, s, din))), ("weights", _f(rng, (din, w))),
              ("bias", _f(rng, (w,)) if rng.random() < 0.7 else None), ("mask_index", mask),
              ("past", _f(rng, (2, b, n, past, h)) if past else None),
              ("attention_bias", _f(rng, (1, n, s, total)) if not past and rng.random() < 0.3 else None)]   # C8
    n_out = 2 if past or rng.random() < 0.5 else 1
    compare("Attention", 17, inputs, attrs, [1] * n_out, domain=MS, execute=False)
