"""An annotated copy of an ONNX model: its value_info and graph outputs carry the inferred types.

The copy is written atomically, never over the model or its external data, and its external
data stays as references (copied beside it when it goes into another folder).
"""
from __future__ import annotations

import filecmp
import os

from ..atomic import copy_atomic, refuse_inputs, writable, write_atomic
from ..containers import is_container, kind_of, tensors_in
from ..errors import OutputError, UsageError
from ..types import TensorType
from .onnx_fields import GRAPH, GRAPHS


def _subgraphs(nodes):
    """(node, attribute name, index or None, subgraph) for every subgraph of ``nodes``."""
    for n in nodes:
        for a in n.attribute:
            if a.type == GRAPH:
                yield n, a.name, None, a.g
            elif a.type == GRAPHS:
                for k, sg in enumerate(a.graphs):
                    yield n, a.name, k, sg


def write_annotated(model, types: dict[str, TensorType], out_path: str, source_path: str,
                    metadata: dict[str, str] | None = None) -> None:
    """Write a copy of ``model`` whose value_info and graph outputs carry the inferred types.

    The copy is serialized here, never through ``onnx.save``: that writes the raw data of
    external tensors back into their data files.  External references stay as they are,
    and the output may be none of the model's files (the model, its external data).
    """
    import onnx
    inputs = [source_path, *external_files(model, source_path)] if source_path and source_path != "<ModelProto>" else []
    refuse_inputs(out_path, inputs, "--output")
    m = onnx.ModelProto()
    m.CopyFrom(model)
    annotate_proto(m, types)
    for key, value in (metadata or {}).items():   # the model's own entries of these keys are replaced
        for p in [p for p in m.metadata_props if p.key == key]:
            m.metadata_props.remove(p)
        m.metadata_props.add(key=key, value=value)
    try:
        data = m.SerializeToString()
    except ValueError as exc:  # protobuf's 2 GB limit
        raise OutputError(f"cannot write {out_path}: the annotated model cannot be serialized ({exc})") from None
    writable(out_path, inputs, "--output")
    copies = _external_copies(model, source_path, out_path)
    made: list[str] = []
    try:   # the data first, the model last: a model is never left pointing at data that is not there
        for src, dest in copies:
            if not os.path.exists(dest):   # (one that exists is the same bytes: _external_copies checked)
                copy_atomic(src, dest, inputs=inputs, what="--output")
                made.append(dest)
        write_atomic(out_path, data, inputs=inputs, what="--output")
    except BaseException:
        for dest in made:   # what this run wrote, and nothing else
            os.remove(dest)
        raise


def _external_copies(model, source_path: str, out_path: str) -> list[tuple[str, str]]:
    """``(source, destination)`` of each external data file to copy beside an annotated copy written
    into another folder, at the same relative location (onnxruntime reads external data only from the
    model's own folder).  A destination that exists must hold the same bytes (a run again into the same
    folder): any other file there is not shapecheck's to replace, and the run stops before writing."""
    if not source_path or source_path == "<ModelProto>":
        return []
    src_dir = os.path.dirname(os.path.abspath(source_path))
    out_dir = os.path.dirname(os.path.abspath(out_path))
    if os.path.realpath(src_dir) == os.path.realpath(out_dir):
        return []
    out = []
    for path in external_files(model, source_path):
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(src_dir))
        if rel.startswith(os.pardir) or os.path.isabs(rel):
            raise UsageError(f"{source_path}: external data {path!r} lies outside the model's folder; shapecheck "
                             "reads nothing there, so the annotated copy cannot carry it: write it beside the model")
        dest = os.path.join(out_dir, rel)
        if not os.path.isfile(path):
            continue
        if os.path.lexists(dest) and not (os.path.isfile(dest) and filecmp.cmp(path, dest, shallow=False)):
            raise OutputError(f"cannot write --output {out_path}: its external data would be copied to {dest}, "
                             f"which exists and is not {os.path.basename(path)} (shapecheck replaces no file it did not "
                             "write): write the annotated copy into another folder, or move that file away")
        out.append((path, dest))
    return out


def external_files(model, source_path: str) -> list[str]:
    """The files a model's external tensors name, resolved against the model's directory."""
    import onnx
    base = os.path.dirname(os.path.abspath(source_path))
    out: list[str] = []

    def tensors(g):
        yield from g.initializer
        for n in g.node:
            for a in n.attribute:
                if a.HasField("t"):
                    yield a.t
                yield from a.tensors
                if a.type == onnx.AttributeProto.GRAPH:
                    yield from tensors(a.g)
                for sg in a.graphs:
                    yield from tensors(sg)
    for t in tensors(model.graph):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            loc = next((e.value for e in t.external_data if e.key == "location"), "")
            if loc:
                path = os.path.join(base, loc)
                if path not in out:
                    out.append(path)
    return out


_INT64 = 1 << 63


def annotate_proto(m, types: dict[str, TensorType], subgraphs: bool = True,
                   produced: list[list[str]] | None = None) -> None:
    """Set value_info (and graph outputs) of ``m`` in place to ``types``; a tensor of which nothing
    is known (it may be a sequence) is not written.  A graph's new value_info entries are appended in
    one call, as the protobuf bytes of their ``ValueInfoProto`` fields (``add_value_info``): building
    60k messages one field at a time from Python took most of an annotation.  ``subgraphs``: False
    when the caller knows the model has none (its nodes' attributes are then not read again);
    ``produced``: the main graph's nodes' outputs, when the caller has read them (``ModelGraph.produced``)."""
    written: dict[int, bytes] = {}   # id of a type -> its type field's bytes, b"" when none (types are shared)

    def visit(g, top: bool):
        inputs = {i.name for i in g.input} | {i.name for i in g.initializer}
        made = produced if top and produced is not None else [n.output for n in g.node]
        outputs = {o.name: o for o in g.output}
        keep = [vi for vi in g.value_info if vi.name not in types or kind_of(types[vi.name]) is None]
        del g.value_info[:]
        g.value_info.extend(keep)
        added = bytearray()   # the entries (``add_value_info``), merged at once
        aside = inputs | outputs.keys()   # not a value_info entry: asked once of each tensor
        get, add = types.get, add_value_info
        for outs in made:
            for name in outs:
                t = get(name)
                if t is None:
                    continue
                done = written.get(id(t))
                if done is None:
                    done = written[id(t)] = _type_bytes(t)
                if not done:
                    continue
                if name not in aside:
                    add(added, name, done)
                elif name not in inputs:
                    set_output_type(outputs[name].type, t, done)   # in place: the output's other fields stay
        if added:
            g.MergeFromString(bytes(added))   # a repeated field's entries are appended in order
        for _n, _a, _k, sg in _subgraphs(g.node) if subgraphs else ():
            visit(sg, False)
    visit(m.graph, True)


def _type_bytes(t) -> bytes:
    """A ValueInfoProto's type field for ``t`` (``_type_field``), or b"" for a type not written: one of
    which nothing is known (it may be a sequence), or a tensor, sequence, optional or map with a
    tensor of no known element type (an ONNX TypeProto needs its elements' types)."""
    if kind_of(t) is None or not (getattr(t, "dtype", None) is not None
                                  or is_container(t) and all(x.dtype for x in tensors_in(t))):
        return b""
    import onnx
    tp = onnx.TypeProto()
    fill_type_proto(tp, t)
    return _type_field(tp.SerializeToString())


def add_value_info(buf: bytearray, name: str, type_field: bytes) -> None:
    """Append to ``buf`` a ``GraphProto.value_info`` entry (field 13) holding one ``ValueInfoProto``
    (name: field 1, type: field 2, ``type_field``: ``_type_field``'s bytes, made once per type), in
    protobuf's wire format: each field a tag, a varint length and the bytes.

    >>> import onnx
    >>> g, buf = onnx.GraphProto(), bytearray()
    >>> for name in ("y", "z" * 200):
    ...     add_value_info(buf, name, _type_field(onnx.TypeProto(denotation="d").SerializeToString()))
    >>> _ = g.MergeFromString(bytes(buf))
    >>> [(len(vi.name), vi.type.denotation) for vi in g.value_info]
    [(1, 'd'), (200, 'd')]
    """
    text = name.encode("utf-8")
    n = len(text)
    size = 2 + n + len(type_field)
    if size < 0x80:   # the common entry: both lengths one byte
        buf += b"\x6a"
        buf.append(size)
        buf += b"\x0a"
        buf.append(n)
    else:
        size += len(_varint(n)) - 1
        buf += b"\x6a" + _varint(size) + b"\x0a" + _varint(n)
    buf += text
    buf += type_field


def _type_field(type_bytes: bytes) -> bytes:
    """A ValueInfoProto's ``type`` field (field 2) of a TypeProto's bytes."""
    return b"\x12" + _varint(len(type_bytes)) + type_bytes


_SHORT = [bytes([n]) for n in range(0x80)]   # a varint below 128 is one byte


def _varint(n: int) -> bytes:
    if n < 0x80:
        return _SHORT[n]
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def set_output_type(tp, t, type_field: bytes) -> None:
    """Write ``t`` into a graph output's TypeProto ``tp``, as ``fill_type_proto`` writes it: a tensor's
    bytes (``type_field``, ``_type_bytes``'s) merged over its shape cleared, a container's field by field.

    >>> import onnx
    >>> from shapecheck.types import TensorType
    >>> tp = onnx.helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, [3, "n"]); tp.denotation = "d"
    >>> t = TensorType("float16", (2, "k", 4))
    >>> set_output_type(tp, t, _type_bytes(t)); [d.dim_value or d.dim_param for d in tp.tensor_type.shape.dim]
    [2, 'k', 4]
    >>> tp.tensor_type.elem_type == onnx.TensorProto.FLOAT16, tp.denotation
    (True, 'd')
    """
    if type(t) is not TensorType:
        fill_type_proto(tp, t)
        return
    if tp.HasField("tensor_type"):
        tp.tensor_type.ClearField("shape")
    start = 1   # past the field's tag (one byte) and its varint length: the TypeProto's bytes
    while type_field[start] & 0x80:
        start += 1
    tp.MergeFromString(type_field[start + 1:])


def fill_type_proto(tp, t) -> None:
    """Write ``t`` (a tensor, sequence, optional or map type) into the TypeProto ``tp``."""
    from ..types import ONNX_CODE_OF
    from ..dims import dim_str, is_unknown
    if is_container(t):
        tp.ClearField("tensor_type")
        if t.kind == "sequence":
            fill_type_proto(tp.sequence_type.elem_type, t.elem)
        elif t.kind == "optional":
            fill_type_proto(tp.optional_type.elem_type, t.elem)
        else:
            tp.map_type.key_type = ONNX_CODE_OF.get(t.key or "", 0)
            fill_type_proto(tp.map_type.value_type, t.value_type)
        return
    tt = tp.tensor_type
    if t.dtype:
        tt.elem_type = ONNX_CODE_OF[t.dtype]
    tt.ClearField("shape")
    if t.shape is not None:
        shape = tt.shape
        shape.SetInParent()
        for d in t.shape:
            dim = shape.dim.add()
            if type(d) is int:
                if -_INT64 <= d < _INT64:   # a dim past int64 is a finding of its node, never written
                    dim.dim_value = d
            elif not is_unknown(d) and dim_str(d) != "?":
                dim.dim_param = dim_str(d)
