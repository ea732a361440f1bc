"""Notation functions for convolution and pooling: output spatial sizes under ``auto_pad``,
``pads``, ``strides``, ``dilations`` and ``ceil_mode`` (Conv, the pools), and the
ConvTranspose output size.  Exact on plain integers and on symbols (sympy ``floor``/``ceiling``
over a symbolic size); a dim that is unknown (a fresh dim) gives a fresh unknown dim.

Attributes arrive as tuples of ints (or ``None`` when absent): strides and dilations default
to 1, pads to 0; ``kernel`` may hold symbolic dims (Conv takes it from W's shape).

>>> from shapecheck.dims import symbol
>>> S = symbol("S")
>>> conv_out(S, 3, 2, 1, 0, 0), conv_out(2 * S, 3, 2, 1, 1, 1), conv_out(7, 3, 2, 1, 0, 0, 1)
(floor(S/2 - 3/2) + 1, S, 3)
>>> pool_shape((S, 8), (3, 3), (2, 2), None, None, "SAME_UPPER", 0)
(ceiling(S/2), 4)
>>> conv_transpose_shape((S,), (3,), (2,), None, None, "NOTSET", (1,), None)
(2*S + 2,)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dims import LIGHT, is_unknown, normalize_dim, unknown_dim, is_symbolic
from ..dims.rounding import ceiling_of, floor_div
from ..notation import EvalError, NeedInt, Unknown, UnknownShape

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def _is_int(x: Any) -> bool:
    return type(x) is int or (type(x) not in LIGHT and hasattr(x, "__index__") and not isinstance(x, (bool, sympy.Basic)))


def _opaque(x: Any) -> bool:
    """A dim whose size nothing is known of (a fresh dim, or an expression over one)."""
    return is_symbolic(x) and any(is_unknown(s) for s in x.free_symbols)


def spatial(v: Any, n: Any, default: Any) -> Any:
    """An attribute's per-axis values, or ``default`` repeated ``n`` times when it is absent (None,
    or ``()``: what a version without the attribute passes, ``dil = "[]"``).

    >>> spatial(None, 2, 1), spatial((2, 3), 2, 1), spatial((), 1, 1)
    ((1, 1), (2, 3), (1,))
    """
    if isinstance(n, Unknown):
        return n
    if not _is_int(n):
        raise NeedInt(n)
    return (default,) * int(n) if v is None or v == () else tuple(v)


def effective_kernel(k: Any, d: Any = 1) -> Any:
    """The extent of a dilated kernel: ``(k - 1) * d + 1``.

    >>> effective_kernel(3, 2)
    5
    """
    return normalize_dim((k - 1) * d + 1)


def _floordiv(a: Any, s: int) -> Any:
    if type(a) in LIGHT:
        return a // s   # exact, as floor_div finds it, or NeedsAlgebra (dims/light.py)
    return int(a) // s if _is_int(a) else floor_div(a, s)


def conv_out(h: Any, k: Any, s: Any = 1, d: Any = 1, pb: Any = 0, pe: Any = 0, ceil_mode: Any = 0) -> Any:
    """One output size of a convolution or pool with explicit pads:
    ``floor((h + pb + pe - ((k-1)*d + 1)) / s) + 1``.

    With ``ceil_mode`` the division rounds up, but (as onnxruntime and onnx's inference do) a last
    window that would start past the input and its left padding (``(out-1)*s >= h + pb``) is
    dropped; for pads smaller than the kernel that is exactly
    ``floor((min(h + pb + pe - ek + s, h + pb) - 1) / s) + 1`` (ek the dilated kernel).

    >>> conv_out(5, 3, 2, 1, 1, 1), conv_out(6, 3, 2, 1, 0, 0, 1), conv_out(3, 2, 3, 1, 0, 1, 1)
    (3, 3, 1)
    """
    for x in (h, k):
        if isinstance(x, Unknown):
            return x
    if not all(_is_int(x) for x in (s, d, pb, pe)):
        raise NeedInt(next(x for x in (s, d, pb, pe) if not _is_int(x)))
    s = int(s)
    if s < 1:
        raise EvalError(f"stride {s} is not positive")
    if _opaque(h) or _opaque(k):
        return unknown_dim("conv")
    ek = effective_kernel(k, d)
    span = h + pb + pe - ek
    if not int(ceil_mode):
        return normalize_dim(_floordiv(span, s) + 1)
    last = span + s                          # one past the last start that rounding up allows
    cap = h + pb                             # a window must start inside the input or its left pad
    diff = normalize_dim(sympy.sympify(last - cap)) if not (_is_int(last) and _is_int(cap)) else last - cap
    if _is_int(diff):
        top = cap if diff > 0 else last
    else:
        top = normalize_dim(sympy.Min(last, cap))
    return normalize_dim(_floordiv(top - 1, s) + 1)


def same_out(h: Any, s: Any) -> Any:
    """The output size under ``SAME_UPPER``/``SAME_LOWER``: ``ceil(h / s)``.

    >>> same_out(7, 2)
    4
    """
    if isinstance(h, Unknown):
        return h
    if not _is_int(s):
        raise NeedInt(s)
    if _opaque(h):
        return unknown_dim("conv")
    if _is_int(h):
        return -(-int(h) // int(s))
    return normalize_dim(ceiling_of(sympy.sympify(h) / int(s)))


def _same_pool(h: Any, k: Any, s: int, d: int, ceil_mode: Any) -> Any:
    """A SAME_* output size as onnxruntime computes it: the pads from the undilated kernel, the
    windows dilated, so ``ceil(h / s) - floor_or_ceil((k - 1) * (d - 1) / s)`` (ceil in ceil_mode);
    ``ceil(h / s)`` when d = 1 (the page's value, for Conv and every pool)."""
    if int(d) == 1:
        return same_out(h, s)
    if not _is_int(k):
        raise NeedInt(k)
    lost = (int(k) - 1) * (int(d) - 1)
    q = lost // int(s) if int(ceil_mode) else -(-lost // int(s))
    out = same_out(h, s)
    return out if isinstance(out, Unknown) or is_unknown(out) else normalize_dim(out - q)


def same_pad(h: Any, k: Any, s: Any) -> Any:
    """The total SAME_* padding before it is clamped at 0: ``(ceil(h / s) - 1) * s + k - h``, with the
    undilated kernel (as onnxruntime computes it); negative when the last window ends before the input.

    >>> same_pad(6, 1, 4), same_pad(5, 2, 3)
    (-1, 0)
    """
    out = same_out(h, s)
    if isinstance(out, Unknown) or isinstance(k, Unknown):
        return out if isinstance(out, Unknown) else k
    if is_unknown(out):
        return unknown_dim("pad")
    return normalize_dim((out - 1) * int(s) + k - h)


def _attrs(shape: Any, kernel: Any, strides: Any, pads: Any, dilations: Any):
    n = len(shape)
    kernel = tuple(kernel)
    if len(kernel) != n:
        raise EvalError(f"kernel has {len(kernel)} dims for {n} spatial axes")
    strides, dilations = spatial(strides, n, 1), spatial(dilations, n, 1)
    pads = spatial(pads, 2 * n, 0)
    if len(strides) != n or len(dilations) != n or len(pads) != 2 * n:
        raise EvalError("strides, dilations and pads must have one (pads: two) values per spatial axis")
    return n, kernel, strides, pads, dilations


def pool_shape(shape: Any, kernel: Any, strides: Any = None, pads: Any = None, dilations: Any = None,
               auto_pad: Any = "NOTSET", ceil_mode: Any = 0) -> Any:
    """The output spatial sizes of Conv or a pool over input spatial sizes ``shape``.

    ``SAME_*``: ``ceil(h / s)``; ``VALID``: pads of 0; ``NOTSET``: the given pads.

    >>> pool_shape((32, 32), (3, 3), (2, 2), (1, 1, 1, 1)), pool_shape((5,), (2,), None, None, None, "VALID")
    ((16, 16), (4,))
    """
    if isinstance(shape, Unknown) or isinstance(kernel, Unknown):
        return UnknownShape(None)
    n, kernel, strides, pads, dilations = _attrs(shape, kernel, strides, pads, dilations)
    if auto_pad not in AUTO_PADS:
        raise EvalError(f"auto_pad {auto_pad!r} is not one of {', '.join(AUTO_PADS)}")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return tuple(_same_pool(shape[i], kernel[i], strides[i], dilations[i], ceil_mode) for i in range(n))
    if auto_pad == "VALID":
        pads = (0,) * (2 * n)
    return tuple(conv_out(shape[i], kernel[i], strides[i], dilations[i], pads[i], pads[i + n], ceil_mode)
                 for i in range(n))


def min_input(kernel: Any, strides: Any = None, pads: Any = None, dilations: Any = None, auto_pad: Any = "NOTSET",
              ceil_mode: Any = 0, at_least: Any = 1) -> Any:
    """Per spatial axis, the least input size D for which ``pool_shape`` gives ``at_least`` outputs or
    more: a condition on the input's own dim (``H >= 3``) instead of one on the floor expression.

    Explicit pads: ``(m-1)*s + ek - pb - pe`` (floor); in ceil_mode also ``(m-1)*s + 1 - pb`` (the last
    window starts inside the input or its left pad) and ``s - 1`` less; SAME_*: ``(m+q-1)*s + 1``.

    >>> min_input((3, 3), (2, 2), (1, 1, 1, 1)), min_input((3,), (2,), None, None, "NOTSET", 1, 0)
    ((1, 1), (0,))
    """
    if isinstance(kernel, Unknown):
        return UnknownShape(None)
    n = len(tuple(kernel))
    _, kernel, strides, pads, dilations = _attrs((0,) * n, kernel, strides, pads, dilations)
    m, out = int(at_least), []
    for i in range(n):
        k, s, d = kernel[i], int(strides[i]), int(dilations[i])
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            lost = 0 if d == 1 else (int(k) - 1) * (d - 1)
            q = lost // s if int(ceil_mode) else -(-lost // s)
            out.append((m + q - 1) * s + 1)
            continue
        pb, pe = (0, 0) if auto_pad == "VALID" else (int(pads[i]), int(pads[i + n]))
        lo = normalize_dim((m - 1) * s + effective_kernel(k, d) - pb - pe)
        if int(ceil_mode):
            lo = normalize_dim(lo - s + 1)
            start = (m - 1) * s + 1 - pb
            lo = max(lo, start) if _is_int(lo) else normalize_dim(sympy.Max(lo, start))
        out.append(lo)
    return tuple(out)


def transpose_full(shape: Any, kernel: Any, strides: Any = None, dilations: Any = None,
                   output_padding: Any = None) -> Any:
    """ConvTranspose's unpadded output sizes: ``s * (h - 1) + output_padding + (k - 1) * d + 1``.

    >>> transpose_full((4,), (3,), (2,))
    (9,)
    """
    if isinstance(shape, Unknown) or isinstance(kernel, Unknown):
        return UnknownShape(None)
    n, kernel, strides, _, dilations = _attrs(shape, kernel, strides, None, dilations)
    op = spatial(output_padding, n, 0)
    if len(op) != n:
        raise EvalError("output_padding must have one value per spatial axis")
    out = []
    for h, k, s, d, o in zip(shape, kernel, strides, dilations, op):
        out.append(unknown_dim("conv") if _opaque(h) or _opaque(k) else
                   normalize_dim(s * (h - 1) + o + effective_kernel(k, d)))
    return tuple(out)


def transpose_min_input(kernel: Any, strides: Any = None, pads: Any = None, dilations: Any = None,
                        auto_pad: Any = "NOTSET", output_padding: Any = None) -> Any:
    """Per spatial axis, the least input size D for which ConvTranspose (without output_shape) gives
    an output of 1 or more: ``ceil((1 + pb + pe - output_padding - ek) / s) + 1``; 1 under SAME_*.

    >>> transpose_min_input((3,), (1,), (3, 3)), transpose_min_input((3,), (2,), None, None, "SAME_UPPER")
    ((5,), (1,))
    """
    if isinstance(kernel, Unknown):
        return UnknownShape(None)
    n = len(tuple(kernel))
    _, kernel, strides, pads, dilations = _attrs((0,) * n, kernel, strides, pads, dilations)
    op = spatial(output_padding, n, 0)
    out = []
    for i in range(n):
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(1)
            continue
        pb, pe = (0, 0) if auto_pad == "VALID" else (int(pads[i]), int(pads[i + n]))
        need = 1 + pb + pe - int(op[i]) - effective_kernel(kernel[i], dilations[i])
        s = int(strides[i])
        out.append(normalize_dim((-(-need // s) if _is_int(need) else ceiling_of(sympy.sympify(need) / s)) + 1))
    return tuple(out)


def conv_transpose_shape(shape: Any, kernel: Any, strides: Any = None, pads: Any = None, dilations: Any = None,
                         auto_pad: Any = "NOTSET", output_padding: Any = None, output_shape: Any = None) -> Any:
    """ConvTranspose's output spatial sizes: ``output_shape`` when given (its last spatial values),
    ``min(h * s, unpadded size)`` under ``SAME_*`` (onnxruntime clamps the total pad at 0), else the unpadded size less the pads (none under ``VALID``).

    >>> conv_transpose_shape((4,), (3,), (2,), None, None, "SAME_UPPER"), conv_transpose_shape((4,), (3,), (2,), (1, 1))
    ((8,), (7,))
    """
    if isinstance(shape, Unknown) or isinstance(kernel, Unknown):
        return UnknownShape(None)
    n = len(shape)
    if output_shape is not None:
        return tuple(int(v) for v in tuple(output_shape)[-n:]) if n else ()
    full = transpose_full(shape, kernel, strides, dilations, output_padding)
    _, _, strides, pads, _ = _attrs(shape, kernel, strides, pads, dilations)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):      # D * s, but never past the unpadded size (onnxruntime)
        return tuple(f if _opaque(f) or _opaque(h) else _clip_same(h * s, f) for h, s, f in zip(shape, strides, full))
    if auto_pad == "VALID":
        return full
    return tuple(f if _opaque(f) else normalize_dim(f - pads[i] - pads[i + n]) for i, f in enumerate(full))


def _clip_same(target: Any, full: Any) -> Any:
    diff = normalize_dim(sympy.sympify(full - target))
    if _is_int(diff):
        return normalize_dim(target + min(diff, 0))
    return normalize_dim(sympy.Min(target, full))


def unpool_shape(shape: Any, kernel: Any, strides: Any = None, pads: Any = None) -> Any:
    """MaxUnpool's default output spatial sizes: ``s * (h - 1) + k - pad_begin - pad_end``, the input
    size of the MaxPool it inverts.

    >>> unpool_shape((2, 2), (2, 2), (2, 2), (0, 0, 0, 0))
    (4, 4)
    """
    return conv_transpose_shape(shape, kernel, strides, pads)


def resolve_pads(h: int, k: int, s: int, d: int, pb: int, pe: int, auto_pad: str) -> tuple[int, int]:
    """Concrete (begin, end) pads of one axis of Conv or a pool, auto_pad applied (for the kernels):
    ``SAME_*`` splits ``max(0, (ceil(h/s) - 1) * s + k - h)`` (the undilated kernel, as onnxruntime
    does), the odd one at the end (UPPER) or the beginning (LOWER).

    >>> resolve_pads(4, 3, 2, 1, 0, 0, "SAME_UPPER"), resolve_pads(4, 3, 2, 1, 0, 0, "SAME_LOWER")
    ((0, 1), (1, 0))
    """
    if auto_pad == "VALID":
        return 0, 0
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        total = max(0, same_pad(h, k, s))
        small, big = total // 2, total - total // 2
        return (small, big) if auto_pad == "SAME_UPPER" else (big, small)
    return pb, pe


# the functions this module lends the notation (found by walking shapecheck.functions)
NOTATION = (spatial, effective_kernel, conv_out, same_out, same_pad, pool_shape, min_input, transpose_min_input, transpose_full, conv_transpose_shape,
            unpool_shape,)
