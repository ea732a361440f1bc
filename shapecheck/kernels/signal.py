"""Kernels of the signal ops: DFT, STFT, the windows (Hann, Hamming, Blackman), MelWeightMatrix and
ImageDecoder (an encoded image is a signal too).

A complex tensor is ONNX's real representation: a last dim of 2 (real, imaginary), or 1 for a real
signal.  Transforms are computed in float64 with numpy's FFT and cast back to the input's type.

>>> import numpy as np
>>> dft(np.array([[[1.0], [0.0], [0.0], [0.0]]], np.float32), None, axis=1, inverse=0, onesided=0)[0, :, 0].tolist()
[1.0, 1.0, 1.0, 1.0]
>>> window(np.array(4), how="hann", periodic=1, dtype="float").tolist()
[0.0, 0.5, 1.0, 0.5]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..types import numpy_dtype
from . import register


def _complex(x: np.ndarray) -> np.ndarray:
    """The complex values of ONNX's representation (last dim 1: real, 2: real and imaginary)."""
    v = x.astype(np.float64)
    return v[..., 0] if v.shape[-1] == 1 else v[..., 0] + 1j * v[..., 1]


def _pack(c: np.ndarray, like: np.ndarray, real: bool = False) -> np.ndarray:
    """Complex values back in ONNX's representation, in ``like``'s element type."""
    out = c.real[..., None] if real else np.stack([c.real, c.imag], axis=-1)
    return out.astype(like.dtype)


@register("dft")
def dft(input: np.ndarray, dft_length, *, axis: int, inverse: int, onesided: int) -> np.ndarray:
    """DFT along ``axis`` (of the full tensor; the last dim is the complex one): the full transform, the
    one-sided forward one (RFFT, floor(n/2) + 1 bins of a real signal) or the inverse one-sided one (IRFFT,
    a real signal of n = dft_length, 2 * (d - 1) without it); n zero-pads or truncates the axis."""
    a = int(axis) % input.ndim
    d = input.shape[a]
    c = _complex(input)
    if dft_length is not None:
        n = int(np.asarray(dft_length).reshape(-1)[0])
    else:
        n = 2 * (d - 1) if int(inverse) and int(onesided) else d
    if int(inverse):
        if int(onesided):
            return _pack(np.fft.irfft(c, n=n, axis=a), input, real=True)
        return _pack(np.fft.ifft(c, n=n, axis=a), input)
    y = np.fft.fft(c, n=n, axis=a)
    if int(onesided):
        y = np.take(y, np.arange(n // 2 + 1), axis=a)
    return _pack(y, input)


@register("stft")
def stft(signal: np.ndarray, frame_step, window, frame_length, *, onesided: int) -> np.ndarray:
    """STFT of signal [batch, length, 1 or 2]: frames of frame_length (window's length, else the signal's)
    every frame_step samples, each times the window (all ones without it) and transformed:
    [batch, frames, bins, 2], bins = floor(frame_length / 2) + 1 when onesided."""
    length = signal.shape[1]
    if frame_length is not None:
        fl = int(np.asarray(frame_length).reshape(-1)[0])
    else:
        fl = window.shape[0] if window is not None else length
    step = int(np.asarray(frame_step).reshape(-1)[0])
    w = np.ones(fl) if window is None else window.astype(np.float64)
    c = _complex(signal)
    frames = max((length - fl) // step + 1, 0)
    cut = np.stack([c[:, f * step:f * step + fl] * w for f in range(frames)], axis=1) if frames else \
        np.zeros((signal.shape[0], 0, fl), complex)
    y = np.fft.fft(cut, n=fl, axis=2)
    if int(onesided):
        y = y[:, :, :fl // 2 + 1]
    return _pack(y, signal)


@register("window")
def window(size: np.ndarray, *, how: str, periodic: int, dtype: str) -> np.ndarray:
    """A Hann, Hamming (25/46, 21/46) or Blackman window of ``size`` points (periodic: of size + 1 points
    without the last one), as onnx.reference computes it."""
    n = int(np.asarray(size).reshape(-1)[0])
    denom = n if int(periodic) else n - 1
    k = np.arange(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        if how == "hann":
            y = np.sin(k * np.pi / denom) ** 2
        elif how == "hamming":
            y = 25 / 46 - 21 / 46 * np.cos(2 * np.pi * k / denom)
        else:
            y = 0.42 - 0.5 * np.cos(2 * np.pi * k / denom) + 0.08 * np.cos(4 * np.pi * k / denom)
    return y.astype(numpy_dtype(dtype))


@register("mel_weight_matrix")
def mel_weight_matrix(num_mel_bins: np.ndarray, dft_length: np.ndarray, sample_rate: np.ndarray,
                      lower_edge_hertz: np.ndarray, upper_edge_hertz: np.ndarray, *, dtype: str) -> np.ndarray:
    """The [floor(dft_length / 2) + 1, num_mel_bins] matrix of triangular mel filters (peak 1), with the
    bin edges onnx.reference computes (mel(f) = 2595 log10(1 + f / 700), num_mel_bins + 2 points)."""
    bins, n_dft, rate = (int(np.asarray(v).reshape(-1)[0]) for v in (num_mel_bins, dft_length, sample_rate))
    lo, hi = (float(np.asarray(v).reshape(-1)[0]) for v in (lower_edge_hertz, upper_edge_hertz))
    mel_lo, mel_hi = (2595 * np.log1p(f / 700) / np.log(10) for f in (lo, hi))
    points = np.arange(bins + 2) * ((mel_hi - mel_lo) / (bins + 2)) + mel_lo
    edges = (((n_dft + 1) * (700 * np.expm1(points / 2595 * np.log(10)))) // rate).astype(int)
    out = np.zeros((n_dft // 2 + 1, bins))
    for i in range(bins):
        left, center, right = edges[i], edges[i + 1], edges[i + 2]
        if center == left:
            out[center, i] = 1
        else:
            out[left:center + 1, i] = (np.arange(left, center + 1) - left) / (center - left)
        if right > center:
            out[center:right, i] = (right - np.arange(center, right)) / (right - center)
    return out.astype(numpy_dtype(dtype))


@register("image_decoder")
def image_decoder(encoded_stream: np.ndarray, *, pixel_format: str) -> np.ndarray:
    """The decoded image [H, W, 3] (RGB, BGR) or [H, W, 1] (Grayscale), through Pillow, which shapecheck does
    not depend on: without it the executor cannot run the node (its shapes are still checked)."""
    try:
        import io
        import PIL.Image
    except ImportError:
        from ..errors import UsageError
        raise UsageError("ImageDecoder needs Pillow to run (pip install pillow)") from None
    try:
        img = PIL.Image.open(io.BytesIO(encoded_stream.tobytes()))
        img.load()
    except (OSError, ValueError, SyntaxError) as exc:   # Pillow's refusals of a stream it cannot decode
        from ..errors import ConstraintError
        raise ConstraintError("ImageDecoder-20", "C3", 'image_format(encoded_stream) != ""',
                              f"encoded_stream is not an image Pillow decodes ({exc})") from None
    if pixel_format == "Grayscale":
        return np.asarray(img.convert("L"), np.uint8)[:, :, None].copy()
    rgb = np.asarray(img.convert("RGB"), np.uint8)
    return (rgb[:, :, ::-1] if pixel_format == "BGR" else rgb).copy()
