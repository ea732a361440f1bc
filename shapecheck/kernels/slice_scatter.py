"""OpenVINO SliceScatter: a copy of ``data`` with the Slice-8 region ``start:stop:step`` on ``axes`` set to ``updates``.

>>> import numpy as np
>>> slice_scatter(np.zeros(5), np.ones(2), np.array([0]), np.array([4]), np.array([2]), None).tolist()
[1.0, 0.0, 1.0, 0.0, 0.0]
"""
from __future__ import annotations

import numpy as np

from . import register


@register("slice_scatter")
def slice_scatter(data: np.ndarray, updates: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
                  axes: np.ndarray | None) -> np.ndarray:
    """out = data; out[region] = updates, region from start/stop/step on axes (all axes in order when absent)."""
    out = np.array(data, copy=True)
    starts, stops, steps = (np.asarray(v).reshape(-1).tolist() for v in (start, stop, step))
    ax = list(range(len(starts))) if axes is None else np.asarray(axes).reshape(-1).tolist()
    region = [slice(None)] * out.ndim
    for a, lo, hi, st in zip(ax, starts, stops, steps):
        b, e, st = slice(lo, hi, st).indices(out.shape[a % out.ndim])
        region[a % out.ndim] = slice(b, e if e >= 0 else None, st)   # -1 from indices() means "before 0"
    out[tuple(region)] = updates
    return out
