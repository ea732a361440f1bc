"""Detection functions: NonMaxSuppression's box selection, which both the rule's count of selected
boxes (``nms_count``) and the ``nms`` kernel run.

>>> import numpy as np
>>> boxes, scores = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1]]], np.float32), np.array([[[0.9, 0.8]]], np.float32)
>>> select_boxes(boxes, scores, np.array([3]), np.array([0.5], np.float32), None, center_point_box=0).tolist()
[[0, 0, 0]]
"""
from __future__ import annotations

from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..notation import NO_VALUE, TensorVal, Unknown
from .selection import _known


def _tensor_value(t: Any) -> np.ndarray | None:
    """A constant tensor's contents (an integer vector may be held as its elements), else None."""
    if not isinstance(t, TensorVal):
        return None if t is None or isinstance(t, Unknown) else np.asarray(t)
    if t.value is not None:
        return t.value
    return _known(t.sym[0] if t.sym is not None and t.shape == () else t.sym)


def nms_count(boxes: Any, scores: Any, limit: Any, iou: Any, score: Any, center: Any) -> Any:
    """NonMaxSuppression's number of selected boxes where boxes, scores and the given limits (tensors,
    or arrays; None for an absent one) are constants: the executor's kernel counts them. Unknown otherwise.

    >>> import numpy as np
    >>> nms_count(np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1]]], np.float32), np.array([[[0.9, 0.8]]], np.float32),
    ...           np.array([3]), np.array([0.5], np.float32), None, 0)
    1
    """
    arrays = [_tensor_value(t) for t in (boxes, scores, limit, iou, score)]
    if arrays[0] is None or arrays[1] is None or any(t is not None and a is None
                                                     for t, a in zip((limit, iou, score), arrays[2:])):
        return NO_VALUE
    b, s = np.asarray(arrays[0]), np.asarray(arrays[1])
    if b.ndim != 3 or s.ndim != 3 or b.shape[-1:] != (4,) or s.shape[0] != b.shape[0] or s.shape[2] != b.shape[1]:
        return NO_VALUE
    opt = [None if v is None else np.asarray(v) for v in arrays[2:]]
    if any(v is not None and v.size != 1 for v in opt):
        return NO_VALUE
    return int(select_boxes(b, s, *opt, center_point_box=int(center)).shape[0])


def _corners(b: np.ndarray, center: int) -> np.ndarray:
    """Boxes as [y1, x1, y2, x2] with y1 <= y2 and x1 <= x2 (from corners in any order, or centers)."""
    b = b.astype(np.float64)
    if int(center):
        xc, yc, w, h = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=1)
    return np.stack([np.minimum(b[:, 0], b[:, 2]), np.minimum(b[:, 1], b[:, 3]),
                     np.maximum(b[:, 0], b[:, 2]), np.maximum(b[:, 1], b[:, 3])], axis=1)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    ih = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iw = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ih * iw
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _scalar(v, default):
    return default if v is None else np.asarray(v).reshape(-1)[0].item()


def select_boxes(boxes: np.ndarray, scores: np.ndarray, max_output_boxes_per_class, iou_threshold, score_threshold, *,
                 center_point_box: int) -> np.ndarray:
    """[num_selected, 3] rows (batch, class, box): per batch and class, boxes by descending score
    (above score_threshold), each kept unless its IoU with a kept one exceeds iou_threshold, at most
    max_output_boxes_per_class (default 0: none)."""
    limit = int(_scalar(max_output_boxes_per_class, 0))
    iou_t = float(_scalar(iou_threshold, 0.0))
    score_t = None if score_threshold is None else float(_scalar(score_threshold, 0.0))
    rows = []
    for bi in range(boxes.shape[0]):
        corners = _corners(boxes[bi], center_point_box)
        for ci in range(scores.shape[1]):
            s = scores[bi, ci].astype(np.float64)
            order = [int(i) for i in np.argsort(-s, kind="stable") if score_t is None or s[i] > score_t]
            kept: list[int] = []
            for i in order:
                if len(kept) >= limit:
                    break
                if all(_iou(corners[i], corners[k]) <= iou_t for k in kept):
                    kept.append(i)
            rows += [(bi, ci, k) for k in kept]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


NOTATION = (nms_count,)
