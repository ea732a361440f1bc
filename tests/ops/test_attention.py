"""The attention ops (Attention, RotaryEmbedding, and onnxruntime's MultiHeadAttention,
GroupQueryAttention, MatMulNBits and com.microsoft Attention, which have no kernel: confirmed
through onnxruntime's types): seeded random cases against the runtimes (values, dtypes and shapes
from ``shapecheck.execute``, the solver's types on concrete and on symbolic dims) and the rules'
edges, and ONNX's own node tests (``tests/harness/node_cases.py``; the per-op quirks are
``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.types import dtype_of_array

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import code, compare_in_domain, MS, randn, REG, rng_for, run_ort, type_of


ATT_CASES = [(v, s) for v in (23, 24) for s in range(14)]


@pytest.mark.parametrize("opset,seed", ATT_CASES, ids=[f"Attention-{v}-{s}" for v, s in ATT_CASES])
def test_attention_matches_onnxruntime(opset, seed):
    rng = rng_for("att", opset, seed)
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
    compare_in_domain("Attention", opset, inputs, attrs, [code(dt)] * n_out, tol=1e-3)


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
    rng = rng_for("short-mask")
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
    # valid by the page, and the onnxruntime rule ORT5 (specs/runtimes/onnxruntime.toml) warns, at 23 and 24,
    # a last dim of 1 too; the full-length mask gets no warning
    for opset in (23, 24):
        for last in (4, 1, 5):
            vis[-1] = helper.make_tensor_value_info("attn_mask", 1, [3, last])
            g = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info("Y", 1, None)])
            mm = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
            (rep,) = shapecheck.check_model(mm, runtime="onnxruntime").nodes
            assert rep.status == "valid"
            assert ("ORT5" in [w.constraint for w in rep.warnings]) is (last != 5), (opset, last)


def test_attention_causal_one_token_query_with_past_differs_in_onnxruntime():
    """MS6: with past_key, a causal query of one token sees every key in onnxruntime 1.32 (offset = total - 1);
    the page's query i sees keys j <= i + past_seq only, so the last of two new keys is masked."""
    rng = rng_for("causal-decode")
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


ROT_CASES = list(range(12))


@pytest.mark.parametrize("seed", ROT_CASES, ids=[f"RotaryEmbedding-23-{s}" for s in ROT_CASES])
def test_rotary_embedding_matches_onnxruntime(seed):
    rng = rng_for("rot", seed)
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
    compare_in_domain("RotaryEmbedding", 23, inputs, attrs, [code(dt)], tol=1e-4)


MS_ROT_CASES = list(range(10))


@pytest.mark.parametrize("seed", MS_ROT_CASES, ids=[f"com.microsoft-RotaryEmbedding-{s}" for s in MS_ROT_CASES])
def test_ms_rotary_embedding_matches_onnxruntime(seed):
    rng = rng_for("msrot", seed)
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
    compare_in_domain("RotaryEmbedding", 17, inputs, attrs, [code(dt)], domain=MS)


NBITS_CASES = list(range(10))


@pytest.mark.parametrize("seed", NBITS_CASES, ids=[f"MatMulNBits-{s}" for s in NBITS_CASES])
def test_matmul_nbits_types_match_onnxruntime(seed):
    rng = rng_for("nbits", seed)
    bits, bs = int(rng.choice([2, 4, 8])), int(rng.choice([16, 32]))
    k, n = int(rng.integers(1, 5)) * 8 + int(rng.choice([0, bs])), int(rng.integers(1, 6))
    kb = -(-k // bs)
    dt = np.float32 if rng.random() < 0.7 else np.float16
    a = randn(rng, tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3)))) + (k,), dt)
    b = rng.integers(0, 256, size=(n, kb, bs * bits // 8)).astype(np.uint8)
    scales = randn(rng, (n * kb,) if rng.random() < 0.5 else (n, kb), dt)
    zp = None
    if rng.random() < 0.5:
        zb = -(-kb * bits // 8)
        zp = rng.integers(0, 256, size=(n, zb)).astype(np.uint8) if rng.random() < 0.5 else randn(rng, (n, kb), dt)
    inputs = [("A", a), ("B", b), ("scales", scales), ("zero_points", zp), ("g_idx", None),
              ("bias", randn(rng, (n,), dt) if rng.random() < 0.5 else None)]
    compare_in_domain("MatMulNBits", 17, inputs, {"K": k, "N": n, "block_size": bs, "bits": bits}, [code(dt)],
            domain=MS, execute=False)


GQA_CASES = list(range(10))


@pytest.mark.parametrize("seed", GQA_CASES, ids=[f"GroupQueryAttention-{s}" for s in GQA_CASES])
def test_group_query_attention_types_match_onnxruntime(seed):
    rng = rng_for("gqa", seed)
    kvh = int(rng.choice([1, 2]))
    nh, h = kvh * int(rng.choice([1, 2])), int(rng.choice([8, 16]))      # onnxruntime: head_size % 8 == 0 (C3)
    mode = ["prompt", "decode", "buffer"][seed % 3]
    b = int(rng.integers(1, 3))
    s = int(rng.integers(1, 4)) if mode == "prompt" else 1
    past = 0 if mode == "prompt" else int(rng.integers(1, 5))
    total = s + past
    buf = past + int(rng.integers(1, 3)) if mode == "buffer" else past
    packed = rng.random() < 0.4
    q = randn(rng, (b, s, (nh + 2 * kvh) * h if packed else nh * h))
    inputs = [("query", q), ("key", None if packed else randn(rng, (b, s, kvh * h))),
              ("value", None if packed else randn(rng, (b, s, kvh * h))),
              ("past_key", randn(rng, (b, kvh, buf, h)) if mode != "prompt" else None),
              ("past_value", randn(rng, (b, kvh, buf, h)) if mode != "prompt" else None),
              ("seqlens_k", np.full(b, total - 1, np.int32)), ("total_sequence_length", np.array(total, np.int32))]
    attrs = {"num_heads": nh, "kv_num_heads": kvh}
    n_out = 3
    if rng.random() < 0.4:
        attrs["qk_output"], n_out = int(rng.integers(1, 3)), 4
    want = run_ort("GroupQueryAttention", 17, inputs, attrs, [1] * n_out, MS)
    spec = REG.resolve("GroupQueryAttention", 1, MS)
    types = {n: type_of(a) for n, a in inputs if a is not None}
    types["total_sequence_length"] = f"int32[] = {total}"     # its value sets the present length
    res = solve(spec, types, attrs, output_count=n_out)
    assert res.status == "valid", res.violations
    for t, w in zip(res.outputs.values(), want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_of(w))


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
    rng = rng_for("mha", seed)
    b, s, kv, n = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.choice([1, 2]))
    h = int(rng.choice([4, 8]))
    past = int(rng.integers(1, 4)) if seed % 3 == 0 else 0
    four_d = not past and rng.random() < 0.3
    hv = h if past or four_d else int(rng.choice([4, 6]))   # onnxruntime: v_head_size == head_size there (C5, C7)
    key = randn(rng, (b, n, kv, h)) if four_d else randn(rng, (b, kv, n * h))
    value = randn(rng, (b, n, kv, hv)) if four_d else randn(rng, (b, kv, n * hv))
    total = past + kv
    inputs = [("query", randn(rng, (b, s, n * h))), ("key", key), ("value", value),
              ("bias", randn(rng, (2 * n * h + n * hv,)) if not four_d and rng.random() < 0.4 else None),
              ("key_padding_mask", None),
              ("attention_bias", randn(rng, (1, n, s, total)) if rng.random() < 0.4 else None),
              ("past_key", randn(rng, (b, n, past, h)) if past else None),
              ("past_value", randn(rng, (b, n, past, hv)) if past else None)]
    n_out = int(rng.integers(1, 5)) if not past else int(rng.choice([3, 4]))
    compare_in_domain("MultiHeadAttention", 17, inputs, {"num_heads": n}, [1] * n_out, domain=MS, execute=False)


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
    rng = rng_for("msatt", seed)
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
    inputs = [("input", randn(rng, (b, s, din))), ("weights", randn(rng, (din, w))),
              ("bias", randn(rng, (w,)) if rng.random() < 0.7 else None), ("mask_index", mask),
              ("past", randn(rng, (2, b, n, past, h)) if past else None),
              ("attention_bias", randn(rng, (1, n, s, total)) if not past and rng.random() < 0.3 else None)]   # C8
    n_out = 2 if past or rng.random() < 0.5 else 1
    compare_in_domain("Attention", 17, inputs, attrs, [1] * n_out, domain=MS, execute=False)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("attention")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 90


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "attention")


@pytest.mark.parametrize("seed", range(3))
def test_flex_attention_matches_onnx_reference(seed):
    """FlexAttention (ai.onnx.preview): onnxruntime has no kernel; onnx.reference's values, the solver's type."""
    from shapecheck.containers import type_of_value
    from tests.harness.runtime import run_containers
    rng = np.random.default_rng(7000 + seed)
    b, hkv, g, length, s, e, ev = 1 + seed % 2, 1 + seed, 2, 3, 4, 8, 6
    q = rng.standard_normal((b, hkv * g, length, e)).astype(np.float32)
    k = rng.standard_normal((b, hkv, s, e)).astype(np.float32)
    v = rng.standard_normal((b, hkv, s, ev)).astype(np.float32)
    want = run_containers("FlexAttention", 24, [("Q", q), ("K", k), ("V", v)], {}, reference=True,
                          domain="ai.onnx.preview")[0]
    got = shapecheck.execute("FlexAttention", 1, {"Q": q, "K": k, "V": v}, {}, domain="ai.onnx.preview")["Y"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    r = shapecheck.infer("ai.onnx.preview:FlexAttention", 1, {"Q": "float[B,H,L,8]", "K": f"float[B,{hkv},S,8]",
                                                            "V": f"float[B,{hkv},S,6]"})
    assert str(r.outputs["Y"]) == "float[B,H,L,6]" and type_of_value(got).shape == want.shape
