"""Sequence kernels: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
SequenceLength, SplitToSequence, ConcatFromSequence and SequenceMap.  A sequence is a list of arrays.

>>> import numpy as np
>>> s = sequence_insert([np.zeros(2), np.ones(3)], np.full(1, 7.0), np.array(-1))
>>> [x.shape for x in s], sequence_at(s, np.array(1)).tolist()
([(2,), (1,), (3,)], [7.0])
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import register

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


def _index(position: Any, n: int) -> int:
    p = int(np.asarray(position).reshape(-1)[0])
    return p + n if p < 0 else p


@register("sequence_empty")
def sequence_empty(dtype: Any) -> list:
    return []


@register("sequence_construct")
def sequence_construct(inputs: tuple) -> list:
    return [np.array(x, copy=True) for x in inputs]


@register("sequence_insert")
def sequence_insert(input_sequence: list, tensor: np.ndarray, position: Any = None) -> list:
    out = list(input_sequence)
    i = len(out) if position is None else _index(position, len(out))
    out.insert(i, np.array(tensor, copy=True))
    return out


@register("sequence_at")
def sequence_at(input_sequence: list, position: Any) -> np.ndarray:
    return np.array(input_sequence[_index(position, len(input_sequence))], copy=True)


@register("sequence_erase")
def sequence_erase(input_sequence: list, position: Any = None) -> list:
    out = list(input_sequence)
    del out[len(out) - 1 if position is None else _index(position, len(out))]
    return out


@register("sequence_length")
def sequence_length(input_sequence: list) -> np.ndarray:
    return np.array(len(input_sequence), dtype=np.int64)


@register("split_to_sequence")
def split_to_sequence(input: np.ndarray, split: Any, axis: int, keepdims: int) -> list:
    """Parts of 1 without split (squeezed unless keepdims), of a scalar split's size (the last what is
    left), or of a vector split's sizes; an empty vector split is as none (onnxruntime's reading)."""
    d = input.shape[axis]
    if split is None or (np.ndim(split) == 1 and np.size(split) == 0):
        parts = [np.take(input, [i], axis=axis) for i in range(d)]
        return [p.squeeze(axis) if not keepdims else p for p in parts]
    sizes = np.asarray(split).reshape(-1).astype(np.int64)
    if np.ndim(split) == 0:
        c = int(sizes[0])
        sizes = np.array([c] * (d // c) + ([d % c] if d % c else []), dtype=np.int64)
        squeeze = not keepdims   # onnxruntime squeezes the axis of a scalar split of 1 (a larger one fails)
    else:
        squeeze = False
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    parts = [np.take(input, range(int(a), int(b)), axis=axis) for a, b in zip(bounds[:-1], bounds[1:])]
    return [p.squeeze(axis) if squeeze else p for p in parts]


@register("concat_from_sequence")
def concat_from_sequence(input_sequence: list, axis: int, new_axis: int) -> np.ndarray:
    if new_axis:
        return np.stack(input_sequence, axis=axis)
    return np.concatenate(input_sequence, axis=axis)


@register("sequence_map")
def sequence_map(input_sequence: list, additional_inputs: Any, body: Any, output_count: int) -> tuple:
    """Each element through the body (run by onnx.reference), with the additional inputs: a sequence's
    element of the same position, a tensor as it is."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator
    others = list(additional_inputs or ())
    model = helper.make_model(body, opset_imports=[helper.make_opsetid("", 17)])
    run = ReferenceEvaluator(model)
    names = [i.name for i in body.input]
    outs: list[list] = [[] for _ in range(output_count)]
    for k, x in enumerate(input_sequence):
        feeds = {names[0]: x}
        feeds.update({n: (v[k] if isinstance(v, list) else v) for n, v in zip(names[1:], others)})
        for j, y in enumerate(run.run(None, feeds)):
            outs[j].append(np.asarray(y))
    return tuple(outs)
