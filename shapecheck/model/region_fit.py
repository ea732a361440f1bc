"""Whether a control-flow node's subgraphs fit it: a state variable with no body output to hand it
back, num_scan_inputs out of range, a body with fewer inputs than its owner passes.  ``malformed``
says why, in one sentence a finding can carry; ``control_flow`` only reads bodies that fit.
"""
from __future__ import annotations

from typing import Callable

from ..frontends import ModelNode
from ..registry import ONNX_DOMAIN

__all__ = ["malformed"]


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
