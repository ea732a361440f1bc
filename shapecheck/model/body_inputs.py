"""What a Loop, Scan or SequenceMap body's inputs are bound to: the owner's inputs as they enter the first
iteration (``exact``), or generalized to any iteration (fresh dims, ``regions.generalized``).  A Loop's
iteration number is 0 to M - 1 for a trip count M known as a dim (``_iteration``): a body that indexes
a table by it (``Gather(w, i + 2)``, w of 10 rows) then needs ``M <= 8``, where onnxruntime fails at 9.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..containers import SequenceType
from ..dims import has_unknown, is_symbolic, normalize_dim
from ..frontends import ModelNode
from ..types import TensorType
from .regions import generalized, without

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


def scalar(t: TensorType | None) -> Any:
    """The one element of a tensor whose value is known and has one element, else None."""
    value = getattr(t, "value", None)
    return value.reshape(-1)[0] if isinstance(value, np.ndarray) and value.size == 1 else None


def loop_inputs(owner: ModelNode, env: dict, exact: bool) -> list:
    names = owner.branch_inputs.get("body", [])
    initial = [env.get(x) if x else None for x in owner.inputs[2:]]
    return [_iteration(owner, env), TensorType("bool", ())] + [
        generalized(t, n, exact) for t, n in zip(initial, names[2:])]


def _iteration(owner: ModelNode, env: dict) -> TensorType:
    """The iteration number a Loop body reads: 0 to M - 1 for a trip count M known as a dim, attained
    where no condition can end the loop early (a for loop: no cond input), else only a bound."""
    m = env.get(owner.inputs[0]) if owner.inputs and owner.inputs[0] else None
    value = scalar(m)
    count = int(value) if value is not None else None
    if count is None and m is not None and m.sym is not None and len(m.sym) == 1 and is_symbolic(m.sym[0]) \
            and not has_unknown(m.sym[0]):
        count = m.sym[0]
    if count is None:
        return TensorType("int64", ())
    for_loop = len(owner.inputs) < 2 or not owner.inputs[1]
    return TensorType("int64", (), bounds=(0, normalize_dim(count - 1), for_loop))


def scan_parts(node: ModelNode) -> tuple[bool, list, int, int]:
    """(Scan-8, the state and scan inputs, num_scan_inputs, the number of states).  Scan-8 has
    sequence_lens first and a batch axis (axis 0) on every tensor; a scan input's scan axis is 1."""
    v8 = node.opset is not None and node.opset < 9
    ins = node.inputs[1:] if v8 else node.inputs
    m = int(node.attrs.get("num_scan_inputs", 0) or 0)
    return v8, ins, m, len(ins) - m


def scan_inputs(owner: ModelNode, env: dict, exact: bool) -> list:
    v8, ins, _m, states = scan_parts(owner)
    names = owner.branch_inputs.get("body", [])
    out: list = [generalized(without(env.get(x), (0,)) if v8 else env.get(x), n, exact)
                 for x, n in zip(ins[:states], names)]
    axes = list(owner.attrs.get("scan_input_axes") or ())
    for k, x in enumerate(ins[states:]):
        axis = 1 if v8 else (int(axes[k]) if k < len(axes) else 0)
        out.append(without(env.get(x), (0, axis) if v8 else (axis,)))
    return out


def map_inputs(owner: ModelNode, env: dict, exact: bool) -> list:
    """SequenceMap's body inputs: each sequence's element (what every element is), each tensor as it is."""
    out = []
    for x in owner.inputs:
        t = env.get(x) if x else None
        out.append(t.elem if isinstance(t, SequenceType) else t if t is not None else TensorType(None, None))
    return out


BINDERS: dict[str, Callable[[ModelNode, dict, bool], list]] = {"Loop": loop_inputs, "Scan": scan_inputs,
                                                               "SequenceMap": map_inputs}

__all__ = ["BINDERS", "scalar", "scan_parts", "loop_inputs", "scan_inputs", "map_inputs"]
