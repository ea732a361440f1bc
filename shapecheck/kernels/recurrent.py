"""Kernels of the recurrent ops RNN, GRU and LSTM, written from the ONNX page's equations.

Gates are computed in float64 and cast back to X's element type (the differential tests compare
with onnxruntime within a tolerance).  ``layout`` 0 is time-major (X: [seq, batch, input]),
1 batch-major (X: [batch, seq, input]); a batch entry with ``sequence_lens[b] = n`` runs n steps
(a reverse direction from step n-1 down to 0), its Y rows past n are 0 and its Y_h is the state
after its last step, as onnxruntime computes it.

>>> import numpy as np
>>> X = np.ones((2, 1, 1), np.float32); W = np.full((1, 1, 1), 0.5, np.float32); R = np.zeros((1, 1, 1), np.float32)
>>> Y, Y_h = rnn(X, W, R, None, None, None, direction="forward", activations=(), alpha=(), beta=(), clip=None, layout=0)
>>> Y.shape, Y_h.shape, round(float(Y_h[0, 0, 0]), 4)
((2, 1, 1, 1), (1, 1, 1), 0.4621)
"""
from __future__ import annotations

import functools
from typing import Callable, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    Act = Callable[[np.ndarray], np.ndarray]
else:
    from ..deferred import numpy as np

from . import register


# activation name -> (number of alpha/beta values it takes, defaults, function of (x, alpha, beta))
_ACTS: dict[str, tuple[int, tuple[float, float], Callable[..., np.ndarray]]] = {
    "relu": (0, (0, 0), lambda x, a, b: np.maximum(x, 0)),
    "tanh": (0, (0, 0), lambda x, a, b: np.tanh(x)),
    "sigmoid": (0, (0, 0), lambda x, a, b: 1 / (1 + np.exp(-x))),
    "softsign": (0, (0, 0), lambda x, a, b: x / (1 + np.abs(x))),
    "softplus": (0, (0, 0), lambda x, a, b: np.log1p(np.exp(x))),
    "affine": (2, (1.0, 0.0), lambda x, a, b: a * x + b),
    "leakyrelu": (1, (0.01, 0), lambda x, a, b: np.where(x >= 0, x, a * x)),
    "thresholdedrelu": (1, (1.0, 0), lambda x, a, b: np.where(x > a, x, 0)),
    "scaledtanh": (2, (1.0, 1.0), lambda x, a, b: a * np.tanh(b * x)),
    "hardsigmoid": (2, (0.2, 0.5), lambda x, a, b: np.clip(a * x + b, 0, 1)),
    "elu": (1, (1.0, 0), lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1))),
}


def _apply(f: Callable[..., np.ndarray], a: float, b: float, x: np.ndarray) -> np.ndarray:
    return f(x, a, b)


def _activation_fns(names, alpha, beta, defaults: tuple[str, ...], dirs: int) -> list[list[Act]]:
    """Per direction, the activation functions: ``names`` (``defaults`` repeated per direction when
    empty), alpha and beta consumed in order by the functions that take them."""
    names = [str(n) for n in (names or ())] or list(defaults) * dirs
    al, be = list(alpha or ()), list(beta or ())
    fns: list[Act] = []
    for n in names:
        if n.lower() not in _ACTS:
            raise ValueError(f"unknown activation {n!r}")
        takes, (da, db), f = _ACTS[n.lower()]
        a = al.pop(0) if takes >= 1 and al else da
        b = be.pop(0) if takes >= 2 and be else db
        fns.append(functools.partial(_apply, f, a, b))
    per = len(defaults)
    if len(fns) < per * dirs:          # one set given for a bidirectional node: both directions use it
        fns = (fns * dirs)[:per * dirs]
    return [fns[d * per:(d + 1) * per] for d in range(dirs)]


def _steps(direction: str, d: int, n: int) -> range:
    reverse = direction == "reverse" or (direction == "bidirectional" and d == 1)
    return range(n - 1, -1, -1) if reverse else range(n)


def run_cell(X, W, R, B, sequence_lens, initial_h, initial_c, *, direction, layout, cell, n_states: int):
    """The loop shared by the three ops: per direction and batch entry, ``cell(d, x_t, states)``
    gives the new states (hidden first).  Returns Y and the final states, in X's dtype and layout."""
    x = X.astype(np.float64)
    if int(layout) == 1:
        x = x.transpose(1, 0, 2)
    seq, batch = x.shape[0], x.shape[1]
    dirs, hidden = W.shape[0], R.shape[-1]
    lens = np.full(batch, seq) if sequence_lens is None else np.asarray(sequence_lens).astype(np.int64)
    inits = []
    for init in (initial_h, initial_c)[:n_states]:
        s = np.zeros((dirs, batch, hidden)) if init is None else init.astype(np.float64)
        inits.append(s.transpose(1, 0, 2) if int(layout) == 1 and init is not None else s)
    Y = np.zeros((seq, dirs, batch, hidden))
    finals = [np.zeros((dirs, batch, hidden)) for _ in range(n_states)]
    for d in range(dirs):
        for b in range(batch):
            states = [s[d, b] for s in inits]
            for t in _steps(direction, d, int(lens[b])):
                states = cell(d, x[t, b], states)
                Y[t, d, b] = states[0]
            for f, s in zip(finals, states):
                f[d, b] = s
    if int(layout) == 1:
        Y, finals = Y.transpose(2, 0, 1, 3), [f.transpose(1, 0, 2) for f in finals]
    return (Y.astype(X.dtype),) + tuple(f.astype(X.dtype) for f in finals)


def _clip(v: np.ndarray, clip) -> np.ndarray:
    return v if clip is None else np.clip(v, -float(clip), float(clip))


def _bias(B, dirs: int, width: int) -> np.ndarray:
    """B's input and recurrence halves summed: one bias of ``width`` per direction (0 without B)."""
    if B is None:
        return np.zeros((dirs, width))
    b = B.astype(np.float64)
    return b[:, :width] + b[:, width:]


@register("rnn")
def rnn(X, W, R, B, sequence_lens, initial_h, *, direction, activations: tuple, alpha, beta, clip, layout):
    """H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb), f = Tanh by default."""
    dirs, hidden = W.shape[0], R.shape[-1]
    acts = _activation_fns(activations, alpha, beta, ("Tanh",), dirs)
    w, r, bias = W.astype(np.float64), R.astype(np.float64), _bias(B, dirs, hidden)

    def cell(d, xt, states):
        return [acts[d][0](_clip(xt @ w[d].T + states[0] @ r[d].T + bias[d], clip))]
    return run_cell(X, W, R, B, sequence_lens, initial_h, None, direction=direction, layout=layout, cell=cell, n_states=1)


@register("gru")
def gru(X, W, R, B, sequence_lens, initial_h, *, direction, activations: tuple, alpha, beta, clip, layout,
        linear_before_reset):
    """z, r = f(...); h~ = g(X Wh^T + (r * H) Rh^T + Rbh + Wbh) (or r * (H Rh^T + Rbh) with
    linear_before_reset); H = (1 - z) * h~ + z * H.  f = Sigmoid, g = Tanh by default."""
    dirs, hidden = W.shape[0], R.shape[-1]
    acts = _activation_fns(activations, alpha, beta, ("Sigmoid", "Tanh"), dirs)
    w, r = W.astype(np.float64), R.astype(np.float64)
    b = np.zeros((dirs, 6 * hidden)) if B is None else B.astype(np.float64)
    H = hidden

    def cell(d, xt, states):
        h = states[0]
        f, g = acts[d]
        xw = xt @ w[d].T + b[d, :3 * H]
        hr = h @ r[d, :2 * H].T + b[d, 3 * H:5 * H]
        z = f(_clip(xw[:H] + hr[:H], clip))
        rr = f(_clip(xw[H:2 * H] + hr[H:], clip))
        if int(linear_before_reset):
            pre = xw[2 * H:] + rr * (h @ r[d, 2 * H:].T + b[d, 5 * H:])
        else:
            pre = xw[2 * H:] + (rr * h) @ r[d, 2 * H:].T + b[d, 5 * H:]
        ht = g(_clip(pre, clip))
        return [(1 - z) * ht + z * h]
    return run_cell(X, W, R, B, sequence_lens, initial_h, None, direction=direction, layout=layout, cell=cell, n_states=1)


@register("lstm")
def lstm(X, W, R, B, sequence_lens, initial_h, initial_c, P, *, direction, activations: tuple, alpha, beta, clip,
         layout, input_forget):
    """Gates i, o, f, c in that order in W, R and B; peepholes P = [Pi, Po, Pf]; with input_forget
    the forget gate is 1 - i.  f = Sigmoid, g = h = Tanh by default."""
    dirs, hidden = W.shape[0], R.shape[-1]
    acts = _activation_fns(activations, alpha, beta, ("Sigmoid", "Tanh", "Tanh"), dirs)
    w, r, bias = W.astype(np.float64), R.astype(np.float64), _bias(B, dirs, 4 * hidden)
    p = np.zeros((dirs, 3 * hidden)) if P is None else P.astype(np.float64)
    H = hidden

    def cell(d, xt, states):
        h, c = states
        f, g, hf = acts[d]
        a = xt @ w[d].T + h @ r[d].T + bias[d]
        i = f(_clip(a[:H] + p[d, :H] * c, clip))
        fg = 1 - i if int(input_forget) else f(_clip(a[2 * H:3 * H] + p[d, 2 * H:] * c, clip))
        ct = g(_clip(a[3 * H:], clip))
        c = fg * c + i * ct
        o = f(_clip(a[H:2 * H] + p[d, H:2 * H] * c, clip))
        return [o * hf(c), c]
    return run_cell(X, W, R, B, sequence_lens, initial_h, initial_c, direction=direction, layout=layout, cell=cell,
                    n_states=2)
