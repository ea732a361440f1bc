"""OpenVINO SliceScatter: a copy of ``data`` with the Slice-8 region ``start:stop:step`` on ``axes`` set to ``updates``.

>>> import numpy as np
>>> slice_scatter(np.zeros(5), np.ones(2), np.array([0]), np.array([4]), np.array([2]), None).tolist()
[1.0, 0.0, 1.0, 0.0, 0.0]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..functions.slicing import slice_range
from . import register


@register("slice_scatter")
def slice_scatter(data: np.ndarray, updates: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
                  axes: np.ndarray | None) -> np.ndarray:
    """out = data; out[region] = updates, region from start/stop/step on axes (all axes in order when absent)."""
    out = np.array(data, copy=True)
    starts, stops, steps = (np.asarray(v).reshape(-1).tolist() for v in (start, stop, step))
    ax = list(range(len(starts))) if axes is None else np.asarray(axes).reshape(-1).tolist()
    region = [np.arange(n) for n in out.shape]
    for a, lo, hi, st in zip(ax, starts, stops, steps):
        # an index array keeps the positions exact (a slice object would read a stop of -1 as "the last")
        r = slice_range(out.shape[a % out.ndim], lo, hi, st)
        region[a % out.ndim] = np.arange(r.start, r.stop, r.step)
    out[np.ix_(*region)] = updates
    return out
