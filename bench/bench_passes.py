"""The onnx_ir shape pass against onnx-shape-inference, on the same onnx_ir models.

    python bench/bench_passes.py                    # export corpus + the 12k-node decoder (~1 min)
    python bench/bench_passes.py --repeats 5 --decoder-nodes 2000 12000 --zoo

Not a test: run on demand (needs onnx-shape-inference: ``python -m pip install ".[test]"``).
Engines, each an in-place pass over an ``onnx_ir.Model``:

* ``shapecheck``: ``shapecheck.passes.infer_shapes(model)``;
* ``onnx-shape-inference``: ``onnx_shape_inference.infer_symbolic_shapes(model, warn_on_missing=False)``.

Models: the export corpus (tests/fixtures/exports/) and the static-KV-cache decoder of
bench/make_decoder.py (``setitem`` style, ~12k nodes), value_info stripped as
bench_wholegraph.py strips it, so that both engines infer every value rather than keep a
declaration.  The bench runs in rounds (``--repeats``, 3): in each, both engines run at the
same time, each in a fresh process pinned to a core of its own (the cores swapped every other
round), so that a slow spell of the machine, which moves a run by 20% here, falls on both; on a
one-core machine they take turns.  Each process imports its engine, warms it up on
examples/kv_cache.onnx (shapecheck also compiles every spec then and imports the kernels it folds
constant nodes with, as the peer registers every op handler at import) and on bench_wholegraph's
two-node model whose dim is computed (``2*N``), and collects garbage; then, per model, the IR model
is built from the stripped proto (not timed) and the pass is timed.  Each model's time is its
median over the rounds.  The ratio is shapecheck's nodes/s over the peer's: above 1, shapecheck's
pass is faster; the ratio of each round is printed too.  Both clocks are reported: the process's
CPU time and wall time.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
ENGINES = ("shapecheck", "onnx-shape-inference")
WARMUP = ROOT / "examples" / "kv_cache.onnx"


def _pass(engine: str):
    if engine == "shapecheck":
        from shapecheck.passes import infer_shapes
        from shapecheck.registry import default_registry
        default_registry().load_all()
        import shapecheck.executor  # noqa: F401 - folding a node with known inputs runs its kernels; the peer imports its folding with it
        return infer_shapes
    from onnx_shape_inference import infer_symbolic_shapes
    return lambda model: infer_symbolic_shapes(model, warn_on_missing=False)


def _stripped(path: str):
    """The model as onnx_ir holds it, value_info stripped."""
    import onnx
    import onnx_ir as ir
    proto = onnx.load(path)
    del proto.graph.value_info[:]
    return ir.serde.deserialize_model(proto)


def worker(engine: str, paths: list[str]) -> None:
    """One process: warm up, then print one JSON line per model with the pass's seconds."""
    from bench_wholegraph import _arithmetic_warmup
    run = _pass(engine)
    run(_stripped(str(WARMUP)))
    run(_stripped(_arithmetic_warmup()))   # modules a library imports on its first sum (sympy's), as bench_wholegraph
    gc.collect()
    for path in paths:
        model = _stripped(path)
        nodes = sum(1 for _ in model.graph.all_nodes())
        t0, c0 = time.perf_counter(), time.process_time()
        run(model)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(json.dumps({"model": Path(path).stem, "nodes": nodes, "seconds": seconds, "cpu": cpu}), flush=True)


def _spawn(engine: str, paths: list[Path], core: int | None = None) -> subprocess.Popen:
    """A worker process for ``engine``, pinned to ``core`` where the machine lets it."""
    return pinned([sys.executable, str(Path(__file__).resolve()), "--worker", engine, *map(str, paths)], core)


def pinned(cmd: list[str], core: int | None) -> subprocess.Popen:
    """``cmd`` started, its output piped, pinned to ``core`` where the machine lets it."""
    pin = None
    if core is not None and hasattr(os, "sched_setaffinity") and core in os.sched_getaffinity(0):
        def pin() -> None:
            os.sched_setaffinity(0, {core})
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=pin)


def _results(engine: str, proc: subprocess.Popen) -> list[dict]:
    out, err = proc.communicate(timeout=1800)
    if proc.returncode:
        raise SystemExit(f"{engine} failed: {err.strip()[-500:]}")
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _round(paths: list[Path], k: int) -> dict[str, list[dict]]:
    """One round: both engines at once, one per core (the cores swapped every other round), so that
    a slow spell of the machine falls on both; on a one-core machine, in turn."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        return {e: _results(e, _spawn(e, paths)) for e in ENGINES}
    pair = cores[:2] if k % 2 == 0 else cores[1::-1]
    procs = {e: _spawn(e, paths, c) for e, c in zip(ENGINES, pair)}
    return {e: _results(e, p) for e, p in procs.items()}


def bench(label: str, paths: list[Path], repeats: int) -> dict[str, float]:
    """Per engine, nodes/s over ``paths`` from the median time of each model, in CPU time and in wall
    time; prints the ratios."""
    runs: dict[str, list[list[dict]]] = {e: [] for e in ENGINES}
    for k in range(repeats):
        for engine, got in _round(paths, k).items():
            runs[engine].append(got)
    rates: dict[str, dict[str, float]] = {}
    print(f"\n## {label} ({len(paths)} models; median of {repeats} rounds, each engine a fresh process per round)")
    for engine, got in runs.items():
        nodes = sum(r["nodes"] for r in got[0])
        rates[engine] = {}
        for clock in ("cpu", "seconds"):
            seconds = sum(statistics.median(run[i][clock] for run in got) for i in range(len(got[0])))
            rates[engine][clock] = nodes / seconds
        print(f"{engine:22} {nodes:>7,} nodes   CPU {nodes / rates[engine]['cpu']:7.3f} s "
              f"{rates[engine]['cpu']:>8,.0f} nodes/s   wall {nodes / rates[engine]['seconds']:7.3f} s "
              f"{rates[engine]['seconds']:>8,.0f} nodes/s")
    cpu = rates["shapecheck"]["cpu"] / rates["onnx-shape-inference"]["cpu"]
    wall = rates["shapecheck"]["seconds"] / rates["onnx-shape-inference"]["seconds"]
    print(f"   shapecheck / onnx-shape-inference: {cpu:.2f}x the speed in CPU time ({wall:.2f}x in wall time)")
    per_round = sorted(sum(r["cpu"] for r in b) / sum(r["cpu"] for r in a)
                       for a, b in zip(runs["shapecheck"], runs["onnx-shape-inference"]))
    print(f"   per round (CPU time, the two engines side by side): {', '.join(f'{x:.2f}x' for x in per_round)}")
    return rates["shapecheck"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--decoder-nodes", type=int, nargs="*", default=[12000])
    ap.add_argument("--zoo", action="store_true", help="the coverage zoo (tests/fixtures/zoo) too")
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1:])
        return 0
    bench("export corpus (tests/fixtures/exports)", sorted((ROOT / "tests" / "fixtures" / "exports").glob("*.onnx")),
          args.repeats)
    if args.zoo:
        bench("coverage zoo (tests/fixtures/zoo)", sorted((ROOT / "tests" / "fixtures" / "zoo").glob("*.onnx")),
              args.repeats)
    from make_decoder import build
    for n in args.decoder_nodes:
        bench(f"decoder, setitem style, ~{n:,} nodes", [build("setitem", n)], args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
