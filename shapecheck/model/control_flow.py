"""Control flow: the one place that knows ``If``, ``Loop``, ``Scan`` and ``SequenceMap``'s body.

A frontend flattens a subgraph's nodes into the node list before the node that owns it, with
a *scope* (``If_0/then_branch``); the owner's ``branches`` maps each subgraph attribute to the
subgraph's output names.  The forward pass has already inferred those outputs when it reaches
the owner, and this module turns them into the owner's outputs:

* ``If``: with a known condition, the branch that runs (the other one is dead: its nodes are
  skipped, see ``is_dead``); otherwise what both branches agree on, dim by dim.
* ``Loop``: the body is checked with each loop-carried input bound to the initial value's type
  (``bind``).  If the body hands every carried value back with that type (``is_fixpoint``),
  that type holds in every iteration.  If not, the forward pass checks the body again with
  each carried input *generalized* -- the initial dtype and rank, a fresh dim per axis: a dim
  the body hands back unchanged is the same in every iteration, so it is the initial value's;
  any other dim of the final value is unknown.  A carried sequence the body grows by a fixed step
  (TorchScript's list filled in a ``for`` loop) is proved by induction first (``induction``):
  ``seq(E, L0 + trip*k)``.  Either way the result is sound for every iteration.  A scan output
  stacks one body output per iteration: its leading dim is the trip count -- ``M`` when the
  loop has no condition and ``M`` is known, else a run-time size ``trip`` (``0 <= trip <= M``).
* ``Scan``: states as for ``Loop``; each scan input is bound as one slice (its scan axis
  removed); a scan output stacks along ``scan_output_axes`` as many slices as the first scan
  input has along its scan axis.  Scan-8 has ``sequence_lens`` first and a batch axis on
  every tensor (its scan axis is 1): the body sees neither, the outputs get the batch back.
* ``SequenceMap``: the body is checked once with each sequence input bound to what every element
  is and each tensor input as it is; each output is a sequence of the body's output, as long as
  the first input (a dim the elements do not share is unknown outside).  Its spec checks the node.

How types join and carry across regions is ``regions``'s; agreement never assumes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable


from ..frontends import ModelGraph, ModelNode
from ..registry import ONNX_DOMAIN
from ..notation import Rel
from ..dims import is_symbolic, is_unknown, normalize_dim, runtime_dim, unknown_dim
from ..dims.rounding import provably_nonnegative
from ..containers import SequenceType
from ..types import TensorType
from .induction import grown, hypotheses, step
from .provenance import reads_any
from .body_inputs import BINDERS, scalar, scan_parts
from .region_fit import malformed
from .regions import carried, dims_of, merge, outside, same_value_type, stacked, without

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

Outputs = dict[str, tuple[TensorType, str]]


def is_dead(graph: ModelGraph, scope: str, env: dict) -> bool:
    """True when ``scope`` lies in an If branch that the known condition value rules out."""
    while scope:
        owner, attr = graph.regions.get(scope, (None, ""))
        never_runs = _NEVER_RUNS.get(owner.op_type) if owner is not None and owner.domain == ONNX_DOMAIN else None
        if never_runs is not None and never_runs(owner, attr, env):
            return True
        scope = scope.rpartition("/")[0]
    return False


def _if_branch_never_runs(owner: ModelNode, attr: str, env: dict) -> bool:
    """An If branch whose condition is a known constant of the other value."""
    value = scalar(env.get(owner.inputs[0])) if owner.inputs else None
    return value is not None and attr in ("then_branch", "else_branch") and bool(value) != (attr == "then_branch")


def unconditional(graph: ModelGraph, node: ModelNode, rel: Any, env: dict, facts: Any) -> bool:
    """Whether what ``node`` needs (``rel``) is needed wherever the model runs: the node is in the main
    graph, or every region around it runs at least once whenever its owner does (``_RUNS_ONCE``: a
    Loop body) and ``rel`` is over the input dims alone, which every iteration sees alike (a
    loop-carried size may differ from one iteration to the next)."""
    scope = node.scope
    if not scope:
        return True
    if not hasattr(rel, "free_symbols") or any(is_unknown(s) for s in rel.free_symbols):
        return False
    while scope:
        owner, attr = graph.regions.get(scope, (None, ""))
        runs = _RUNS_ONCE.get(owner.op_type) if owner is not None and owner.domain == ONNX_DOMAIN else None
        if runs is None or not runs(owner, attr, env, facts):
            return False
        scope = owner.scope   # the region around the owner itself ("" in the main graph)
    return True


def _loop_body_runs(owner: ModelNode, attr: str, env: dict, facts: Any) -> bool:
    """A Loop body runs at least once: a trip count ``facts`` prove at least 1, no condition or a true one."""
    if attr != "body" or not owner.inputs or not owner.inputs[0]:
        return False
    m, cond = env.get(owner.inputs[0]), owner.inputs[1] if len(owner.inputs) > 1 else ""
    first = scalar(env.get(cond)) if cond else True
    if m is None or first is None or not bool(first):
        return False
    if (count := scalar(m)) is not None:
        return int(count) >= 1
    return m.sym is not None and len(m.sym) == 1 and is_symbolic(m.sym[0]) and facts.implies(Rel(">=", m.sym[0], 1))


def binds(graph: ModelGraph, scope: str) -> bool:
    """True when ``scope`` is a subgraph whose inputs its owner binds (a Loop or Scan body that
    fits it: a body that does not, ``malformed``, keeps its declared inputs)."""
    owner, _attr = graph.regions.get(scope, (None, ""))
    return (owner is not None and owner.domain == ONNX_DOMAIN and owner.op_type in BINDERS
            and malformed(owner) is None)


def bind(graph: ModelGraph, scope: str, env: dict[str, TensorType], exact: bool) -> dict[str, TensorType]:
    """Types for the inputs of the body ``scope``: the owner's inputs as they enter the first
    iteration (``exact``), or generalized to any iteration (fresh dims, see ``regions.generalized``)."""
    owner, attr = graph.regions[scope]
    names = owner.branch_inputs.get(attr, [])
    return {n: t for n, t in zip(names, BINDERS[owner.op_type](owner, env, exact)) if t is not None}


def is_fixpoint(owner: ModelNode, env: dict[str, TensorType]) -> bool:
    """True when the body hands every carried value back with the type it was bound with: then
    the first iteration's types hold in every iteration."""
    for a, b in _CARRIED[owner.op_type](owner):
        x, y = env.get(a), env.get(b)
        if x is None or y is None or not same_value_type(x, y):
            return False
    return True


def induction(graph: ModelGraph, scope: str, env: dict) -> list[dict[str, SequenceType]]:
    """After the first iteration's check of the body ``scope``: the carried sequences to check again as
    ``seq(E, l)``, by body input, exact first, then looser (see ``induction``)."""
    owner = graph.regions[scope][0]
    return hypotheses(_CARRIED[owner.op_type](owner), bind(graph, scope, env, True), env)


def induction_holds(owner: ModelNode, env: dict, guesses: dict) -> bool:
    """Whether the body, checked with ``guesses`` bound, gave each sequence back grown by a fixed step."""
    return all(step(env.get(a), env.get(b)) is not None for a, b in _CARRIED[owner.op_type](owner) if a in guesses)


def region_outputs(node: ModelNode, env: dict[str, TensorType], graph: ModelGraph | None = None) -> Outputs | None:
    """The outputs of a control-flow node from its subgraphs' inferred outputs, or None if it is not one;
    ``graph``, the model's, tells which body outputs the iterations cannot change (a Loop's condition)."""
    rule = _RULES.get(node.op_type) if node.domain == ONNX_DOMAIN and node.branches else None
    return None if rule is None else rule(node, env, graph)


def _if(node: ModelNode, env: dict, _graph: Any = None) -> Outputs | None:
    then, other = node.branches.get("then_branch", []), node.branches.get("else_branch", [])
    if len(then) != len(node.outputs) or len(other) != len(node.outputs):
        return None
    cond = scalar(env.get(node.inputs[0])) if node.inputs else None
    if cond is not None:
        branch = then if bool(cond) else other
        label = f"If {'then' if bool(cond) else 'else'}_branch (condition is constant)"
        return {o: (env.get(b) or TensorType(None, None), label) for o, b in zip(node.outputs, branch) if o}
    return {o: (merge(env.get(t), env.get(e)), "If (both branches)")
            for o, t, e in zip(node.outputs, then, other) if o}


def _body_dims(node: ModelNode, env: dict) -> set:
    """The symbols of the body inputs' dims, a bound sequence's length included (an induction's ``l``
    differs from one iteration to the next: outside the loop it is unknown)."""
    out: set = set()
    for name in node.branch_inputs.get("body", []):
        t = env.get(name)
        out |= dims_of(t)
        if isinstance(t, SequenceType) and is_symbolic(t.length):
            out |= t.length.free_symbols
    return out


def _size(t: TensorType | None) -> Any:
    """A scalar's value as a dim: a constant, or a symbolic size (``M`` from ``Shape(x)[0]``)."""
    if t is not None and t.sym is not None and len(t.sym) == 1:
        return t.sym[0]
    m = scalar(t)
    return int(m) if m is not None else None


def _trip_count(node: ModelNode, env: dict, body: list, graph: ModelGraph | None) -> Any:
    """How many times a Loop runs: ``M`` when nothing can stop it earlier (no condition, or one that is true
    and that no iteration changes: the body hands back its condition input, or a value computed from
    outside the body alone -- torch's ``for i in range(n)`` returns Identity of the outer constant true),
    else a run-time size ``trip`` with ``0 <= trip <= M``."""
    m = _size(env.get(node.inputs[0])) if node.inputs and node.inputs[0] else None
    cond = node.inputs[1] if len(node.inputs) > 1 and node.inputs[1] else None
    if cond is not None:
        initially = scalar(env.get(cond))
        if initially is None or not bool(initially) or not _unchanged(node, body[0], env, graph):
            return runtime_dim("trip", m if type(m) is int else None)
    if m is None:
        return runtime_dim("trip", None)
    return m if type(m) is int or provably_nonnegative(m) else normalize_dim(sympy.Max(0, m))


def _unchanged(node: ModelNode, out: str, env: dict, graph: ModelGraph | None) -> bool:
    """Whether the body output ``out`` is the loop condition in every iteration: the condition input handed
    back, or a true value that reads none of the body's inputs (found through the producers in ``graph``)."""
    inputs = node.branch_inputs.get("body", [])
    if len(inputs) > 1 and out == inputs[1]:
        return True
    value = scalar(env.get(out))
    if graph is None or value is None or not bool(value):
        return False
    return not reads_any(graph, out, set(inputs))


def _loop(node: ModelNode, env: dict, graph: ModelGraph | None = None) -> Outputs | None:
    body = node.branches.get("body", [])
    initial = node.inputs[2:]
    n_carried = len(initial)
    names = node.branch_inputs.get("body", [])[2:]
    if len(body) != 1 + len(node.outputs) or len(node.outputs) < n_carried:
        return None
    trip = _trip_count(node, env, body, graph)
    invariant: dict = {}
    inside = _body_dims(node, env)
    finals = [_carried(env.get(initial[j]), env.get(names[j]) if j < len(names) else None, env.get(body[1 + j]),
                       invariant, inside, trip) for j in range(n_carried)]
    out: Outputs = {}
    for j, name in enumerate(node.outputs):
        if name and j < n_carried:
            out[name] = (finals[j], "Loop (initial value or body output)")
        elif name:
            out[name] = (stacked(outside(env.get(body[1 + j]), invariant, inside), trip),
                         "Loop (one body output per iteration)")
    return out


def _carried(initial: Any, bound: Any, final: Any, invariant: dict, inside: set, trip: Any) -> Any:
    """A carried value after ``trip`` iterations: a sequence grown by a fixed step (``induction.grown``),
    else what ``regions.carried`` keeps."""
    return grown(initial, bound, final, trip) or carried(initial, bound, final, invariant, inside)


def _scan(node: ModelNode, env: dict, _graph: Any = None) -> Outputs | None:
    body = node.branches.get("body", [])
    v8, ins, m, states = scan_parts(node)
    if m < 1 or states < 0 or len(body) != len(node.outputs):
        return None
    first = env.get(ins[states])
    in_axis = 1 if v8 else int((node.attrs.get("scan_input_axes") or (0,))[0])
    seq: Any = unknown_dim("scan length")
    batch: Any = unknown_dim("batch")   # Scan-8's
    if first is not None and first.shape is not None and -len(first.shape) <= in_axis < len(first.shape):
        seq, batch = first.shape[in_axis], first.shape[0]
    out_axes = [] if v8 else list(node.attrs.get("scan_output_axes") or ())
    names = node.branch_inputs.get("body", [])
    invariant: dict = {}
    inside = _body_dims(node, env) - set().union(*(dims_of(env.get(n)) for n in names[states:]))
    finals = [_carried(without(env.get(ins[j]), (0,)) if v8 else env.get(ins[j]),
                       env.get(names[j]) if j < len(names) else None, env.get(body[j]), invariant, inside, seq)
              for j in range(states)]
    out: Outputs = {}
    for j, name in enumerate(node.outputs):
        if name and j < states:
            out[name] = (stacked(finals[j], batch) if v8 else finals[j], "Scan (initial state or body output)")
        elif name:
            k = j - states
            axis = int(out_axes[k]) if k < len(out_axes) else 0
            t = stacked(outside(env.get(body[j]), invariant, inside), seq, axis)
            out[name] = (stacked(t, batch) if v8 else t, "Scan (one body output per slice)")
    return out


def _map(node: ModelNode, env: dict, _graph: Any = None) -> Outputs | None:
    body = node.branches.get("body", [])
    if len(body) != len(node.outputs) or not node.inputs:
        return None
    first = env.get(node.inputs[0])
    length = first.length if isinstance(first, SequenceType) else None
    # a dim the elements do not share (an unknown of the element's type) differs from element to element
    varying = set().union(*(_unknowns(env.get(x).elem) for x in node.inputs if isinstance(env.get(x), SequenceType)))
    return {o: (SequenceType(outside(env.get(b), {}, varying), length), "SequenceMap (one body output per element)")
            for o, b in zip(node.outputs, body) if o and env.get(b) is not None}


def _unknowns(t) -> set:
    return {s for s in dims_of(t) if is_unknown(s)}


_RULES: dict[str, Callable[[ModelNode, dict, Any], Outputs | None]] = {"If": _if, "Loop": _loop, "Scan": _scan,
                                                                   "SequenceMap": _map}


def _loop_carried(owner: ModelNode) -> list[tuple[str, str]]:
    """(body input, body output) of each loop-carried value: Loop's inputs 2.. and outputs 1.."""
    names, outs = owner.branch_inputs.get("body", []), owner.branches.get("body", [])
    return list(zip(names[2:], outs[1:1 + len(owner.inputs[2:])]))


def _scan_carried(owner: ModelNode) -> list[tuple[str, str]]:
    """(body input, body output) of each Scan state: the first inputs and outputs."""
    names, outs = owner.branch_inputs.get("body", []), owner.branches.get("body", [])
    return list(zip(names, outs[:scan_parts(owner)[3]]))


_CARRIED: dict[str, Callable[[ModelNode], list]] = {"Loop": _loop_carried, "Scan": _scan_carried,
                                                     "SequenceMap": lambda owner: []}
# op -> (owner, subgraph attribute, types so far) -> True when that subgraph never runs
_NEVER_RUNS: dict[str, Callable[[ModelNode, str, dict], bool]] = {"If": _if_branch_never_runs}
_RUNS_ONCE: dict[str, Callable[[ModelNode, str, dict, Any], bool]] = {"Loop": _loop_body_runs}
