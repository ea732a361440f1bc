"""Kernels of the attention ops: ONNX Attention (23, 24) and RotaryEmbedding (ONNX 23 and
com.microsoft 1).  Plain numpy: softmax(scale * Q K^T + bias) V, computed in float64 and cast back,
so the differential tests compare with onnxruntime within a tolerance, never bit for bit.

>>> import numpy as np
>>> q = np.ones((1, 1, 2, 4), np.float32)
>>> y, pk, pv, qk = attention(q, q, np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4), None, None, None,
...                           scale=None, is_causal=1, q_num_heads=0, kv_num_heads=0, softcap=0.0, qk_mode=0)
>>> y[0, 0].tolist(), qk.shape
([[0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0]], (1, 1, 2, 2))
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register


def _heads(x: np.ndarray, n: int) -> np.ndarray:
    """[B, S, n*h] -> [B, n, S, h]; a 4-D input is already [B, n, S, h]."""
    if x.ndim == 4:
        return x
    b, s, d = x.shape
    return x.reshape(b, s, int(n), d // int(n)).transpose(0, 2, 1, 3)


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; a row that is -inf everywhere (every key masked) is a zero row."""
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(m), 0.0, m))
    s = np.sum(e, axis=-1, keepdims=True)
    return e / np.where(s == 0, 1.0, s)


def _offset(nonpad_kv_seqlen, past_key, s_q: int):
    """The count of valid keys before the query block: the past length, nonpad_kv_seqlen - q_seq per batch
    entry (as [B, 1, 1, 1]) for an external cache, else 0."""
    if nonpad_kv_seqlen is not None and past_key is None:
        return nonpad_kv_seqlen.reshape(-1, 1, 1, 1) - s_q
    return 0 if past_key is None else past_key.shape[2]


def _position_bias(s_q: int, total: int, off, is_causal: int, left: int, right: int) -> np.ndarray:
    """-inf where query i (at absolute position p = i + off) may not see key j: past p (causal), before
    p - left or after p + right (a window side of -1 is unbounded)."""
    j = np.arange(total)[None, :]
    p = np.arange(s_q)[:, None] + off
    allowed = np.ones(np.broadcast_shapes(j.shape, np.shape(p)), bool)
    if int(is_causal):
        allowed &= j <= p
    if int(left) >= 0:
        allowed &= j >= p - int(left)
    if int(right) >= 0:
        allowed &= j <= p + int(right)
    return np.where(allowed, 0.0, -np.inf)


@register("attention")
def attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, attn_mask: np.ndarray | None,
              past_key: np.ndarray | None, past_value: np.ndarray | None, nonpad_kv_seqlen: np.ndarray | None = None,
              *, scale: float | None, is_causal: int, q_num_heads: int, kv_num_heads: int, softcap: float,
              qk_mode: int, left_window_size: int = -1, right_window_size: int = -1
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """ONNX Attention: (Y, present_key, present_value, qk_matmul_output).

    3-D inputs are split into heads (q_num_heads, kv_num_heads); K and V heads repeat for grouped
    query attention; past_key/past_value are put before K and V along the sequence axis. The bias
    is a float mask (added), a bool mask (False is -inf) padded with -inf to the total sequence
    length, the causal mask (query i sees key j iff j <= i + offset, offset the past length, or
    nonpad_kv_seqlen - q_sequence_length), the local window of version 25 (keys from
    p - left_window_size to p + right_window_size, p = i + offset; -1 unbounded) and the padding of
    nonpad_kv_seqlen.
    qk_mode picks what the fourth output is: 0 the scaled QK^T, 1 after softcap, 2 after the
    bias, 3 after softmax.
    """
    dt = Q.dtype
    q = _heads(Q, q_num_heads).astype(np.float64)
    k = _heads(K, kv_num_heads)
    v = _heads(V, kv_num_heads)
    pk = k if past_key is None else np.concatenate([past_key, k], axis=2)
    pv = v if past_value is None else np.concatenate([past_value, v], axis=2)
    groups = q.shape[1] // pk.shape[1]
    kk = np.repeat(pk.astype(np.float64), groups, axis=1)
    vv = np.repeat(pv.astype(np.float64), groups, axis=1)
    s_q, total = q.shape[2], kk.shape[2]
    sc = 1.0 / np.sqrt(q.shape[3]) if scale is None else float(scale)
    qk = q @ kk.transpose(0, 1, 3, 2) * sc
    outs = [qk]
    if softcap and float(softcap) > 0:
        qk = float(softcap) * np.tanh(qk / float(softcap))
    outs.append(qk)
    bias = np.zeros((s_q, total))
    if attn_mask is not None:
        m = attn_mask
        pad = total - m.shape[-1]
        if m.dtype == np.bool_:
            m = np.where(m, 0.0, -np.inf)
        m = np.pad(m.astype(np.float64), [(0, 0)] * (m.ndim - 1) + [(0, max(pad, 0))], constant_values=-np.inf)
        bias = bias + m
    if nonpad_kv_seqlen is not None:
        lens = nonpad_kv_seqlen.reshape(-1, 1, 1, 1)
        bias = bias + np.where(np.arange(total)[None, None, None, :] < lens, 0.0, -np.inf)
    off = _offset(nonpad_kv_seqlen, past_key, s_q)
    qk = qk + bias + _position_bias(s_q, total, off, is_causal, left_window_size, right_window_size)
    outs.append(qk)
    p = _softmax(qk)
    outs.append(p)
    y = p @ vv
    if Q.ndim == 3:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], s_q, -1)
    return y.astype(dt), pk, pv, np.broadcast_to(outs[int(qk_mode)], qk.shape).astype(dt)


def _rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, dim: int, interleaved: int) -> np.ndarray:
    """Rotate the first ``dim`` features of x [B, S, N, H] by cos/sin [B, S, 1, dim/2]."""
    xr, rest = x[..., :dim], x[..., dim:]
    x1, x2 = (xr[..., 0::2], xr[..., 1::2]) if int(interleaved) else (xr[..., :dim // 2], xr[..., dim // 2:])
    real, imag = cos * x1 - sin * x2, sin * x1 + cos * x2
    if int(interleaved):
        xr = np.stack([real, imag], axis=-1).reshape(xr.shape)
    else:
        xr = np.concatenate([real, imag], axis=-1)
    return np.concatenate([xr, rest], axis=-1)


@register("rotary_embedding")
def rotary_embedding(X: np.ndarray, cos_cache: np.ndarray, sin_cache: np.ndarray, position_ids: np.ndarray | None, *,
                     num_heads: int, rotary_embedding_dim: int, interleaved: int) -> np.ndarray:
    """RotaryEmbedding: rotate pairs of features by the angles of each token's position.

    X is [B, N, S, H] or [B, S, N*H] (num_heads N); position_ids [B, S] pick rows of the
    [max_pos, dim/2] caches, else the caches are [B, S, dim/2] already. The pairs are the two
    halves of the first ``rotary_embedding_dim`` features (0: all of them), or neighbours with
    ``interleaved``.

    >>> import numpy as np
    >>> x = np.array([[[[1., 0.]]]], np.float32)             # [1, 1, 1, 2]
    >>> rotary_embedding(x, np.zeros((1, 1), np.float32), np.ones((1, 1), np.float32),
    ...                  np.zeros((1, 1), np.int64), num_heads=0, rotary_embedding_dim=0, interleaved=0).tolist()
    [[[[0.0, 1.0]]]]
    """
    b = X.shape[0]
    x = X.transpose(0, 2, 1, 3) if X.ndim == 4 else X.reshape(b, X.shape[1], int(num_heads), -1)
    dim = int(rotary_embedding_dim) or x.shape[-1]
    cos, sin = (cos_cache, sin_cache) if position_ids is None else (cos_cache[position_ids], sin_cache[position_ids])
    y = _rotate(x.astype(np.float64), cos[:, :, None].astype(np.float64), sin[:, :, None].astype(np.float64),
                dim, interleaved)
    y = y.transpose(0, 2, 1, 3) if X.ndim == 4 else y.reshape(X.shape)
    return y.astype(X.dtype)


@register("ms_rotary_embedding")
def ms_rotary_embedding(X: np.ndarray, position_ids: np.ndarray, cos_cache: np.ndarray, sin_cache: np.ndarray, *,
                        num_heads: int, rotary_embedding_dim: int, interleaved: int) -> np.ndarray:
    """com.microsoft RotaryEmbedding: as ONNX's, with position_ids either [B, S] or one start
    position [1] (token s at start + s), and num_heads taken from the cache when 0 on a 3-D input
    (head size = 2 * cos_cache.shape[1])."""
    b, s = X.shape[0], X.shape[-2] if X.ndim == 4 else X.shape[1]
    pos = position_ids
    if pos.ndim == 1:
        pos = np.broadcast_to(pos[0] + np.arange(s), (b, s))
    n = int(num_heads)
    if X.ndim == 3 and n == 0:
        n = X.shape[2] // (2 * cos_cache.shape[1]) if not int(rotary_embedding_dim) else 0
    return rotary_embedding(X, cos_cache, sin_cache, pos, num_heads=n, rotary_embedding_dim=rotary_embedding_dim,
                            interleaved=interleaved)


@register("linear_attention")
def linear_attention(query: np.ndarray, key: np.ndarray, value: np.ndarray, past_state, decay, beta, *,
                     q_num_heads: int, kv_num_heads: int, scale: float, update_rule: str) -> tuple[np.ndarray, np.ndarray]:
    """LinearAttention's recurrence, token by token in float32 (as onnx.reference runs it): the state
    [B, H_kv, d_k, d_v] decays by exp(decay) (gated rules), takes the delta correction beta * (v - S^T k)
    (delta rules) and the outer product k v^T; each query head reads its KV head's state, times scale
    (1/sqrt(d_k) for 0)."""
    hq, hk = int(q_num_heads), int(kv_num_heads)
    b, t, _ = query.shape
    dk, dv = query.shape[-1] // hq, value.shape[-1] // hk
    q, k, v = (_heads(x, n).astype(np.float32) for x, n in ((query, hq), (key, hk), (value, hk)))
    g4 = None if decay is None else (_heads(decay, hk) if decay.shape[-1] != hk else
                                     decay.reshape(b, t, hk, 1).transpose(0, 2, 1, 3)).astype(np.float32)
    b4 = None if beta is None else beta.reshape(b, t, beta.shape[-1], 1).transpose(0, 2, 1, 3).astype(np.float32)
    state = np.zeros((b, hk, dk, dv), np.float32) if past_state is None else past_state.astype(np.float32)
    sc = np.float32(1 / np.sqrt(dk) if not float(scale) else float(scale))
    out = np.zeros((b, hq, t, dv), np.float32)
    for i in range(t):
        vt = v[:, :, i, :]
        if g4 is not None:
            state = state * np.exp(g4[:, :, i, :])[..., None]
        if b4 is not None:
            vt = b4[:, :, i, :] * (vt - np.einsum("bhdm,bhd->bhm", state, k[:, :, i, :]))
        state = state + k[:, :, i, :, None] * vt[:, :, None, :]
        out[:, :, i, :] = sc * np.einsum("bhd,bhdm->bhm", q[:, :, i, :], np.repeat(state, hq // hk, axis=1))
    y = out.transpose(0, 2, 1, 3).reshape(b, t, hq * dv).astype(query.dtype)
    return y, state.astype(query.dtype if past_state is None else past_state.dtype)


@register("flex_attention")
def flex_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, scale: Any, softmax_precision: Any,
                   score_mod: Any = None, prob_mod: Any = None) -> np.ndarray:
    """FlexAttention (ai.onnx.preview) as onnx.reference computes it, the score and probability modifiers
    (subgraphs, when given) included; onnxruntime has no kernel for it."""
    from .estimators import reference
    attrs = {"scale": scale, "softmax_precision": softmax_precision, "score_mod": score_mod, "prob_mod": prob_mod}
    (y,) = reference("FlexAttention", [Q, K, V], attrs, 1, 1, "ai.onnx.preview")
    return np.asarray(y, dtype=Q.dtype)
