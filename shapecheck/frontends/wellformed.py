"""Is an ONNX graph a graph at all?  Checked before any inference, each problem naming its tensor.

onnx.checker, onnxruntime and OpenVINO refuse every one of these; the forward pass would
otherwise run on them and report the model OK:

* ``G1`` single static assignment: a tensor is produced once (by one node, or as a graph
  input or initializer);
* ``G2`` topological order: a node reads only tensors produced before it; a cycle is named;
* ``G3`` every input is defined in scope (a subgraph sees the tensors of its outer graphs), and so
  is every graph output;
* ``G4`` an initializer's data (raw bytes or typed values) fits its dims and type;
* ``G5`` dims are not negative (a negative ``dim_value`` in a declared type is read as unknown,
  with a note);
* ``G6`` a graph input has a type with an element type, an initializer a data type;
* ``G7`` an initializer that gives a graph input its default has the input's declared type
  (element type, rank, concrete dims).

An ``opset_import`` above what the installed onnx knows is a note (a warning), not a finding.

>>> from onnx import helper, TensorProto as T
>>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["x"])], "g",
...     [helper.make_tensor_value_info("x", T.FLOAT, [2])], [helper.make_tensor_value_info("x", T.FLOAT, [2])])
>>> [f.constraint for f in check_wellformed(helper.make_model(g)).violations]
['G1']
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from ..findings import DEFINED, ELEMENT_TYPE, INITIALIZER_INPUT, NEGATIVE_DIM, SSA, TENSOR_DATA
from ..result import Finding
from ..types import ONNX_CODES
from .onnx_fields import GraphFields, NodeFields, graph_fields
from .wellformed_order import label as _label, order_findings

# bytes per element of raw_data, by ONNX data type code (strings have no raw_data), as the
# schema fixes them; written out so that reading a model imports no numpy (a test checks the
# table against numpy's item sizes)
ITEMSIZE = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8, 15: 16, 16: 2,
            17: 1, 18: 1, 19: 1, 20: 1, 24: 1}
# bits per element of the packed types (uint4, int4, float4e2m1, uint2, int2, float6e2m3, float6e3m2):
# their raw_data holds ceil(count * bits / 8) bytes
PACKED_BITS = {21: 4, 22: 4, 23: 4, 25: 2, 26: 2, 27: 6, 28: 6}
# which typed field holds each data type's values, and how many entries one element takes
_MAX_EACH = 10
_TYPED = {1: ("float_data", 1), 10: ("int32_data", 1), 16: ("int32_data", 1), 9: ("int32_data", 1),
          2: ("int32_data", 1), 3: ("int32_data", 1), 4: ("int32_data", 1), 5: ("int32_data", 1),
          6: ("int32_data", 1), 7: ("int64_data", 1), 8: ("string_data", 1), 11: ("double_data", 1),
          12: ("uint64_data", 1), 13: ("uint64_data", 1), 14: ("float_data", 2), 15: ("double_data", 2)}


@dataclass
class Wellformed:
    """What is wrong with a graph (model-level findings) and what was read leniently (notes)."""

    violations: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict, repr=False)
    # the attribute bytes (``NodeFields.keys``) whose tensors were found sound: a decoder's layers repeat
    # their Constants
    sound: set[tuple] = field(default_factory=set, repr=False)

    def room(self, cid: str) -> bool:
        """Count one more ``cid`` problem; True while it is among the first ``_MAX_EACH`` (those are reported)."""
        self.counts[cid] = self.counts.get(cid, 0) + 1
        return self.counts[cid] <= _MAX_EACH


def check_wellformed(model, fields: GraphFields | None = None) -> Wellformed:
    """Every well-formedness problem of an ONNX ``ModelProto``, each naming its tensor (``fields``:
    its graph's nodes as ``onnx_fields.graph_fields`` read them, when the caller has)."""
    out = Wellformed()
    opset_notes(model, out)
    _graph(fields if fields is not None else graph_fields(model.graph), frozenset(), "graph", out)
    cap(out)
    return out


def opset_notes(model, out: Wellformed) -> None:
    """The note on an ai.onnx opset above what the installed onnx knows (asked only past
    ``KNOWN_TO_EVERY_ONNX``)."""
    for imp in model.opset_import:
        if imp.domain not in ("", "ai.onnx") or imp.version <= KNOWN_TO_EVERY_ONNX:
            continue
        if imp.version > (known := _known_opset()):
            import onnx
            out.notes.append(f"warning: the model imports opset {imp.version} of the ai.onnx domain, but the installed "
                             f"onnx {onnx.__version__} knows opsets up to {known}; nodes are checked with the newest "
                             "spec and schema each op has, which may not match what that opset means")


def sources_in_scope(g, where: str, out: Wellformed) -> set[str]:
    """The tensors ``g``'s inputs and initializers define, and "" (an omitted optional input reads
    nothing): what its first node may read.  Their problems (``G1`` among them, ``G4`` to ``G7``) are
    checked on the way, as ``check_wellformed`` checks them."""
    defined, _outs = _definitions(g, [], where, out)
    return {*defined, ""}


def nested(n: NodeFields, k: int, visible: set[str], where: str, out: Wellformed) -> None:
    """Node ``k``'s tensor attributes (``G4`` to ``G6``) and subgraphs (every check, each seeing the
    tensors ``visible`` before the node) checked, as ``check_wellformed`` checks them."""
    if n.tensors:
        _attribute_tensors(n, k, where, out)
    for name, j, sg in n.subgraphs:
        several = j is not None and sum(x[0] == name for x in n.subgraphs) > 1
        sub_where = f"{where}/{_label(n, k)}/{name}" + (f"[{j}]" if several else "")
        _graph(sg, frozenset(visible), sub_where, out)


# the newest opset that onnx 1.15, the oldest onnx shapecheck installs with, knows: a model's
# opset up to this one needs no question to the installed onnx (importing it costs 0.15 to 0.3 s)
KNOWN_TO_EVERY_ONNX = 20


@lru_cache(maxsize=1)   # the installed onnx does not change within a process
def _known_opset() -> int:
    """The newest ai.onnx opset the installed onnx knows (asking onnx costs a schema walk)."""
    import onnx
    return onnx.defs.onnx_opset_version()


def cap(out: Wellformed) -> None:
    """A broken export repeats one mistake thousands of times: the first ``_MAX_EACH`` of each are findings."""
    for cid, n in out.counts.items():
        if n > _MAX_EACH:
            out.notes.append(f"{n - _MAX_EACH} more {cid} problems like the first {_MAX_EACH} are not shown")


def _definitions(g, nodes: list[NodeFields], where: str, out: Wellformed) -> tuple[dict[str, str | int], list[list[str]]]:
    """What defines each tensor of ``g`` (``G1``: each once), its initializers' data (``G4``) and its
    dims (``G5``) checked on the way; and each node's outputs."""
    defined: dict[str, str | int] = {}   # tensor -> what defines it: "graph input", "initializer" or a node index

    def what(d: str | int) -> str:
        return d if isinstance(d, str) else f"node {_label(nodes[d], d)}"

    def twice(name: str, second: str | int) -> None:
        if out.room(SSA):
            out.violations.append(Finding(
                SSA, "a tensor is produced once (single static assignment)",
                f"tensor {name!r} in {where} is produced twice: by {what(defined[name])} and by {what(second)}",
                {"tensor": name}, f"rename one of the two outputs named {name!r}"))

    inputs = {}
    for i in g.input:
        if i.name in defined:
            twice(i.name, "graph input")
        defined.setdefault(i.name, "graph input")
        inputs.setdefault(i.name, i)
        if where == "graph" and (not i.type.HasField("tensor_type") and not i.type.WhichOneof("value")
                                 or i.type.HasField("tensor_type") and not i.type.tensor_type.elem_type):
            _untyped(f"graph input {i.name!r}", i.name, out)   # a subgraph's inputs may leave theirs to the owner
    for t in g.initializer:
        if defined.get(t.name, "graph input") != "graph input":   # an initializer may give an input its default
            twice(t.name, "initializer")
        defined.setdefault(t.name, "initializer")
        _tensor_data(t, lambda: f"initializer {t.name!r} of {where}", out)
        if t.name in inputs:
            _initializer_input(t, inputs[t.name], where, out)
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        _negative_dims(vi, where, out)
    outs = [n.output for n in nodes]
    made = [o for os_ in outs for o in os_ if o]
    if len(set(made)) == len(made) and defined.keys().isdisjoint(made):
        return defined, outs   # no tensor made twice (the common case, asked of the whole graph at once)
    for k, os_ in enumerate(outs):
        for o in os_:
            if o:
                if o in defined:
                    twice(o, k)
                else:
                    defined[o] = k
    return defined, outs


def _outer_names_made(nodes: list[NodeFields], outs: list[list[str]], outer: frozenset, where: str,
                      out: Wellformed) -> None:
    """``G1`` of a subgraph's node that makes a tensor the scope around it has made already (a Loop body's
    ReduceSum writing ``s``, the main graph's Shape output): onnxruntime refuses the model ("Graph must
    be in single static assignment (SSA) form, however 's' has been used as output names multiple times")."""
    for k, os_ in enumerate(outs):
        for o in os_:
            if o and o in outer and out.room(SSA):
                out.violations.append(Finding(
                    SSA, "a tensor is produced once (single static assignment)",
                    f"tensor {o!r} in {where} is produced by node {_label(nodes[k], k)}, and the scope around it "
                    "has a tensor of that name already (a subgraph may read it, not make it again)",
                    {"tensor": o}, f"rename the output {o!r} of node {_label(nodes[k], k)}"))


def _producers(defined: dict[str, str | int], outs: list[list[str]]) -> dict[str, int]:
    """Each tensor a node of the graph makes -> the first node that makes it (``defined`` holds the
    nodes' outputs only where one is made twice, ``_definitions``)."""
    producer: dict[str, int] = {}
    for k, os_ in enumerate(outs):
        for o in os_:
            if o and defined.get(o, k) == k:
                producer.setdefault(o, k)
    return producer


def _graph(gf: GraphFields, outer: frozenset, where: str, out: Wellformed) -> None:
    nodes = gf.nodes
    defined, outs = _definitions(gf.proto, nodes, where, out)
    if outer:
        _outer_names_made(nodes, outs, outer, where, out)
    visible = set(outer) | {t for t, d in defined.items() if type(d) is str}
    visible.add("")   # an omitted optional input reads nothing
    producer: dict[str, int] | None = None   # made when a node reads a tensor not yet in scope
    late: list[tuple[int, str, int]] = []   # (reader, tensor, producer) for reads before the write
    unmade: set[str] = set()   # tensors read that nothing makes, named once
    for k, n in enumerate(nodes):
        if n.tensors or n.subgraphs:
            nested(n, k, visible, where, out)
        if visible.issuperset(n.input):   # the common case, asked of the whole list at once
            visible.update(outs[k])
            continue
        if producer is None:
            producer = _producers(defined, outs)
        for t in n.input:
            if t in visible:
                continue
            if t in producer:
                late.append((k, t, producer[t]))
            elif t in unmade:
                continue   # one finding per tensor: its first reader names it
            elif out.room(DEFINED):
                unmade.add(t)
                out.violations.append(Finding(
                    DEFINED, "every input is defined in scope",
                    f"node {_label(n, k)} in {where} reads tensor {t!r}, which no node, graph input or "
                    "initializer in scope produces", {"tensor": t},
                    f"produce {t!r} before this node, add it as a graph input, or fix the input name"))
        visible.update(outs[k])
    for o in gf.proto.output:   # onnxruntime refuses to load a graph whose output nothing makes
        if o.name not in visible and out.room(DEFINED):
            out.violations.append(Finding(
                DEFINED, "every input is defined in scope",
                f"graph output {o.name!r} of {where} is made by no node, graph input or initializer in scope",
                {"tensor": o.name}, f"produce {o.name!r} in the graph, or remove it from the graph's outputs"))
    if late and producer is not None:
        order_findings(nodes, late, producer, where, out)


def _attribute_tensors(n: NodeFields, k: int, where: str, out: Wellformed) -> None:
    """``G4``-``G6`` for a node's tensor attributes, once per distinct attribute bytes (``NodeFields.keys``):
    bytes counted as read only when no problem was counted in them, so that repeated problems are counted."""
    data = n.keys if n.keys is not None else tuple(a.t.SerializeToString() for a in n.tensors)
    if data in out.sound:
        return
    before = sum(out.counts.values())   # every problem is counted (``room``), reported or not
    for a in n.tensors:
        _tensor_data(a.t, lambda: f"attribute {a.name!r} of node {_label(n, k)} in {where}", out)
    if sum(out.counts.values()) == before:
        out.sound.add(data)


def _negative_dims(vi, where: str, out: Wellformed) -> None:
    if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
        return
    for i, d in enumerate(vi.type.tensor_type.shape.dim):
        if d.HasField("dim_value") and d.dim_value < 0:
            out.notes.append(f"tensor {vi.name!r} in {where} declares dim {i} as {d.dim_value}; a dim cannot be "
                             "negative, so it is read as unknown")


def _untyped(what: str, name: str, out: Wellformed) -> None:
    if out.room(ELEMENT_TYPE):
        out.violations.append(Finding(ELEMENT_TYPE, "a tensor has an element type", f"{what} has no element type",
                                      {"tensor": name}, f"give {name!r} its element type"))


def _initializer_input(t, i, where: str, out: Wellformed) -> None:
    """``G7``: the initializer ``t`` fits the declared type of the graph input ``i`` of its name."""
    tt = i.type.tensor_type
    if not i.type.HasField("tensor_type") or not t.data_type or not tt.elem_type:
        return
    dims, problem = [int(d) for d in t.dims], ""
    if tt.elem_type != t.data_type:
        problem = f"element type {ONNX_CODES.get(t.data_type, t.data_type)}, the input {ONNX_CODES.get(tt.elem_type, tt.elem_type)}"
    elif tt.HasField("shape") and (len(tt.shape.dim) != len(dims) or any(
            d.HasField("dim_value") and d.dim_value != v for d, v in zip(tt.shape.dim, dims))):
        declared = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim]
        problem = f"dims {dims}, the input {declared}"
    if problem and out.room(INITIALIZER_INPUT):
        out.violations.append(Finding(
            INITIALIZER_INPUT, "an initializer matches the graph input of its name",
            f"initializer {t.name!r} of {where} has {problem}", {"tensor": t.name},
            f"declare the graph input {t.name!r} with the initializer's type, or drop it from the inputs"))


def _tensor_data(t, where: Callable[[], str], out: Wellformed) -> None:
    """``G4``/``G5``/``G6``: dims not negative, a data type, and the stored values match their count
    (``where`` names the tensor; it is only worded for a finding)."""
    if not t.data_type:
        _untyped(where(), t.name, out)
        return
    dims = [int(d) for d in t.dims]
    if any(d < 0 for d in dims):
        if out.room(NEGATIVE_DIM):
            out.violations.append(Finding(NEGATIVE_DIM, "dims are not negative", f"{where()} has dims {dims}",
                                          {"tensor": t.name}, "give the tensor non-negative dims"))
        return
    if t.data_location == 1:   # external: its bytes are not read (see --load-external-data)
        return
    count = math.prod(dims)
    if t.HasField("raw_data") and (t.data_type in ITEMSIZE or t.data_type in PACKED_BITS):
        bits = PACKED_BITS.get(t.data_type)
        want = count * ITEMSIZE[t.data_type] if bits is None else -(-count * bits // 8)
        if len(t.raw_data) != want and out.room(TENSOR_DATA):
            out.violations.append(Finding(
                TENSOR_DATA, "a tensor's data fits its dims",
                f"{where()} has dims {dims} of {ONNX_CODES[t.data_type]} ({want} bytes), but its raw data is "
                f"{len(t.raw_data)} bytes", {"tensor": t.name}, "re-export the tensor; its data is truncated or padded"))
        return
    field_name, per = _TYPED.get(t.data_type, (None, 1))
    if field_name is None:
        return
    have = len(getattr(t, field_name))
    if have != count * per and out.room(TENSOR_DATA):
        out.violations.append(Finding(
            TENSOR_DATA, "a tensor's data fits its dims",
            f"{where()} has dims {dims} ({count} values) but stores {have // per} in {field_name}",
            {"tensor": t.name}, "re-export the tensor; its values do not match its dims"))


__all__ = ["Wellformed", "cap", "check_wellformed", "nested", "opset_notes", "sources_in_scope"]
