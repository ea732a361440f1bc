"""Whether a control-flow node's subgraphs fit it: a state variable with no body output to hand it
back, num_scan_inputs out of range, a body with fewer inputs than its owner passes.  ``malformed``
says why, in one sentence a finding can carry; ``control_flow`` only reads bodies that fit.

``misfed`` checks what such a node reads itself: an If's condition and a Loop's trip count and
condition are one element each, of bool (int64 for the trip count).  onnxruntime 1.32 refuses a
float condition when it loads the model and a condition of two elements when it runs the If
("If nodes condition input must have exactly one element"; ``tests/test_region_inputs.py``).
``fit_finding`` is either problem as a finding's parts.
"""
from __future__ import annotations

import math
from typing import Callable

from ..frontends import ModelNode
from ..registry import ONNX_DOMAIN

__all__ = ["fit_finding", "malformed", "misfed"]


def malformed(node: ModelNode) -> str | None:
    """Why a control-flow node's subgraphs do not fit it (a state variable with no body output to
    hand it back, num_scan_inputs out of range), or None; None for any other node.

    >>> from shapecheck.frontends.graph import ModelNode
    >>> n = ModelNode("s", "Scan", "ai.onnx", 21, ["a", "b", "x"], ["y"], {"num_scan_inputs": 1})
    >>> n.branches, n.branch_inputs = {"body": ["c"]}, {"body": ["p", "q", "r"]}
    >>> malformed(n)
    'Scan carries 2 loop state variables, but its body has 1 output (each state variable needs one)'
    """
    rule = _STRUCTURE.get(node.op_type) if node.domain == ONNX_DOMAIN and node.branches else None
    return None if rule is None else rule(node)


def _scan_structure(node: ModelNode) -> str | None:
    lead = 1 if node.opset is not None and node.opset < 9 else 0   # Scan-8's sequence_lens
    inputs, outs = len(node.inputs) - lead, node.branches.get("body", [])
    m = node.attrs.get("num_scan_inputs")
    if not isinstance(m, int) or not 1 <= m <= inputs:
        return (f"Scan needs num_scan_inputs between 1 and its {inputs} state and scan inputs; "
                f"it has {'none' if m is None else m}")
    states, body_inputs = inputs - m, node.branch_inputs.get("body", [])
    if states > len(outs):
        return (f"Scan carries {states} loop state variables, but its body has {len(outs)} output"
                f"{'' if len(outs) == 1 else 's'} (each state variable needs one)")
    if len(body_inputs) != inputs:
        return f"Scan passes {inputs} inputs ({states} states, {m} scan inputs) to a body that has {len(body_inputs)}"
    if len(outs) != len(node.outputs):
        return f"Scan has {len(node.outputs)} outputs, its body {len(outs)}"
    return None


def _loop_structure(node: ModelNode) -> str | None:
    carried, outs = len(node.inputs[2:]), node.branches.get("body", [])
    body_inputs = node.branch_inputs.get("body", [])
    if len(body_inputs) != 2 + carried:
        return (f"Loop carries {carried} loop state variables, so its body needs {2 + carried} inputs "
                f"(iteration, condition, the states); it has {len(body_inputs)}")
    if len(outs) < 1 + carried:
        return f"Loop carries {carried} loop state variables, but its body has {len(outs)} outputs (needs {1 + carried} or more)"
    return None


def _map_structure(node: ModelNode) -> str | None:
    inputs, outs = node.branch_inputs.get("body", []), node.branches.get("body", [])
    if len(inputs) != len(node.inputs):
        return f"SequenceMap has {len(node.inputs)} inputs, its body {len(inputs)}"
    if len(outs) != len(node.outputs):
        return f"SequenceMap has {len(node.outputs)} outputs, its body {len(outs)}"
    return None


_STRUCTURE: dict[str, Callable[[ModelNode], str | None]] = {"Loop": _loop_structure, "Scan": _scan_structure,
                                                            "SequenceMap": _map_structure}


# what a control-flow node reads itself: (input position, its name, its element type)
_OWN_INPUTS: dict[str, tuple[tuple[int, str, str], ...]] = {"If": ((0, "cond", "bool"),),
                                                             "Loop": ((0, "M", "int64"), (1, "cond", "bool"))}


def misfed(node: ModelNode, env: dict) -> str | None:
    """Why an input a control-flow node reads itself does not fit it (see the module's text), or None:
    only what the types show (a condition of ``N`` elements is left to the runtime).

    >>> from shapecheck.frontends.graph import ModelNode
    >>> from shapecheck.types import parse_type
    >>> n = ModelNode("if", "If", "ai.onnx", 18, ["c"], ["y"], {})
    >>> misfed(n, {"c": parse_type("float[]")}), misfed(n, {"c": parse_type("bool[2]")}), misfed(n, {"c": parse_type("bool[1,1]")})
    ('If reads its cond as bool; it is float', 'If reads its cond as one element; it has 2 (bool[2])', None)
    """
    wanted = _OWN_INPUTS.get(node.op_type) if node.domain == ONNX_DOMAIN else None
    for k, name, dtype in wanted or ():
        t = env.get(node.inputs[k]) if k < len(node.inputs) and node.inputs[k] else None
        if t is None or not hasattr(t, "dtype"):
            continue
        if t.dtype is not None and t.dtype != dtype:
            return f"{node.op_type} reads its {name} as {dtype}; it is {t.dtype}"
        shape = getattr(t, "shape", None)
        if shape is not None and all(type(d) is int for d in shape) and math.prod(shape) != 1:
            return f"{node.op_type} reads its {name} as one element; it has {math.prod(shape)} ({t})"
    return None


def fit_finding(node: ModelNode, env: dict) -> tuple[str, str, dict, str] | None:
    """(rule, message, values, fix) of a control-flow node whose bodies or own inputs do not fit it, or None."""
    problem = malformed(node)
    if problem is not None:
        return (f"{node.op_type}'s body fits the node", problem, {},
                f"give the {node.op_type} body one input and one output per value it passes")
    problem = misfed(node, env)
    if problem is not None:
        wanted = ", ".join(f"{name} one {dtype}" for _k, name, dtype in _OWN_INPUTS[node.op_type])
        return f"{node.op_type}'s own inputs fit it", problem, {}, f"give the {node.op_type} {wanted}"
    return None
