"""OpenVINO IR (``model.xml`` + ``model.bin``) -> ``ModelGraph``, as OpenVINO 2026 writes it.

The XML is parsed with defusedxml: no DTDs, no entity expansion, no external entities.
A tensor is named ``layer_name:port``.  Parameters and constants are the sources;
other layers' output ports are what the IR claims: the fallback for layers shapecheck
has no spec for, and declarations checked against inference for the ones it has.

* dims: ``4``; ``-1`` or ``?`` (dynamic); ``1..8`` (bounded dynamic). A dynamic dim of a
  Parameter is a named symbol (``input_ids_d1``: the port's first ``names`` entry, or the
  layer's name, and the axis), so conditions read like the model; elsewhere it is unknown.
* a layer's ``version="opsetN"`` is kept as text and as N (None when it is not ``opsetN``).
* constants are read from the ``.bin`` beside the XML for every element type numpy holds
  (packed 1- and 4-bit types stay unknown: sound, only less precise).
* an edge from or to a port its layer lacks is an error (exit 2), as is a port read twice.
"""
from __future__ import annotations

import re
from collections import deque
from pathlib import Path

import numpy as np

from ..errors import UsageError
from ..dims import INT64_MAX, symbol, unknown_dim
from ..types import TensorType, canonical_dtype, numpy_dtype
from .graph import Declaration, ModelGraph, ModelNode, model_file

_MAX_CONST_BYTES = 1 << 20
_PACKED = {"u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1"}   # sub-byte types numpy cannot view


def _dtype(text: str | None) -> str | None:
    if not text or text.strip().lower() in _PACKED:
        return None
    try:  # canonical_dtype knows OpenVINO's spellings (f32, FP16, bf16, boolean)
        return canonical_dtype(text)
    except UsageError:
        return None


def _safe(name: str) -> str:
    """A dim symbol name from a tensor name: letters, digits and _ only."""
    s = re.sub(r"\W+", "_", name).strip("_") or "p"
    return s if not s[0].isdigit() else "p" + s


def _dims(port, tensor: str, where: str, sym_base: str | None = None) -> tuple:
    """Dims of a <port>; dynamic ones are fresh unknowns, or named symbols when ``sym_base`` is given."""
    dims = []
    for i, d in enumerate(port.findall("dim")):
        text = (d.text or "").strip()
        if re.fullmatch(r"\d+", text):
            if len(text) > 19 or int(text) > INT64_MAX:
                raise UsageError(f"{where}: port {port.get('id')} has dim {text[:30]}{'...' if len(text) > 30 else ''}, "
                                 f"larger than an int64 dim can be ({INT64_MAX})")
            dims.append(int(text))
        elif text in ("-1", "?") or re.fullmatch(r"\d+\.\.(\d+|-1)?|\.\.\d+", text):
            dims.append(symbol(f"{sym_base}_d{i}") if sym_base else unknown_dim(f"{tensor}.shape[{i}]"))
        else:
            raise UsageError(f"{where}: port {port.get('id')} has dim {text!r}; OpenVINO IR writes a size (4), "
                             "-1 or ? (dynamic) or an interval (1..8)")
    return tuple(dims)


def _parameter_shape(t: TensorType, text: str, where: str, base: str | None, notes: list[str]) -> TensorType:
    """A Parameter's <data shape="4,1..8,?">: bounds of its dynamic dims (as notes) and a check
    that it agrees with the port, which OpenVINO writes with -1 for every dynamic dim."""
    tokens = [x.strip() for x in text.split(",")] if text.strip() else []
    if t.shape is None or len(tokens) != len(t.shape):
        raise UsageError(f"{where}: its shape {text!r} has {len(tokens)} dims but its output port has "
                         f"{0 if t.shape is None else len(t.shape)}")
    dims = list(t.shape)
    for i, (tok, d) in enumerate(zip(tokens, t.shape)):
        if re.fullmatch(r"\d+", tok) and (len(tok) > 19 or int(tok) > INT64_MAX):
            raise UsageError(f"{where}: its shape gives dim {i} = {tok[:30]}..., larger than an int64 dim can be")
        if re.fullmatch(r"\d+", tok):
            if type(d) is int and d != int(tok):
                raise UsageError(f"{where}: its shape {text!r} gives dim {i} = {tok} but its output port has {d}")
            dims[i] = int(tok)
        elif ".." in tok:
            notes.append(f"{where.split(': ', 1)[-1]}: dim {i} is the bounded dynamic dim {tok}; shapecheck "
                         f"treats it as the symbol {base}_d{i} (its bounds are not used)")
    return TensorType(t.dtype, tuple(dims), t.value)


def _ports(layer, kind: str) -> list:
    el = layer.find(kind)
    return el.findall("port") if el is not None else []


def read_ir(path: str | Path, registry) -> ModelGraph:
    """Read an OpenVINO IR XML file into a ``ModelGraph``."""
    p = model_file(path)
    root = _parse_xml(p)
    bin_path = p.with_suffix(".bin")
    blob = bin_path.read_bytes() if bin_path.exists() and bin_path.stat().st_size <= (256 << 20) else None
    graph = ModelGraph(path=str(p), format="openvino")
    if blob is None:
        graph.notes.append(f"{bin_path.name} not found or too large: constant values (axis) are unknown")

    layers, order = _layers(root, p)
    producers, topo = _edges(root, p, layers, order)

    def tensor_name(lid: str, port: str) -> str:
        return f"{layers[lid].get('name', lid)}:{port}"

    for lid in topo:
        layer = layers[lid]
        ltype = layer.get("type")
        name = layer.get("name", lid)
        where = f"{p}: layer id={lid} name={name!r} ({ltype})"
        version = layer.get("version", "opset1")
        m = re.fullmatch(r"opset(\d{1,6})", version)
        data = layer.find("data")
        attrs = dict(data.attrib) if data is not None else {}
        outs = []
        for port in _ports(layer, "output"):
            tname = tensor_name(lid, port.get("id"))
            outs.append(tname)
            _output_port(graph, registry, port, tname, ltype, name, attrs, where, blob, p)
        if ltype in ("Parameter", "Const", "Result"):
            continue
        ins = []
        for port in _ports(layer, "input"):
            src = producers.get((lid, port.get("id")))
            ins.append(tensor_name(*src) if src else "")
        graph.nodes.append(ModelNode(name, ltype, "openvino", int(m.group(1)) if m else None, ins, outs, attrs, "",
                                     f"layer id={lid} name={name!r}", version=version))
    opsets = [n.opset for n in graph.nodes if n.opset is not None]
    graph.opsets = {"openvino": max(opsets)} if opsets else {}
    return graph


def _parse_xml(p: Path):
    """The root of an IR file's XML, parsed without DTDs or entities; a UsageError for anything else."""
    from xml.etree.ElementTree import ParseError

    import defusedxml.ElementTree as ET
    from defusedxml import DefusedXmlException
    try:
        root = ET.parse(str(p), forbid_dtd=True, forbid_entities=True, forbid_external=True).getroot()
    except ParseError as exc:
        raise UsageError(f"{p}: malformed XML ({exc}); expected OpenVINO IR (<net><layers>...<edges>...)") from None
    except DefusedXmlException as exc:
        raise UsageError(f"{p}: refused to parse: the XML declares a DTD or entities ({type(exc).__name__}); "
                         "OpenVINO IR never needs them") from None
    if root.tag != "net" or root.find("layers") is None:
        raise UsageError(f"{p}: not an OpenVINO IR file: the root element is <{root.tag}>, expected <net> with <layers>")
    return root


def _output_port(graph: ModelGraph, registry, port, tname: str, ltype: str, name: str, attrs: dict, where: str,
                 blob: bytes | None, p: Path) -> None:
    """An output port's type: a graph input, a constant, a declaration of a spec'd op, or a fallback type."""
    base = None
    if ltype == "Parameter":
        base = _safe((port.get("names") or "").split(",")[0].strip() or name)
    t = TensorType(_dtype(port.get("precision") or attrs.get("element_type")), _dims(port, tname, where, base))
    if ltype == "Parameter" and "shape" in attrs:
        t = _parameter_shape(t, attrs["shape"], where, base, graph.notes)
    if ltype == "Parameter":
        graph.sources[tname] = t
        graph.source_kind[tname] = "graph input"
    elif ltype == "Const":
        graph.sources[tname] = _const(t, attrs, blob, p, name)
        graph.source_kind[tname] = "constant"
    elif registry.has_op(ltype, "openvino"):
        graph.declared[tname] = Declaration(tname, t, "port")
    else:
        graph.fallback[tname] = t


def _layers(root, p: Path) -> tuple[dict, list]:
    layers, order = {}, []
    for layer in root.find("layers").findall("layer"):
        lid = layer.get("id")
        if lid is None or layer.get("type") is None:
            raise UsageError(f"{p}: a <layer> lacks its id or type attribute")
        if lid in layers:
            raise UsageError(f"{p}: two layers have id={lid!r}; layer ids must be unique")
        layers[lid] = layer
        order.append(lid)
    return layers, order


def _edges(root, p: Path, layers: dict, order: list) -> tuple[dict, list]:
    """Producers of every input port, and the layers in topological order."""
    out_ports = {lid: {q.get("id") for q in _ports(l, "output")} for lid, l in layers.items()}
    in_ports = {lid: {q.get("id") for q in _ports(l, "input")} for lid, l in layers.items()}
    producers: dict[tuple[str, str], tuple[str, str]] = {}
    succ: dict[str, set] = {lid: set() for lid in order}
    indeg = {lid: 0 for lid in order}
    position = {lid: i for i, lid in enumerate(order)}
    edges = root.find("edges")
    for e in (edges.findall("edge") if edges is not None else []):
        fl, fp, tl, tp = e.get("from-layer"), e.get("from-port"), e.get("to-layer"), e.get("to-port")
        if fl not in layers or tl not in layers:
            raise UsageError(f"{p}: an <edge> refers to layer {fl if fl not in layers else tl!r}, which does not exist")
        for lid, port, ports, side in ((fl, fp, out_ports, "output"), (tl, tp, in_ports, "input")):
            if port not in ports[lid]:
                have = ", ".join(sorted(x for x in ports[lid] if x is not None)) or "none"
                raise UsageError(f"{p}: an <edge> uses {side} port {port!r} of layer id={lid} "
                                 f"name={layers[lid].get('name', lid)!r} ({layers[lid].get('type')}), which has no such "
                                 f"port; its {side} ports are: {have}")
        if (tl, tp) in producers:
            raise UsageError(f"{p}: input port {tp!r} of layer id={tl} has two incoming edges; an input has one producer")
        producers[(tl, tp)] = (fl, fp)
        if tl not in succ[fl]:
            succ[fl].add(tl)
            indeg[tl] += 1
    queue = deque(lid for lid in order if indeg[lid] == 0)
    topo = []
    while queue:
        lid = queue.popleft()
        topo.append(lid)
        for nxt in sorted(succ[lid], key=position.__getitem__):
            indeg[nxt] -= 1
            if indeg[nxt] == 0:
                queue.append(nxt)
    if len(topo) != len(order):
        raise UsageError(f"{p}: the edges form a cycle; an IR graph must be acyclic")
    return producers, topo


def _const(t: TensorType, attrs: dict, blob: bytes | None, path: Path, name: str) -> TensorType:
    """A Const's type with its value from the .bin, when the bytes and the shape agree."""
    if blob is None or t.dtype is None or t.shape is None or not all(type(d) is int for d in t.shape):
        return t
    try:
        offset, size = int(attrs.get("offset", -1)), int(attrs.get("size", -1))
    except ValueError:
        raise UsageError(f"{path}: Const layer {name!r} has a non-integer offset or size") from None
    if offset < 0 or size < 0 or size > _MAX_CONST_BYTES:
        return t
    if offset + size > len(blob):
        raise UsageError(f"{path}: Const layer {name!r} reads bytes {offset}..{offset + size} "
                         f"past the end of the .bin ({len(blob)} bytes)")
    try:
        dt = numpy_dtype(t.dtype)
    except (UsageError, ImportError):
        return t
    n = int(np.prod(t.shape, dtype=np.int64))
    if dt == np.dtype(object) or n * dt.itemsize != size:
        return t
    arr = np.frombuffer(blob[offset:offset + size], dtype=dt)
    return TensorType(t.dtype, t.shape, arr.reshape(t.shape).copy())
