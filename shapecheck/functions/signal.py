"""Functions of the signal family's specs (DFT, STFT, the windows, MelWeightMatrix, ImageDecoder):
``decodable``, whether an encoded image stream can be an image.

>>> import numpy as np
>>> from shapecheck.notation import TensorVal
>>> from shapecheck.types import tensor_type_of
>>> def stream(b): return TensorVal("s", tensor_type_of(np.frombuffer(b, np.uint8)))
>>> decodable(stream(b"P5 2 1 255 ab")), decodable(stream(b"P5 2 1 255 a")), decodable(stream(b"\\x00\\x01"))
(True, False, False)
>>> decodable(stream(b"\\x89PNG\\r\\n\\x1a\\n"))   # a PNG signature: only decoding tells the rest
Unknown(value)
"""
from __future__ import annotations

import re
from typing import Any

from ..notation import NO_VALUE, TensorVal

# the signatures of the formats ImageDecoder-20's page names (JPEG, PNG, BMP, WebP, TIFF, JPEG 2000; PNM below)
_SIGNATURES = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"BM", b"II*\x00", b"MM\x00*",
               b"\x00\x00\x00\x0cjP  \r\n\x87\n", b"\xffO\xffQ")
# a binary PNM header: P4 (bitmap), P5 (graymap), P6 (pixmap); width, height, maxval (not for P4), then data
_PNM = re.compile(rb"P([456])\s+(\d+)\s+(\d+)\s+(?:(\d+)\s)?")


def decodable(stream: Any) -> Any:
    """Whether an encoded image stream can decode: False when its first bytes name none of the page's
    formats, or when it is a binary PNM too short for the size its header states; True for a complete
    binary PNM; unknown for the other formats (only decoding tells) and for a stream known only at run
    time."""
    value = stream.value if isinstance(stream, TensorVal) else None
    if value is None:
        return NO_VALUE
    data = value.reshape(-1).astype("uint8").tobytes()
    pnm = _PNM.match(data)
    if pnm is not None:
        kind, w, h = int(pnm.group(1)), int(pnm.group(2)), int(pnm.group(3))
        maxval = int(pnm.group(4) or 1)
        if kind != 4 and pnm.group(4) is None:
            return False
        per = {4: 0, 5: 1, 6: 3}[kind] * (2 if maxval > 255 else 1)
        need = h * ((w + 7) // 8) if kind == 4 else w * h * per
        return w > 0 and h > 0 and 0 < maxval < 65536 and len(data) - pnm.end() >= need
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" or data.startswith(_SIGNATURES):
        return NO_VALUE
    return False


def _scalar(t: Any) -> Any:
    value = t.value if isinstance(t, TensorVal) else None
    return None if value is None or value.size != 1 else value.reshape(-1)[0].item()


def mel_edges(sample_rate: Any, lower_edge_hertz: Any, upper_edge_hertz: Any) -> Any:
    """MelWeightMatrix's band: ``0 <= lower_edge_hertz < upper_edge_hertz <= sample_rate / 2`` (the Nyquist
    frequency, past which the filters' edges fall outside the spectrum's ``dft_length // 2 + 1`` bins);
    unknown where a value is known only at run time.

    >>> import numpy as np
    >>> from shapecheck.types import tensor_type_of
    >>> def s(x): return TensorVal("x", tensor_type_of(np.array(x)))
    >>> mel_edges(s(8000), s(0.0), s(4000.0)), mel_edges(s(8000), s(0.0), s(4001.0)), mel_edges(s(8000), s(9.0), s(9.0))
    (True, False, False)
    """
    values = [_scalar(t) for t in (sample_rate, lower_edge_hertz, upper_edge_hertz)]
    if any(v is None for v in values):
        return NO_VALUE
    rate, lo, hi = values
    return 0 <= lo < hi <= rate / 2


NOTATION = (decodable, mel_edges)
