"""Whole-graph shape exactness against onnxruntime's ground truth (issues 15 and 16).

Not a test module: tests/test_wholegraph.py and bench/bench_wholegraph.py use it.

``compare(model, truth, inferred)`` scores an engine's shapes (a dict tensor name -> anything
with a ``.shape``: a tuple of dims, or None for an unknown rank) against the shapes onnxruntime
produced (``<model>.truth.json``, written by tests/fixtures/make_exports.py).  Dims are ints or
sympy expressions over symbols named as the model's input dim_params; for each run, the input
dims are bound to the run's sizes and every tensor falls in one class:

* ``exact``: every dim evaluates to the run's size, in every run;
* ``wrong``: the rank differs, or some dim evaluates to another number (a soundness bug);
* ``fresh``: not wrong, and the only dims not exact are symbols that are not input dims on a
  tensor the truth lists as data-dependent (its shape changes with the data at equal sizes);
* ``unknown``: anything else: unknown rank, a missing tensor, an unknown dim (sympy Dummy), or
  a dim over a symbol that is not an input dim (a peer's ``unk__3``, a stray exporter name).

``NATIVE`` runs each engine to its own answer (shapecheck's report or annotated model,
``onnx.shape_inference.infer_shapes(data_prop=True)``, onnxruntime's ``SymbolicShapeInference``
with ``auto_merge``, onnx-shape-inference on an onnx_ir model) and reads that dict out of it;
``ENGINES`` are the two composed, for the engines the tests score.  Peers' dim_params are text such as ``seq+1``: they are parsed by
``shapecheck.dims.parse_dim`` (no eval); text it does not parse is an unknown dim.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import onnx
import sympy

from shapecheck.dims import is_runtime, dim_str, has_unknown, parse_dim, unknown_dim
from shapecheck.types import TensorType

EXPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "exports"
CLASSES = ("exact", "wrong", "fresh", "unknown")


@dataclass
class Score:
    exact: int = 0
    wrong: int = 0
    unknown: int = 0
    total: int = 0
    fresh: int = 0
    details: dict[str, tuple[str, str]] = field(default_factory=dict)  # tensor -> (class, inferred)

    def line(self) -> str:
        pct = 100.0 * self.exact / self.total if self.total else 0.0
        return (f"{self.exact}/{self.total} exact ({pct:.1f}%), {self.wrong} wrong, "
                f"{self.unknown} unknown" + (f", {self.fresh} fresh" if self.fresh else ""))


def load_truth(path: str | Path) -> dict:
    return json.loads(Path(path).read_text())


def run_envs(truth: dict) -> list[dict[str, int]]:
    """Per run, the value of each input dim name (from the inputs' declared dims)."""
    envs = []
    for run in truth["runs"]:
        env: dict[str, int] = {}
        for name, dims in truth["input_dims"].items():
            for d, size in zip(dims, run["inputs"].get(name, [])):
                if isinstance(d, str) and d:
                    env.setdefault(d, size)
        envs.append(env)
    return envs


def _eval_dim(d: Any, env: dict[str, int]) -> int | str:
    """A dim's value in one run, or "unknown" / "fresh" (over symbols that are not input dims)."""
    if isinstance(d, int):
        return d
    if isinstance(d, sympy.Integer):
        return int(d)
    if not isinstance(d, sympy.Basic):
        return "unknown"
    if has_unknown(d):   # a run-time size the report names and bounds (nnz_1) is fresh; any other unknown is not
        named = all(is_runtime(s) for s in d.free_symbols if isinstance(s, sympy.Dummy))
        return "fresh" if named else "unknown"
    subs = {}
    for s in d.free_symbols:
        if s.name not in env:
            return "fresh"
        subs[s] = sympy.Integer(env[s.name])
    v = sympy.sympify(d.xreplace(subs))
    return int(v) if v.is_Integer else "unknown"


def classify(shape: tuple | None, truths: list[list[int]], envs: list[dict[str, int]],
             data_dependent: bool) -> str:
    if shape is None:
        return "unknown"
    worst = "exact"
    for want, env in zip(truths, envs):
        if len(shape) != len(want):
            return "wrong"
        for d, w in zip(shape, want):
            v = _eval_dim(d, env)
            if isinstance(v, int):
                if v != w:
                    return "wrong"
            elif v == "fresh" and data_dependent:
                worst = "fresh" if worst == "exact" else worst
            else:
                worst = "unknown"
    return worst


def compare(model_path: str | Path, truth_path: str | Path, inferred: dict[str, Any]) -> Score:
    """Score ``inferred`` (tensor name -> object with ``.shape``) on every tensor of the truth."""
    del model_path  # the truth names the tensors; the model is not needed to score them
    truth = load_truth(truth_path)
    envs = run_envs(truth)
    dd = set(truth.get("data_dependent", []))
    score = Score()
    for name in truth["runs"][0]["shapes"]:
        t = inferred.get(name)
        shape = None if t is None else _shape_of(t)
        cls = classify(shape, [r["shapes"][name] for r in truth["runs"]], envs, name in dd)
        setattr(score, cls, getattr(score, cls) + 1)
        score.total += 1
        if cls != "exact":
            shown = "missing" if t is None else ("?" if shape is None else
                                                  "[" + ",".join(dim_str(d) for d in shape) + "]")
            score.details[name] = (cls, shown)
    return score


def _shape_of(t: Any) -> tuple | None:
    shape = t.shape if hasattr(t, "shape") else t
    return None if shape is None else tuple(shape)


def loss_points(model: onnx.ModelProto, score: Score) -> Counter:
    """Op types of the nodes where shapes are lost: a node with an output not exact (or wrong)
    whose every input is exact (graph inputs and initializers count as exact)."""
    bad = {n for n, (cls, _) in score.details.items() if cls in ("unknown", "wrong")}
    ops: Counter = Counter()
    for node in model.graph.node:
        if any(o in bad for o in node.output) and not any(i in bad for i in node.input):
            ops[node.op_type] += 1
    return ops


# ---------------------------------------------------------------- adapters


def _dim_of(d: onnx.TensorShapeProto.Dimension, where: str):
    if d.HasField("dim_value"):
        return int(d.dim_value)
    if d.HasField("dim_param") and d.dim_param:
        return _parse_text_dim(d.dim_param, where)
    return unknown_dim(where)


def _parse_text_dim(text: str, where: str):
    try:
        return parse_dim(text, where)
    except Exception:  # noqa: BLE001 - any text parse_dim refuses (Min(..), floor(..)) is an unknown
        return unknown_dim(where)


def _types_of_proto(model: onnx.ModelProto, infos) -> dict[str, TensorType]:
    out: dict[str, TensorType] = {}
    for vi in infos:
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type"):
            continue
        shape = None if not tt.HasField("shape") else tuple(
            _dim_of(d, f"{vi.name}[{i}]") for i, d in enumerate(tt.shape.dim))
        out[vi.name] = TensorType(None, shape)
    return out


def stripped(path: str | Path) -> onnx.ModelProto:
    """The model without its value_info; its external data loaded only if it has any (onnx.load's
    search for it walks every tensor of the model in Python)."""
    m = onnx.load(str(path), load_external_data=False)
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in m.graph.initializer):
        from onnx.external_data_helper import load_external_data_for_model
        load_external_data_for_model(m, str(Path(path).parent))
    del m.graph.value_info[:]
    return m


def proto_types(m: onnx.ModelProto) -> dict[str, TensorType]:
    """The shapes an inferred (or annotated) ModelProto states, in its value_info and outputs."""
    return _types_of_proto(m, list(m.graph.value_info) + list(m.graph.output))


def onnx_inferred(path: str | Path) -> onnx.ModelProto:
    return onnx.shape_inference.infer_shapes(stripped(path), data_prop=True)


def ort_inferred(path: str | Path) -> onnx.ModelProto:
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

    return SymbolicShapeInference.infer_shapes(stripped(path), auto_merge=True)


def osi_inferred(path: str | Path):
    import onnx_ir as ir
    from onnx_shape_inference import infer_symbolic_shapes

    model = ir.serde.deserialize_model(stripped(path))
    infer_symbolic_shapes(model, warn_on_missing=False)
    return model


def osi_shapes(model) -> dict[str, TensorType]:
    """The shapes onnx-shape-inference wrote into an onnx_ir model."""
    out: dict[str, TensorType] = {}
    for node in model.graph.all_nodes() if hasattr(model.graph, "all_nodes") else model.graph:
        for v in node.outputs:
            if v.name:
                out[v.name] = TensorType(None, _ir_shape(v.shape, v.name))
    for v in model.graph.outputs:
        out[v.name] = TensorType(None, _ir_shape(v.shape, v.name))
    return out


def _ir_shape(shape, where: str) -> tuple | None:
    if shape is None:
        return None
    dims = []
    for i, d in enumerate(shape):
        if isinstance(d, int):
            dims.append(d)
        elif getattr(d, "value", None) is None:
            dims.append(unknown_dim(f"{where}[{i}]"))
        else:
            dims.append(_parse_text_dim(str(d.value), f"{where}[{i}]"))
    return tuple(dims)


def shapecheck_report(path: str | Path):
    from shapecheck.model.check import check_model

    return check_model(str(path))


def shapecheck_annotated(path: str | Path) -> onnx.ModelProto:
    from shapecheck.model.check import annotate

    return annotate(str(path))


# each engine's own answer (what a user of it gets: a report, an inferred ModelProto, an onnx_ir model),
# which the benches time, and its shapes as ``compare`` reads them, which they do not
NATIVE: dict[str, tuple[Callable[[str | Path], Any], Callable[[Any], dict]]] = {
    "shapecheck": (shapecheck_report, lambda report: report.types),
    "shapecheck-annotate": (shapecheck_annotated, proto_types),
    "onnx": (onnx_inferred, proto_types),
    "ort-symbolic": (ort_inferred, proto_types),
    "onnx-shape-inference": (osi_inferred, osi_shapes),
}

# the engines the tests score: each one's answer read as shapes
ENGINES: dict[str, Callable[[str | Path], dict]] = {
    e: (lambda path, run=run, read=read: read(run(path)))
    for e, (run, read) in NATIVE.items() if e != "shapecheck-annotate"}


def score_engine(engine: str, model_path: str | Path, truth_path: str | Path | None = None) -> Score:
    """Run one engine on a model and score it; an engine that raises scores 0 exact, with the
    exception's first line under ``details["<error>"]``."""
    truth_path = truth_path or Path(str(model_path)[: -len(".onnx")] + ".truth.json")
    try:
        inferred = ENGINES[engine](model_path)
    except Exception as e:  # noqa: BLE001 - a peer that fails on a model is a result
        score = compare(model_path, truth_path, {})
        score.details["<error>"] = ("error", f"{type(e).__name__}: {str(e).strip()[:200]}")
        return score
    return compare(model_path, truth_path, inferred)


def corpus(directory: Path = EXPORTS) -> list[Path]:
    return sorted(directory.glob("*.onnx"))


# ---------------------------------------------------------------- floors.json


def scatter_not_valid(path: Path, truth: dict, report) -> list[str]:
    """Scatter nodes whose validity does not depend on index values (the model ran at every size,
    no input of the node has a data-dependent shape) that ``report`` does not call valid."""
    if truth.get("refused"):
        return []
    dd = set(truth.get("data_dependent", []))
    status = {n.name: n.status for n in report.nodes}
    model = onnx.load(str(path))
    return sorted(n.name for n in model.graph.node if n.op_type in ("ScatterND", "ScatterElements")
                  and not any(i in dd for i in n.input) and status.get(n.name) != "valid")


def update_floors(allow_lower: bool = False) -> dict:
    """Recount shapecheck and the peers on every export and rewrite floors.json.  A floor is never
    lowered unless ``allow_lower``: a lower count is a regression to fix, not a new floor."""
    from shapecheck.model.check import check_model

    path = EXPORTS / "floors.json"
    old = json.loads(path.read_text())["models"] if path.exists() else {}
    models = {}
    for onnx_path in corpus():
        stem = onnx_path.stem
        truth_path = EXPORTS / f"{stem}.truth.json"
        report = check_model(str(onnx_path))
        score = compare(onnx_path, truth_path, report.types)
        if score.wrong:
            raise SystemExit(f"{stem}: shapecheck has {score.wrong} wrong tensors; fix them before raising floors")
        prev = old.get(stem, {}).get("exact", 0)
        if score.exact < prev and not allow_lower:
            raise SystemExit(f"{stem}: shapecheck has {score.exact} exact tensors, below the floor {prev}")
        peers = {e: score_engine(e, onnx_path, truth_path).exact for e in ENGINES if e != "shapecheck"}
        models[stem] = {"exact": score.exact, "total": score.total, "peers": peers,
                        "scatter_not_valid": scatter_not_valid(onnx_path, load_truth(truth_path), report)}
        print(f"{stem}: {score.line()}; peers {peers}")
    doc = ("Per export: shapecheck's exact tensor count today (the floor tests/test_wholegraph.py "
           "holds it to), the total, the peers' exact counts (onnx infer_shapes data_prop, onnxruntime "
           "SymbolicShapeInference auto_merge, onnx-shape-inference; 0 where it fails), and the scatter nodes that should be "
           "valid but are not today. Rewritten by: python -m tests.harness.wholegraph --update-floors")
    path.write_text(json.dumps({"doc": doc, "models": models}, indent=1) + "\n")
    return models


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Score shapecheck and the peers on the export corpus.")
    ap.add_argument("--update-floors", action="store_true", help="rewrite tests/fixtures/exports/floors.json")
    ap.add_argument("--allow-lower", action="store_true", help="let --update-floors lower a floor")
    args = ap.parse_args()
    if args.update_floors:
        update_floors(args.allow_lower)
    else:
        for p in corpus():
            print(p.stem, "; ".join(f"{e}: {score_engine(e, p).line()}" for e in ENGINES))
