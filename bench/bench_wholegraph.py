"""Whole-graph shape inference: shapecheck against its peers, on exactness, speed and memory.

    python bench/bench_wholegraph.py                          # corpus + 2k and 12k decoders (~3 min)
    python bench/bench_wholegraph.py --sizes 2000 12000 60000 # + the 60k-node decoders (issue 16)
    python bench/bench_wholegraph.py --no-corpus --engines shapecheck onnx

Not a test: run on demand.  Engines (``tests/harness/wholegraph.py``'s ``NATIVE``, value_info
stripped), each timed to its own answer, what its user gets (the shapes are read from it after):

* ``shapecheck``: ``check_model(path)``, a report;
* ``shapecheck-annotate``: ``annotate(path)``, the ModelProto with inferred value_info (not by default);
* ``onnx``: ``onnx.shape_inference.infer_shapes(model, data_prop=True)`` (C++), a ModelProto;
* ``ort-symbolic``: onnxruntime's ``SymbolicShapeInference.infer_shapes(model, auto_merge=True)``;
* ``onnx-shape-inference``: ``infer_symbolic_shapes`` on an onnx_ir model.

Models: the export corpus (tests/fixtures/exports/) and the coverage zoo (tests/fixtures/zoo/:
vision, speech, encoder-decoders, RNNs, MoE, einsum, masks), all files of each in one process
per engine, and
the stacked static-KV-cache decoders of bench/make_decoder.py, in both styles (``setitem`` ->
ScatterND, ``index_copy`` -> ScatterElements), one process per engine and model.  Each process
imports its engine, warms it up on examples/kv_cache.onnx and on a two-node model whose dim is
computed in the graph (``2*N``: modules a library imports on first use, as sympy imports its tensor
module on the first sum, load there); shapecheck also compiles the specs of the ops the timed models
use (``compile_specs``), which a check does on its first use of an op, as the peers load their op
handlers at import.  Then it times path -> answer (model load included, reading the shapes out and
scoring excluded; a full garbage collection after the warm-up, for every engine);
peak memory is the process's own peak resident set (``bench/peak.py``: VmHWM, imports included).  The machine's speed drifts by tens
of percent from one minute to the next: each engine runs the corpora ``--repeats`` times (3),
the engines taking turns, and each model's median time is kept.
Exactness is scored against onnxruntime's runs (tests/harness/wholegraph.py: exact / total, wrong).
Ratios are shapecheck / peer on nodes/s (above 1: shapecheck faster) and on peak memory.
Also times ``shapecheck --version``, ``shapecheck check`` on two small examples (checked without
sympy) and on a T5 export (which needs it), and an ``infer`` query, as subprocesses (process
start included); the peers on examples/kv_cache.onnx from a fresh process too (and ``import
onnx`` alone, what any onnx-based command pays before it reads a model); and counts, by op type, the nodes where shapecheck
first loses a dim (every input exact, an output not).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
ENGINES = ("shapecheck", "onnx", "ort-symbolic", "onnx-shape-inference", "shapecheck-annotate")
WARMUP = ROOT / "examples" / "kv_cache.onnx"


# ---------------------------------------------------------------- worker (one per subprocess)

def _arithmetic_warmup() -> str:
    """A two-node model in a temporary file, ``Concat(x, x)`` of ``float[N]``: its output dim
    ``2*N`` is computed, so a library that imports modules on its first sum does so here
    (sympy imports its tensor module, 60 ms, on the first ``Add``), not in the first timed model."""
    import onnx
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Concat", ["x", "x"], ["c"], axis=0),
                               helper.make_node("Relu", ["c"], ["y"])], "warmup", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = Path(tempfile.mkdtemp()) / "warmup.onnx"
    onnx.save(model, str(path))
    return str(path)


def compile_specs(paths: list[str]) -> float:
    """Compile the spec of every op the models use, as a check does on its first use of an op, once
    per process (the peers load every op handler at import); the seconds it took."""
    import onnx
    from shapecheck.registry import default_registry

    registry = default_registry()
    t0 = time.perf_counter()
    for path in paths:
        model = onnx.load(path, load_external_data=False)
        opsets = {imp.domain or "ai.onnx": imp.version for imp in model.opset_import}
        graphs = [model.graph]
        while graphs:
            g = graphs.pop()
            for n in g.node:
                graphs += [a.g for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]
                graphs += [sg for a in n.attribute if a.type == onnx.AttributeProto.GRAPHS for sg in a.graphs]
                try:
                    registry.resolve(n.op_type, opsets.get(n.domain or "ai.onnx", 0), n.domain or None)
                except Exception:  # noqa: BLE001 - an op without a spec goes to onnx's inference
                    pass
    return time.perf_counter() - t0


def worker(engine: str, paths: list[str]) -> None:
    """Time each model's ``engine`` answer (``wholegraph.NATIVE``: what its user gets; the shapes are
    read from it after the clock stops), in wall and CPU time; then this process's peak memory."""
    import onnx
    from peak import peak_rss_mb

    from tests.harness import wholegraph as wg

    native, shapes = wg.NATIVE[engine]
    compiled = None
    try:
        shapes(native(WARMUP))  # imports and one-time setup (spec files, registries) outside the timings
        shapes(native(_arithmetic_warmup()))   # a dim computed in the graph: modules imported on first use
        if engine.startswith("shapecheck"):
            # the specs of the timed models compiled, as a check compiles them on first use: the timings
            # leave that out as they leave out the peers' imports, and peak memory is what checking these
            # models costs (compiling all 653 specs would add 25 MB that no check of them needs)
            compiled = compile_specs(paths)
            import shapecheck.executor  # noqa: F401 - what folds a node with known inputs, with its kernels
    except Exception as e:  # noqa: BLE001 - the warm-up only loads the engine; a failure shows below
        print(f"warm-up: {type(e).__name__}: {e}", file=sys.stderr)
    # what the warm-up allocated is collected now, for every engine alike, so that no engine's
    # first timed model pays for a full collection over its own start-up objects
    gc.collect()
    for path in paths:
        truth_path = path[: -len(".onnx")] + ".truth.json"
        nodes = len(onnx.load(path, load_external_data=False).graph.node)
        error = None
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            answer = native(path)
        except Exception as e:  # noqa: BLE001 - a peer failing on a model is a result
            answer, error = None, f"{type(e).__name__}: {str(e).strip()[:160]}"
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        inferred = shapes(answer) if error is None else {}
        del answer
        score = wg.compare(path, truth_path, inferred)
        losses = wg.loss_points(onnx.load(path, load_external_data=False), score) if not error else Counter()
        print(json.dumps({"model": Path(path).stem, "nodes": nodes, "seconds": seconds, "cpu": cpu,
                          "exact": score.exact, "total": score.total, "wrong": score.wrong, "error": error,
                          "losses": dict(losses), "compiled_s": compiled,
                          "wrong_examples": [n for n, d in score.details.items() if d[0] == "wrong"][:3]}),
              flush=True)
    print(json.dumps({"maxrss_mb": peak_rss_mb()}), flush=True)


def spawn(engine: str, paths: list[Path], timeout: float) -> tuple[list[dict], float | None, str | None]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", engine, *map(str, paths)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)
    except subprocess.TimeoutExpired:
        return [], None, f"timeout after {timeout:.0f} s"
    rows, rss = [], None
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            if "maxrss_mb" in d:
                rss = d["maxrss_mb"]
            else:
                rows.append(d)
    err = None if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"
    return rows, rss, err


# ---------------------------------------------------------------- driver

def _rate(rows: list[dict]) -> float | None:
    ok = [r for r in rows if not r["error"]]
    secs = sum(r["seconds"] for r in ok)
    return sum(r["nodes"] for r in ok) / secs if ok and secs else None


def _fmt(v: float | None, spec: str = ",.0f") -> str:
    return "-" if v is None else format(v, spec)


def _runs(engines: list[str], paths: list[Path], timeout: float, repeats: int) -> dict:
    """Each engine run ``repeats`` times, each time in a new process, the engines taking turns
    (so that a slow spell of the machine falls on all of them); per model, the run of median
    time is kept, and the median peak memory."""
    runs: dict[str, list] = {e: [] for e in engines}
    for _ in range(repeats):
        for engine in engines:
            runs[engine].append(spawn(engine, paths, timeout))
    out = {}
    for engine, got in runs.items():
        rows0, _rss, err = got[0]
        rows = []
        for i, r in enumerate(rows0):
            same = sorted((g[0][i] for g in got if len(g[0]) > i and g[0][i]["model"] == r["model"]),
                          key=lambda x: x["seconds"])
            rows.append(same[len(same) // 2])
        rsses = sorted(g[1] for g in got if g[1] is not None)
        out[engine] = (rows, rsses[len(rsses) // 2] if rsses else None, err)
    return out


def bench(label: str, paths: list[Path], engines: list[str], timeout: float, repeats: int = 1) -> dict:
    """Run every engine on ``paths`` (one process per engine and repeat); print one line per engine
    and the ratios shapecheck / peer; return {engine: summary}."""
    out = {}
    nodes = sum(len(__import__("onnx").load(str(p), load_external_data=False).graph.node) for p in paths)
    times = f"; median of {repeats} runs, engines in turn" if repeats > 1 else ""
    print(f"\n## {label}  ({len(paths)} models, {nodes:,} nodes{times})")
    print(f"{'engine':22} {'nodes/s':>9} {'exact/total':>15} {'exact%':>7} {'wrong':>6} {'peak MB':>8}  notes")
    runs = _runs(engines, paths, timeout, repeats)
    for engine in engines:
        rows, rss, err = runs[engine]
        exact, total = sum(r["exact"] for r in rows), sum(r["total"] for r in rows)
        wrong = sum(r["wrong"] for r in rows)
        errors = [f"{r['model']}: {r['error']}" for r in rows if r["error"]]
        rate = _rate(rows)
        notes = "; ".join(([err] if err else []) + errors[:2] + ([f"+{len(errors) - 2} more"] if len(errors) > 2 else []))
        pct = 100.0 * exact / total if total else 0.0
        print(f"{engine:22} {_fmt(rate):>9} {f'{exact}/{total}':>15} {pct:>6.1f}% {wrong:>6} {_fmt(rss, '.0f'):>8}  {notes}")
        out[engine] = {"rate": rate, "exact": exact, "total": total, "wrong": wrong, "rss": rss, "rows": rows}
    sc = out.get("shapecheck")
    if sc:
        for engine, s in out.items():
            if engine == "shapecheck":
                continue
            speed = sc["rate"] / s["rate"] if sc["rate"] and s["rate"] else None
            mem = sc["rss"] / s["rss"] if sc["rss"] and s["rss"] else None
            print(f"   shapecheck/{engine}: speed {_fmt(speed, '.2f')}x, memory {_fmt(mem, '.2f')}x, "
                  f"exact {sc['exact'] - s['exact']:+d}")
    return out


def _per_model(res: dict, paths: list[Path], engines: list[str]) -> None:
    print(f"\n{'model (exact tensors)':26} {'nodes':>6} {'total':>6} " + " ".join(f"{e[:20]:>20}" for e in engines))
    by = {e: {r["model"]: r for r in res[e]["rows"]} for e in engines}
    for stem in (p.stem for p in paths):
        first = next((by[e][stem] for e in engines if stem in by[e]), None)
        if first:
            cells = [by[e][stem]["exact"] if stem in by[e] and not by[e][stem]["error"] else "fails" for e in engines]
            print(f"{stem:26} {first['nodes']:>6} {first['total']:>6} " + " ".join(f"{c:>20}" for c in cells))


# the same small model read and inferred from a fresh process by each peer, as a command would
CLI_PEERS = {
    "python -c 'import onnx'": "import onnx",
    "onnx infer_shapes (data_prop)": "import onnx, sys; onnx.shape_inference.infer_shapes(onnx.load(sys.argv[1]), "
                                     "data_prop=True)",
    "ORT symbolic (auto_merge)": "import onnx, sys; from onnxruntime.tools.symbolic_shape_infer import "
                                 "SymbolicShapeInference as S; S.infer_shapes(onnx.load(sys.argv[1]), auto_merge=True)",
    "onnx-shape-inference": "import sys, onnx_ir as ir; from onnx_shape_inference import infer_symbolic_shapes; "
                            "infer_symbolic_shapes(ir.load(sys.argv[1]), warn_on_missing=False)",
}


# where the timed commands keep their bytecode: a pip-installed package has its own, but a checkout
# (an editable install) in an environment that sets PYTHONDONTWRITEBYTECODE has none, and would
# compile each of its ~130 modules on every run (0.19 s of a CLI run on 2026-12-01)
PYCACHE = Path(tempfile.gettempdir()) / "shapecheck-bench" / "pycache"


def _median_run(cmd: list[str], repeat: int) -> tuple[float, int | None]:
    """The median wall time of ``repeat`` runs of ``cmd`` and its exit code; a Python command runs once
    untimed first, its bytecode cached under ``PYCACHE``, as an installed package has it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if cmd[0] == sys.executable:
        cmd = [cmd[0], "-X", f"pycache_prefix={PYCACHE}", *cmd[1:]]
        subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False, env=env)
    times, rc = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False, env=env).returncode
        times.append(time.perf_counter() - t0)
    return statistics.median(times), rc


def cli_times(repeat: int = 5) -> None:
    print(f"\n## CLI, process start included (median of {repeat})")
    for args in (["--version"], ["check", "examples/kv_cache.onnx"], ["check", "examples/broken.onnx"],
                 ["infer", "ScatterND", "-i", "data=float[N,4]", "-i", "indices=int64[M,1]", "-i", "updates=float[M,4]"],
                 ["check", "tests/fixtures/zoo/t5_ts17.onnx"]):
        seconds, rc = _median_run([sys.executable, "-m", "shapecheck.cli", *args], repeat)
        shown = " ".join(args) if len(args) < 4 else " ".join(args[:2]) + " (3 inputs)"
        print(f"shapecheck {shown:42} {seconds:.2f} s  (exit {rc})")
    # peers on examples/kv_cache.onnx, each against `shapecheck check` timed again beside it
    print(f"\n## examples/kv_cache.onnx from a fresh process: peers (median of {repeat}; ratio = peer / shapecheck)")
    ours, _ = _median_run([sys.executable, "-m", "shapecheck.cli", "check", "-q", str(WARMUP)], repeat)
    print(f"{'shapecheck check -q':32} {ours:.2f} s")
    for label, code in CLI_PEERS.items():
        seconds, rc = _median_run([sys.executable, "-c", code, str(WARMUP)], repeat)
        print(f"{label:32} {seconds:.2f} s  {seconds / ours:.2f}x" + (f"  (exit {rc})" if rc else ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[2000, 12000], help="decoder sizes in nodes")
    ap.add_argument("--styles", nargs="*", default=["setitem", "index_copy"])
    ap.add_argument("--engines", nargs="*", default=list(ENGINES[:4]), choices=ENGINES)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per engine process")
    ap.add_argument("--repeats", type=int, default=3,
                    help="runs per engine on the corpora (median per model); the decoders run once")
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1:])
        return 0
    from tests.harness import wholegraph as wg

    losses: dict[str, Counter] = {"corpus": Counter(), "decoders": Counter()}
    if not args.no_corpus:
        for label, paths in (("export corpus (tests/fixtures/exports)", wg.corpus()),
                             ("coverage zoo (tests/fixtures/zoo)", wg.corpus(ROOT / "tests" / "fixtures" / "zoo"))):
            res = bench(label, paths, args.engines, args.timeout, max(1, args.repeats))
            _per_model(res, paths, args.engines)
            if "shapecheck" in res:
                for r in res["shapecheck"]["rows"]:
                    losses["corpus"].update(r["losses"])
    if args.sizes:
        from make_decoder import build
        for style in args.styles:
            rows = []
            for n in args.sizes:
                res = bench(f"decoder, {style} style, ~{n} nodes", [build(style, n)], args.engines, args.timeout)
                rows += res.get("shapecheck", {}).get("rows", [])
            ok = [r for r in rows if not r["error"]]
            if len(ok) >= 2:
                a, b = ok[0], ok[-1]
                growth = (b["seconds"] / a["seconds"]) / (b["nodes"] / a["nodes"])
                print(f"\n   shapecheck growth, {style}, {a['nodes']:,} -> {b['nodes']:,} nodes: time x{b['seconds'] / a['seconds']:.1f} "
                      f"for nodes x{b['nodes'] / a['nodes']:.1f} (time per node x{growth:.2f}; 1.00 = linear)")
            for r in ok:
                losses["decoders"].update(r["losses"])
    for where, counter in losses.items():
        if counter:
            print(f"\n## where shapecheck loses dims, {where}: op of a node with every input exact and an output not")
            print(", ".join(f"{op} {n}" for op, n in counter.most_common(15)))
    cli_times()
    return 0


if __name__ == "__main__":
    sys.exit(main())
