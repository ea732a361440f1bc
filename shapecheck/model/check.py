"""Model validation entry points: load a model, run the forward pass (``shapecheck.model``).

Inference is the source of truth: a tensor's type comes from the graph inputs,
initializers and constants, then from the specs (for nodes shapecheck knows) or from
onnx's inference (for the rest), and is a fresh unknown where neither knows.
Declarations (``value_info``, declared graph outputs, IR ports) are *claims*: each is
compared with the inferred type; it may only fill in what inference left unknown.

>>> import onnx
>>> from onnx import helper, TensorProto as T
>>> g = helper.make_graph([helper.make_node("ScatterND", ["d", "i", "u"], ["y"])], "g",
...     [helper.make_tensor_value_info("d", T.FLOAT, ["N", 4]),
...      helper.make_tensor_value_info("i", T.INT64, ["M", 1]),
...      helper.make_tensor_value_info("u", T.FLOAT, ["M", 4])],
...     [helper.make_tensor_value_info("y", T.FLOAT, None)])
>>> rep = check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
>>> rep.summary["valid"], rep.nodes[0].outputs["output"]
(1, 'float[N,4]')
"""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from ..deferred import sympy, sympy_imported
from ..dims import NeedsAlgebra
from ..errors import UsageError
from ..frontends import ModelGraph
from ..registry import Registry, default_registry
from .domain import outside_finding, unpin_given
from .forward import check_graph
from .recorded import graph_tops
from .refinements import refuted_conditions, refuted_refinements
from .reports import ModelReport
from .sizes import bind_sizes, parse_sizes, recorded_ranges


# ---------------------------------------------------------------- entry points

def load_graph(model: Any, registry: Registry, load_external_data: bool = False, light: bool = False) -> ModelGraph:
    """Pick the frontend by file type: ``.xml`` is OpenVINO IR, anything else ONNX (``light``:
    its named dims as ``names.Name``s)."""
    if isinstance(model, (str, Path)) and str(model).lower().endswith(".xml"):
        from ..frontends.openvino_ir import read_ir
        return read_ir(model, registry)
    from ..frontends import read_onnx
    return read_onnx(model, registry, load_external_data, light)


def check_model(model: Any, *, strict: bool = False, registry: Registry | None = None,
                load_external_data: bool = False, output: str | None = None,
                specs: list[str] | str | None = None, runtime: str | None = None,
                pause_gc: bool = True, light: bool = False, assume_nonempty: bool = True,
                dims: dict[str, int] | str | None = None, progress: Any = None) -> ModelReport:
    """Check every node of a model (path or ModelProto) that has a spec; see ``ModelReport``.

    ``output`` writes an annotated copy (ONNX only); ``specs`` adds spec directories;
    ``runtime`` (``onnxruntime``, ``openvino``) warns about nodes that runtime cannot run.
    ``pause_gc`` (default) pauses the cyclic garbage collector during the check and restores it
    after: the check frees nothing cyclic, and full collections over a process's long-lived
    objects (the compiled specs, sympy's caches) took a third of a check's time.  Pass False to
    leave the collector alone.

    ``assume_nonempty`` (default) takes every symbolic input dim to be at least 1 (else at least 0);
    ``dims`` (``{"batch": 8}`` or ``"batch=8,seq=4096"``) checks the model at those input sizes; where
    that check fails, the model is checked again without them, and sizes outside the domain it has then
    are the report's first finding (``outside-domain``: the relations they fail, and where from).

    ``light`` first tries a check without sympy, whose named dims are ``names.Name``s; the
    first dim that needs algebra stops it, and the model is checked again as usual.  The
    report is the same either way, but its dims may be ``Name``s, which do no arithmetic: the
    CLI, which only prints reports, uses it; other callers should not.  It also parses the
    file without importing onnx (``frontends/onnx_proto.py``).  Not for threads
    (``deferred.Deferred.barred``).
    """
    if registry is None:
        from ..registry import registry_with
        registry = registry_with(specs) if specs else default_registry()
    sizes = parse_sizes(dims) if dims else None
    source = model   # checked again without the sizes when they fail (_outside_domain)
    with no_gc_pauses() if pause_gc else nullcontext():
        report = None
        owned = isinstance(model, (str, os.PathLike)) and not output   # parsed here, for the check alone
        if light and not output:
            report, model = _light_check(model, registry, strict, runtime, load_external_data, assume_nonempty, sizes)
        if report is None:
            graph = load_graph(model, registry, load_external_data)
            if owned:
                model = None   # the graph holds what is left of the parsed model, and run_checks drops it
            report = run_checks(graph, registry, strict, runtime, assume_nonempty, sizes, progress, drop_model=owned)
        refuted: list = []
        if not sizes and report.declarations:
            # what a declaration fills in or states, tried at the smallest sizes the domain admits (model/refinements.py)
            refuted_conditions(report)
            if any(d.status == "refines" for d in report.declarations):
                refuted = refuted_refinements(report, lambda point: _at_sizes(
                    source, registry, strict, runtime, load_external_data, assume_nonempty, point, light))
        if sizes and report.failed:
            unbound = check_model(source, strict=strict, registry=registry, load_external_data=load_external_data,
                                  pause_gc=False, light=light, assume_nonempty=assume_nonempty)
            _outside_domain(report, unbound, sizes)
    if output:
        if graph.format != "onnx":
            raise UsageError("--output writes ONNX models only; this model is OpenVINO IR")
        from ..frontends import write_annotated
        types = _types_without(source, registry, load_external_data, assume_nonempty, sizes, refuted) if refuted \
            else report.types
        write_annotated(graph.proto, graph.writable_types(types), output, graph.path, domain_metadata(report.domain))
    return report


def run_checks(graph: ModelGraph, registry: Registry, strict: bool = False, runtime: str | None = None,
               assume_nonempty: bool = True, sizes: dict[str, int] | None = None, progress: Any = None,
               drop_model: bool = False, types_only: bool = False) -> ModelReport:
    """The forward pass over a loaded graph, with the user's sizes bound and the exporter's recorded
    ranges as declared ranges of the input dims (``drop_model``: the parsed model is let go once they
    are read, ``ModelGraph.drop_model``; ``types_only``: only the report's types are read, ``check_graph``)."""
    recorded = recorded_ranges(graph) if sizes else {}   # read before the sizes replace their dims
    if sizes:
        bind_sizes(graph, sizes)
    ranges = recorded_ranges(graph)
    if drop_model:
        graph.drop_model()
    report = check_graph(graph, registry, strict, runtime, assume_nonempty, ranges, progress, types_only)
    if ranges and not types_only and report.domain is not None:   # what the graph allows past the record's tops
        graph_tops(report, ranges, assume_nonempty,
                   lambda wider: check_graph(graph, registry, strict, runtime, assume_nonempty, wider, None, False))
    if sizes:
        if report.domain is not None:
            report.domain.given = dict(sizes)
        report.notes.extend(outside_recorded(recorded, sizes))
        if assume_nonempty:
            report.notes.extend(f"{name} = 0 is below what the other dims are assumed to be (at least 1; "
                                "--allow-empty-dims takes 0 as a size): checked there as the graph stands"
                                for name, size in sizes.items() if size == 0)
    return report


def _at_sizes(model: Any, registry: Registry, strict: bool, runtime: str | None, load_external_data: bool,
              assume_nonempty: bool, sizes: dict[str, int], light: bool) -> ModelReport:
    """The report of ``model`` at these input sizes, without a light check's fallback or a recheck."""
    report, model = _light_check(model, registry, strict, runtime, load_external_data, assume_nonempty, sizes) \
        if light else (None, model)
    if report is not None:
        return report
    return run_checks(load_graph(model, registry, load_external_data), registry, strict, runtime, assume_nonempty, sizes)


def _types_without(model: Any, registry: Registry, load_external_data: bool, assume_nonempty: bool,
                   sizes: dict[str, int] | None, refuted: list) -> dict:
    """The types of a check of ``model`` that takes nothing from the declarations of ``refuted``
    (wrong at a size the domain admits, ``refinements``): what an annotated copy writes."""
    graph = load_graph(model, registry, load_external_data)
    for d in refuted:
        graph.declared.pop(d.tensor, None)
    return run_checks(graph, registry, False, None, assume_nonempty, sizes, types_only=True).types


def outside_recorded(recorded: dict[str, tuple[int, int | None]], sizes: dict[str, int]) -> list[str]:
    """A note for each size given outside the range the exporter recorded for its dim (torch's
    ``range_constraints``): the graph is checked there, but the export's contract does not cover it.

    >>> outside_recorded({"seq": (16, 4096), "batch": (1, None)}, {"seq": 8, "batch": 2})
    ["seq = 8 is outside the range the exporter recorded for it (16 <= seq <= 4096): checked there as the graph stands, though the export's contract does not cover it"]
    """
    out = []
    for name, size in sizes.items():
        lo, hi = recorded.get(name, (0, None))
        if size < lo or (hi is not None and size > hi):
            stated = f"{lo} <= {name}" + (f" <= {hi}" if hi is not None else "")
            out.append(f"{name} = {size} is outside the range the exporter recorded for it ({stated}): checked there "
                       "as the graph stands, though the export's contract does not cover it")
    return out


def _outside_domain(report: ModelReport, unbound: ModelReport, sizes: dict[str, int]) -> None:
    """A report at given sizes that fails, told why when the sizes are outside the input domain the model
    has without them (``unbound``, its report): that finding comes first, as the cause of the rest; and
    a dim those sizes alone leave with a few values is a bound there, not a pin (``unpin_given``)."""
    if unbound.domain is None:
        return
    # a declaration wrong at these sizes is fixed by the type that holds at every size: float[B,T,8],
    # not the sizes' float[2,12,8]
    general = {d.tensor: d.inferred for d in unbound.declarations}
    for d in report.declarations:
        if d.status == "contradicts" and d.tensor in general:
            d.fix = f"declare {d.tensor!r} as {general[d.tensor]}"
    unpin_given(report, unbound.domain, sizes)
    found = outside_finding(unbound.domain, sizes)
    if found is not None:
        report.violations.insert(0, found)


def domain_metadata(domain) -> dict[str, str]:
    """The input domain as ``metadata_props`` of an annotated model: its text, and the whole
    domain as JSON (``shapecheck.input_domain``)."""
    import json
    if domain is None:
        return {}
    return {"shapecheck.valid_for": domain.text(), "shapecheck.input_domain": json.dumps(domain.to_dict())}


def _light_check(model: Any, registry: Registry, strict: bool, runtime: str | None,
                 load_external_data: bool, assume_nonempty: bool = True,
                 sizes: dict[str, int] | None = None) -> tuple[ModelReport | None, Any]:
    """(the light check's report or None, the model for the full check, parsed once).

    None when there is nothing to save (sympy is imported already), the model is IR or larger
    than ``LIGHT_MAX_NODES``, or a dim needed algebra (or the light check failed in any way: the
    full check then decides, in its own words)."""
    if sympy_imported() or (isinstance(model, (str, Path)) and str(model).lower().endswith(".xml")):
        return None, model
    from ..frontends import load_model
    loaded = load_model(model, load_external_data, bare=True)
    if len(loaded.model.graph.node) > LIGHT_MAX_NODES:
        return None, loaded
    try:
        return light_check(loaded, registry, strict, runtime, assume_nonempty=assume_nonempty, sizes=sizes), loaded
    except (NeedsAlgebra, Exception):
        return None, loaded


# Nodes of a model's main graph past which the CLI skips the light check: a larger graph almost
# always computes a shape, and reading it (1.1 s at 60k nodes) is what a stopped light check wastes.
LIGHT_MAX_NODES = 2000


def light_check(model: Any, registry: Registry, strict: bool = False, runtime: str | None = None,
                load_external_data: bool = False, assume_nonempty: bool = True,
                sizes: dict[str, int] | None = None) -> ModelReport:
    """A check of an ONNX model that runs no sympy code, its named dims as ``names.Name``s;
    raises ``NeedsAlgebra`` where a dim needs more than comparing names."""
    with sympy.barred(NeedsAlgebra):
        graph = load_graph(model, registry, load_external_data, light=True)
        return run_checks(graph, registry, strict, runtime, assume_nonempty, sizes)


@contextmanager
def no_gc_pauses():
    """A model check allocates many small objects and frees nothing cyclic: the collector's
    repeated passes over a growing heap would cost more than the check itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            # what the check allocated goes straight to the oldest generation, so the first
            # collection after it does not walk every object of the report
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def annotate(model: Any, *, registry: Registry | None = None, assume_nonempty: bool = True,
             dims: dict[str, int] | str | None = None):
    """A copy of an ONNX model whose value_info and outputs carry shapecheck's inferred types."""
    import onnx
    from ..frontends import annotate_proto
    registry = registry or default_registry()
    with no_gc_pauses():
        graph = load_graph(model, registry)
        report = run_checks(graph, registry, False, None, assume_nonempty, parse_sizes(dims) if dims else None,
                            types_only=True)
        if isinstance(model, (str, os.PathLike)):
            m = graph.proto   # parsed here and held by nothing else: annotated as it is, not copied
        else:             # the caller's model is never modified
            m = onnx.ModelProto()
            m.CopyFrom(graph.proto)
        refuted = refuted_refinements(report, lambda point: run_checks(
            load_graph(model, registry), registry, False, None, assume_nonempty, point)) \
            if not dims and any(d.status == "refines" for d in report.declarations) else []
        # what is written of them (onnx_write._type_bytes): nothing a declaration wrong somewhere fills in
        types = graph.writable_types(_types_without(model, registry, False, assume_nonempty, None, refuted)
                                     if refuted else report.types)
        subgraphs, produced = bool(graph.regions), graph.produced
        # past their types, the nodes and their reports are let go: the value_info bytes reuse their memory
        del report
        graph.nodes.clear()
        annotate_proto(m, types, subgraphs=subgraphs, produced=produced)
    return m


__all__ = ["check_model", "run_checks", "annotate", "load_graph", "light_check", "no_gc_pauses"]
