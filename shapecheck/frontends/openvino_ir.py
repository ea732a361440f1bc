"""OpenVINO IR (``model.xml`` + ``model.bin``) -> ``ModelGraph``.

The XML is parsed with defusedxml: no DTDs, no entity expansion, no external entities.
A tensor is named ``layer_name:port``.  Parameters and constants are the sources;
other layers' output ports are what the IR claims, used as the fallback for layers
shapecheck has no spec for and checked as declarations for the ones it has.
Constant values (``axis``) are read from the ``.bin`` beside the XML when it is there.
"""
from __future__ import annotations

import re
from collections import deque
from pathlib import Path

import numpy as np

from ..errors import UsageError
from ..types import TensorType, canonical_dtype, numpy_dtype, unknown_dim
from .graph import Declaration, ModelGraph, ModelNode, model_file

_MAX_CONST_BYTES = 1 << 20


def _dtype(text: str | None) -> str | None:
    if not text:
        return None
    try:  # canonical_dtype knows OpenVINO's spellings (f32, FP16, bf16, u1, boolean)
        return canonical_dtype(text)
    except UsageError:
        return None


def _dims(port, tensor: str) -> tuple:
    dims = []
    for i, d in enumerate(port.findall("dim")):
        text = (d.text or "").strip()
        if re.fullmatch(r"\d+", text):
            dims.append(int(text))
        else:  # -1, ?, or a range like 1..10: dynamic
            dims.append(unknown_dim(f"{tensor}.shape[{i}]"))
    return tuple(dims)


def read_ir(path: str | Path, registry) -> ModelGraph:
    """Read an OpenVINO IR XML file into a ``ModelGraph``."""
    import defusedxml.ElementTree as ET
    from defusedxml import DefusedXmlException
    from xml.etree.ElementTree import ParseError
    p = model_file(path)
    try:
        root = ET.parse(str(p), forbid_dtd=True, forbid_entities=True, forbid_external=True).getroot()
    except ParseError as exc:
        raise UsageError(f"{p}: malformed XML ({exc}); expected OpenVINO IR (<net><layers>...<edges>...)") from None
    except DefusedXmlException as exc:
        raise UsageError(f"{p}: refused to parse: the XML declares a DTD or entities ({type(exc).__name__}); "
                         "OpenVINO IR never needs them") from None
    if root.tag != "net" or root.find("layers") is None:
        raise UsageError(f"{p}: not an OpenVINO IR file: the root element is <{root.tag}>, expected <net> with <layers>")
    bin_path = p.with_suffix(".bin")
    blob = bin_path.read_bytes() if bin_path.exists() and bin_path.stat().st_size <= (256 << 20) else None
    graph = ModelGraph(path=str(p), format="openvino")
    if blob is None:
        graph.notes.append(f"{bin_path.name} not found or too large: constant values (axis) are unknown")

    layers = {}
    order = []
    for layer in root.find("layers").findall("layer"):
        lid = layer.get("id")
        if lid is None or layer.get("type") is None:
            raise UsageError(f"{p}: a <layer> lacks its id or type attribute")
        layers[lid] = layer
        order.append(lid)
    producers: dict[tuple[str, str], tuple[str, str]] = {}
    succ: dict[str, set] = {lid: set() for lid in order}
    indeg = {lid: 0 for lid in order}
    edges = root.find("edges")
    for e in (edges.findall("edge") if edges is not None else []):
        fl, fp, tl, tp = e.get("from-layer"), e.get("from-port"), e.get("to-layer"), e.get("to-port")
        if fl not in layers or tl not in layers:
            raise UsageError(f"{p}: an <edge> refers to layer {fl if fl not in layers else tl!r}, which does not exist")
        producers[(tl, tp)] = (fl, fp)
        if tl not in succ[fl]:
            succ[fl].add(tl)
            indeg[tl] += 1
    queue = deque(l for l in order if indeg[l] == 0)
    topo = []
    while queue:
        lid = queue.popleft()
        topo.append(lid)
        for nxt in sorted(succ[lid], key=order.index):
            indeg[nxt] -= 1
            if indeg[nxt] == 0:
                queue.append(nxt)
    if len(topo) != len(order):
        raise UsageError(f"{p}: the edges form a cycle; an IR graph must be acyclic")

    def tensor_name(lid: str, port: str) -> str:
        return f"{layers[lid].get('name', lid)}:{port}"

    for lid in topo:
        layer = layers[lid]
        ltype = layer.get("type")
        name = layer.get("name", lid)
        version = layer.get("version", "opset1")
        m = re.fullmatch(r"opset(\d+)", version)
        opset = int(m.group(1)) if m else None
        data = layer.find("data")
        attrs = dict(data.attrib) if data is not None else {}
        outs = []
        out_el = layer.find("output")
        for port in (out_el.findall("port") if out_el is not None else []):
            tname = tensor_name(lid, port.get("id"))
            outs.append(tname)
            t = TensorType(_dtype(port.get("precision") or attrs.get("element_type")), _dims(port, tname))
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
        if ltype in ("Parameter", "Const"):
            continue
        ins = []
        in_el = layer.find("input")
        for port in (in_el.findall("port") if in_el is not None else []):
            src = producers.get((lid, port.get("id")))
            ins.append(tensor_name(*src) if src else "")
        if ltype == "Result":
            continue
        graph.nodes.append(ModelNode(name, ltype, "openvino", opset, ins, outs, attrs, "", f"layer id={lid} name={name!r}"))
    graph.opsets = {"openvino": max((n.opset or 0) for n in graph.nodes)} if graph.nodes else {}
    return graph


def _const(t: TensorType, attrs: dict, blob: bytes | None, path: Path, name: str) -> TensorType:
    if blob is None or t.dtype is None or t.shape is None:
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
    dt = numpy_dtype(t.dtype)
    if dt == np.dtype(object):
        return t
    arr = np.frombuffer(blob[offset:offset + size], dtype=dt)
    n = int(np.prod([d for d in t.shape if type(d) is int], dtype=np.int64)) if all(type(d) is int for d in t.shape) else -1
    if n != arr.size:
        return t
    return TensorType(t.dtype, t.shape, arr.reshape(t.shape).copy())
