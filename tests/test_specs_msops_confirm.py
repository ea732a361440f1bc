"""The onnxruntime contrib ops without a kernel (MatMulNBits, GroupQueryAttention,
MultiHeadAttention, EmbedLayerNormalization, com.microsoft Attention), confirmed through onnxruntime
1.32: on seeded random cases the solver's inferred output types must be onnxruntime's run's (concrete,
and with the first input's dims as symbols). Also whole models: com.microsoft nodes resolve to their
specs through the model's opset_import.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.types import dtype_of_array

from .msops_kit import MS, REG, onnx_code, randn, seeded, type_text, compare, run_ort


# ---------------------------------------------------------------- confirmed through onnxruntime (no kernel)

NBITS_CASES = list(range(10))


@pytest.mark.parametrize("seed", NBITS_CASES, ids=[f"MatMulNBits-{s}" for s in NBITS_CASES])
def test_matmul_nbits_types_match_onnxruntime(seed):
    rng = seeded("nbits", seed)
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
    compare("MatMulNBits", 17, inputs, {"K": k, "N": n, "block_size": bs, "bits": bits}, [onnx_code(dt)],
            domain=MS, execute=False)


GQA_CASES = list(range(10))


@pytest.mark.parametrize("seed", GQA_CASES, ids=[f"GroupQueryAttention-{s}" for s in GQA_CASES])
def test_group_query_attention_types_match_onnxruntime(seed):
    rng = seeded("gqa", seed)
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
    types = {n: type_text(a) for n, a in inputs if a is not None}
    types["total_sequence_length"] = f"int32[] = {total}"     # its value sets the present length
    res = solve(spec, types, attrs, output_count=n_out)
    assert res.status == "valid", res.violations
    for t, w in zip(res.outputs.values(), want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_text(w))


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
    rng = seeded("mha", seed)
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
    compare("MultiHeadAttention", 17, inputs, {"num_heads": n}, [1] * n_out, domain=MS, execute=False)


ELN_CASES = list(range(8))


@pytest.mark.parametrize("seed", ELN_CASES, ids=[f"EmbedLayerNormalization-{s}" for s in ELN_CASES])
def test_embed_layer_normalization_types_match_onnxruntime(seed):
    rng = seeded("eln", seed)
    b, s, h = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.choice([4, 8]))
    dt = np.float32 if rng.random() < 0.7 else np.float16
    seg = rng.random() < 0.6
    ids = lambda hi, shape: rng.integers(0, hi, size=shape).astype(np.int32)   # noqa: E731
    inputs = [("input_ids", ids(10, (b, s))), ("segment_ids", ids(2, (b, s)) if seg else None),
              ("word_embedding", randn(rng, (10, h), dt)), ("position_embedding", randn(rng, (s + 2, h), dt)),
              ("segment_embedding", randn(rng, (2, h), dt) if seg else None), ("gamma", randn(rng, (h,), dt)),
              ("beta", randn(rng, (h,), dt)), ("mask", np.ones((b, s), np.int32) if rng.random() < 0.5 else None)]
    n_out = int(rng.integers(2, 4))                # MS8: onnxruntime refuses a node without mask_index
    compare("EmbedLayerNormalization", 17, inputs, {}, [onnx_code(dt), 6, onnx_code(dt)][:n_out], domain=MS, execute=False)


def test_embed_layer_normalization_needs_mask_index_in_onnxruntime():
    """MS8: the schema makes mask_index optional; onnxruntime 1.32 refuses the node without it."""
    rng = seeded("eln-one-output")
    inputs = [("input_ids", np.zeros((1, 2), np.int32)), ("segment_ids", None), ("word_embedding", randn(rng, (4, 4))),
              ("position_embedding", randn(rng, (4, 4))), ("segment_embedding", None), ("gamma", randn(rng, (4,))),
              ("beta", randn(rng, (4,)))]
    with pytest.raises(Exception, match="output index 1 is out of range"):
        run_ort("EmbedLayerNormalization", 17, inputs, {}, [1], MS)
    r = shapecheck.infer("EmbedLayerNormalization", 1, {n: type_text(a) for n, a in inputs if a is not None}, domain=MS)
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
    rng = seeded("msatt", seed)
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
    compare("Attention", 17, inputs, attrs, [1] * n_out, domain=MS, execute=False)
