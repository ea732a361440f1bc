"""Block reuse, node by node: a node's whole effect on the pass, remembered and replayed.

A decoder is one block repeated: layer ``i + 1`` reads the very type objects layer ``i`` made
(solve results are shared, and types are never changed once built), so from the second or third
layer on, every node asks what a node of the layer before asked.  The query memo
(``ForwardPass._solved``) already answers such a node without the solver; this goes one step
further and skips everything the pass does around the answer (binding, settling, the report's
fields, the outputs' types), which is the larger part of a node's time once its query is known.

What is remembered, and when (``Replays.record``): a node checked in full that is valid with no
condition, whose outputs make no unknown of their own, whose inputs are all known to the pass and
none of unknown rank, that has no body, no output the model declares for the fallback, and no
portability warnings to ask for.  Such a node learns nothing (no condition, so no fact) and
names nothing of its own, so its effect is a function of

* its spec, its opset, its output count and its attributes (``attrs_key``);
* the identity of each input's type (held by the record, so that no id is reused);
* the state of the facts that settle the dims (``Facts.generation``, new at every change).

A later node with the same key is given the same effect with its own names (``replay``):
its report (the inputs' tensors and where they came from are its own) and its outputs' types and
origins, each declaration then compared as the full check compares it.  Reuse must not change an
answer: ``tests/test_query_memo.py`` checks every corpus model, and decoders stacked from the
exports, with reuse on and off (``REPLAY``), and the reports must be equal.
"""
from __future__ import annotations

import os
from dataclasses import fields
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..frontends.graph import ModelNode
from ..solver.cache import MAX_PASSED
from ..types import TensorType
from .declarations import check_declaration
from .node import source_label
from .reports import NodeReport

# reuse on or off, for the whole process: SHAPECHECK_REUSE=0 turns off this and the query memo
# (``forward.MEMO``), so that the whole suite can be run without them; tests switch each one
REUSE = os.environ.get("SHAPECHECK_REUSE", "1") != "0"
REPLAY = REUSE   # False: every node is checked in full


class Replay(NamedTuple):
    """What a node did to the pass, in the words of its first node."""

    inputs: tuple         # the input types (the key holds their ids: kept alive here)
    slots: tuple          # ``node.input_slots``: source key, spec input, position in node.inputs
    spec: str
    report: NodeReport    # the first node's report: every field but the names is the same
    outputs: tuple        # per output position: (type, origin), None where the node gives it nothing
    float_sizes: bool     # whether the outputs hold sizes in float (``node.holds_sizes_in_float``)


class Replays:
    """The remembered effects of one pass, by key (see the module's text)."""

    def __init__(self, on: bool | None = None):
        self.on = REPLAY if on is None else on
        self.done: dict[tuple, Replay] = {}
        # (spec, opset, attributes' key) -> a number that stands for them in every key below: the
        # attributes' key is a nested tuple, whose hash Python computes anew at every lookup
        self._heads: dict[tuple, int] = {}
        # what ``replayed`` reads of a node before its inputs, by (op, domain, opset, version, id of its
        # attributes or 0, its output count): that number, with the attributes held so that the id
        # stays their own; or None, for a node the short way never takes (no spec, attributes unhashable)
        self.fronts: dict[tuple, tuple | None] = {}

    def head(self, spec, node: ModelNode, items: Any) -> int:
        """The number that stands for the node's spec, opset and attributes (``items``) in its key."""
        key = (spec.name, node.opset, items)
        got = self._heads.get(key)
        if got is None:
            got = self._heads[key] = len(self._heads)
        return got

    def find(self, spec, node: ModelNode, items: Any, env: dict, generation: int,
             head: int | None = None) -> tuple[tuple | None, Replay | None]:
        """(the node's key and its input types, or None when it cannot be replayed: an input the pass
        does not know), and what was remembered under that key, if anything (``head``: the node's
        ``Replays.head``, when known)."""
        if not self.on or items is None:
            return None, None
        try:
            key = key_of(self.head(spec, node, items) if head is None else head, generation, node, env)
        except KeyError:
            return None, None
        return (key, tuple(env[t] if t else 0 for t in node.inputs)), self.done.get(key)

    def record(self, key: tuple[tuple, tuple] | None, slots: tuple, spec, report: NodeReport, outputs: tuple,
               float_sizes: bool) -> None:
        """Remember the effect a node just had (the caller tells it may be replayed): ``outputs``,
        per output position, the (type, origin) the pass gave it before its declaration was compared."""
        if key is not None:
            self.done[key[0]] = Replay(key[1], slots, spec.name, report, outputs, float_sizes)


def key_of(head: int, generation: int, node: ModelNode, env: dict) -> tuple:
    """A node's key: ``Replays.head``'s number, the facts' generation, its output count (which outputs it
    names, where it omits one), the identity of each input type (0 for an omitted optional input);
    KeyError where the pass does not know an input.  Asked of every node of a decoder: one list of ids."""
    ins, outs = node.inputs, node.outputs
    made = len(outs) if "" not in outs else tuple(map(bool, outs))
    if "" in ins:
        return (head, generation, made, *[id(env[t]) if t else 0 for t in ins])
    return (head, generation, made, *[id(env[t]) for t in ins])


class Sources(Mapping):
    """A replayed node's ``NodeReport.input_types`` (source key -> (tensor, type, where it came from)),
    made when it is read: its types are the remembered ones (the key holds their identity), its
    tensors the node's own, and where each came from is read from the pass's origins, which name
    a tensor's origin once, when it is made (a node's inputs were all made before it)."""

    __slots__ = ("_names", "_done", "_origin")

    def __init__(self, names: list[str], done: Replay, origin: dict[str, str]):
        self._names, self._done, self._origin = names, done, origin

    def _items(self) -> dict:
        names, origin, first = self._names, self._origin, self._done.report.input_types
        return {key: (names[p], first[key][1], source_label(origin.get(names[p], "unknown")))
                for key, _n, p in self._done.slots}

    def __getitem__(self, key: str):
        return self._items()[key]

    def __iter__(self):
        return (key for key, _n, _p in self._done.slots)

    def __len__(self) -> int:
        return len(self._done.slots)

    def items(self):
        return self._items().items()


class Replayed(NodeReport):
    """A replayed node's ``NodeReport``, read from its node and the first node's report when asked:
    a decoder's replayed nodes are most of its nodes, and most reports are never read field by field.
    Every field reads as a ``NodeReport``'s would; ``output_types`` may be replaced (settled at the
    end of the pass), the rest is the first node's, which is never changed once made."""

    __slots__ = ("_node", "_done", "_origin", "_outputs")

    def __init__(self, node: ModelNode, done: Replay, origin: dict[str, str]):  # noqa: D107 - no NodeReport init
        self._node, self._done, self._origin, self._outputs = node, done, origin, None
        first = done.report   # what the end of the pass reads of every node, set here (NodeReport's slots)
        self.status, self.runtime_when, self.reason = first.status, first.runtime_when, ""

    name = property(lambda self: self._node.name)
    op_type = property(lambda self: self._node.op_type)
    domain = property(lambda self: self._node.domain)
    opset = property(lambda self: self._node.opset)
    location = property(lambda self: self._node.location)
    spec = property(lambda self: self._done.spec)
    conditions = property(lambda self: self._done.report.conditions)
    violations = property(lambda self: self._done.report.violations)
    warnings = property(lambda self: self._done.report.warnings)
    runtime_checks = property(lambda self: self._done.report.runtime_checks)
    input_types = property(lambda self: Sources(self._node.inputs, self._done, self._origin))

    @property
    def output_types(self) -> dict[str, TensorType]:
        return self._done.report.output_types if self._outputs is None else self._outputs

    @output_types.setter
    def output_types(self, value: dict[str, TensorType]) -> None:
        self._outputs = value

    def __eq__(self, other: object) -> bool:   # as a NodeReport's: field by field (its own compares classes)
        return isinstance(other, NodeReport) and all(getattr(self, f) == getattr(other, f) for f in FIELDS)

    __hash__ = None   # type: ignore[assignment]  # as a NodeReport's

    def plain(self) -> NodeReport:
        """This report as a ``NodeReport`` of its own fields (what is copied, replaced or pickled)."""
        return NodeReport(*self._fields())

    def __reduce_ex__(self, protocol):   # copied or pickled (a worker's report) as a plain NodeReport
        return NodeReport, self._fields()

    def _fields(self) -> tuple:
        return tuple(dict(self.input_types.items()) if f == "input_types" else getattr(self, f) for f in FIELDS)


FIELDS = tuple(f.name for f in fields(NodeReport))


def replay(fp: Any, node: ModelNode, done: Replay) -> None:
    """Give ``node`` the effect ``done`` remembers, in ``fp`` (a ``forward.ForwardPass``)."""
    origin = fp.origin
    if fp.replayed_reports:
        fp.report.nodes.append(Replayed(node, done, origin))
    if done.float_sizes:
        fp.float_sizes.append(node.name)
    env, declared = fp.env, fp.graph.declared
    for tname, out in zip(node.outputs, done.outputs):
        if tname and out is not None:
            env[tname], origin[tname] = out
            if tname in declared:
                check_declaration(fp.graph, fp.report, env, node, tname, fp.assume, fp.names, fp.facts.implies)


def replayed(fp: Any, node: ModelNode) -> bool:
    """Whether ``node`` (of any graph) was given the effect a node before it had (``replay_run``)."""
    return replay_run(fp, (node,), 0, 1, scoped=True) == 1


def _front(fp: Any, node: ModelNode, front_key: tuple) -> tuple | None | bool:
    """What ``replayed`` keeps of a node's op and attributes (see ``Replays.fronts``); False when its
    op is not resolved yet (the long way resolves it)."""
    replays = fp.replays
    got = fp.resolved.get(front_key[:4])
    if got is None:
        return False
    items = fp.attrs_items(node.attrs) if got[0] is not None and got[1] is None else None
    front = replays.fronts[front_key] = None if items is None else (got[0], items, replays.head(got[0], node, items),
                                                                     node.attrs)
    return front


def interned(sources: dict[str, TensorType]) -> dict[str, TensorType]:
    """``sources`` with equal types one object: a decoder's layers each have their own Constant
    nodes of the same shape values, and ``ForwardPass._solved`` remembers queries by identity.
    Weights (values past ``MAX_PASSED`` elements) keep their own objects: their bytes are not read."""
    seen: dict[tuple, TensorType] = {}
    by_id: dict[int, TensorType] = {}   # a type the reader already shares (a layer's Constants) is read once
    out = {}
    for name, t in sources.items():
        if type(t) is TensorType and (t.value is None or t.value.size <= MAX_PASSED):
            one = by_id.get(id(t))
            if one is None:
                one = by_id[id(t)] = seen.setdefault(t.signature(), t)
            t = one
        out[name] = t
    return out


__all__ = ["REPLAY", "REUSE", "Replay", "Replayed", "Replays", "Sources", "interned", "replay", "replayed"]


def replay_run(fp: Any, nodes: Any, i: int, stop: int, every: int = 0, scoped: bool = False) -> int:
    """Give nodes ``i``, ``i + 1``, ... (before ``stop``) of ``nodes`` the effects nodes before them had, in
    ``fp`` (a ``forward.ForwardPass``), while each is a node of the main graph (``scoped``: of any graph)
    that the frontend found nothing wrong with, whose spec is known (resolved, without error) and whose
    key (``key_of``) is remembered, and whose index is no multiple of ``every`` (where the caller reports
    its progress; 0: none is); the index of the first node that is not (``i`` when none was).
    Every other node takes the long way, which may record it.  A decoder's nodes are nearly all given
    their effects here, one loop for a run of them: a call per node cost a tenth of the pass."""
    replays = fp.replays
    if fp.invalid or not replays.on:
        return i
    fronts, remembered, env, facts = replays.fronts, replays.done, fp.env, fp.facts
    while i < stop:
        node = nodes[i]
        if node.findings or (node.scope and not scoped) or (every and not i % every):
            break
        attrs = node.attrs
        front_key = (node.op_type, node.domain, node.opset, node.version, id(attrs) if attrs else 0)
        front = fronts.get(front_key, False)
        if front is False:
            front = _front(fp, node, front_key)
        if not front:
            break
        try:
            done = remembered.get(key_of(front[2], facts.generation, node, env))
        except KeyError:
            break
        if done is None:
            break
        fp.cover(node.op_type, "spec")
        replay(fp, node, done)
        i += 1
    return i
