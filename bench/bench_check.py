"""Time ``shapecheck.check_model`` on large chained-scatter models against onnx's and onnxruntime's inference.

    python bench/bench_check.py                      # 2,500 / 5,000 / 10,000 nodes, pool 200
    python bench/bench_check.py --distinct           # also the sizes with every node's signature distinct
    python bench/bench_check.py --profile            # + cProfile of a warm check of the largest model

Not a test: run on demand.  Models come from bench/make_large_model.py (built once under
/tmp/shapecheck-bench).  Every measurement runs in its own subprocess, so memory numbers and
caches do not leak from one to the next:

* shapecheck: import, model load, first ``check_model`` call (cold: spec files parsed and compiled,
  solver caches empty) and a second call on the same ModelProto (warm: process-level caches kept;
  the per-model solver cache starts empty each call), the process's own peak resident set (bench/peak.py); a second process
  measures the check's peak Python allocation with tracemalloc (which slows it, so it is not timed);
* ``onnx.shape_inference.infer_shapes(model, data_prop=True)``;
* onnxruntime's ``SymbolicShapeInference.infer_shapes(model, auto_merge=True)``, killed after
  ``--ort-timeout`` seconds (default 300).

Ratios are peer time / shapecheck time: above 1 means shapecheck is faster.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


# ---------------------------------------------------------------- workers (one per subprocess)

def _maxrss_mb() -> float:
    from peak import peak_rss_mb
    return peak_rss_mb()


def worker(kind: str, path: str) -> dict:
    t0 = time.perf_counter()
    import onnx
    if kind.startswith("shapecheck"):
        import shapecheck  # noqa: F401
    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    model = onnx.load(path)
    t_load = time.perf_counter() - t0
    res = {"kind": kind, "nodes": len(model.graph.node), "import_s": t_import, "load_s": t_load,
           "rss_before_mb": _maxrss_mb()}
    if kind == "shapecheck":
        from shapecheck.registry import default_registry
        t0 = time.perf_counter()
        rep = shapecheck.check_model(model, pause_gc=True)    # as the CLI runs it
        res["cold_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep = shapecheck.check_model(model, pause_gc=True)
        res["warm_s"] = time.perf_counter() - t0
        res["summary"] = rep.summary
        res["assumptions"] = len(rep.assumptions)
        res["y"] = str(rep.types["y"])
        res["exit_code"] = rep.exit_code
        # what loading the specs costs on its own (the cold call paid it once): build a fresh registry
        t0 = time.perf_counter()
        default_registry.__wrapped__()
        res["spec_load_s"] = time.perf_counter() - t0
    elif kind == "shapecheck-mem":
        import tracemalloc
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        rep = shapecheck.check_model(model, pause_gc=True)
        cur, peak = tracemalloc.get_traced_memory()
        res["tracemalloc_peak_mb"] = (peak - base) / 2**20
        res["tracemalloc_retained_mb"] = (cur - base) / 2**20
        del rep
    elif kind == "onnx":
        t0 = time.perf_counter()
        out = onnx.shape_inference.infer_shapes(model, data_prop=True)
        res["cold_s"] = time.perf_counter() - t0
        res["y"] = _onnx_type(out.graph.output[0])
    elif kind == "ort":
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
        t0 = time.perf_counter()
        out = SymbolicShapeInference.infer_shapes(model, auto_merge=True)
        res["cold_s"] = time.perf_counter() - t0
        res["y"] = _onnx_type(out.graph.output[0]) if out is not None else None
    else:
        raise SystemExit(f"unknown worker {kind}")
    res["maxrss_mb"] = _maxrss_mb()
    return res


def _onnx_type(vi) -> str:
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return "?"
    return "[" + ",".join(d.dim_param or (str(d.dim_value) if d.HasField("dim_value") else "?")
                          for d in tt.shape.dim) + "]"


def run_worker(kind: str, path: Path, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--worker", kind, str(path)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"kind": kind, "error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        return {"kind": kind, "error": f"exit {p.returncode}: {tail[:300]}", "wall_s": wall}
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res["wall_s"] = wall
    return res


# ---------------------------------------------------------------- profile

def profile(path: Path, top: int = 25) -> None:
    import cProfile
    import pstats

    import onnx

    import shapecheck
    model = onnx.load(str(path))
    shapecheck.check_model(model)            # warm the spec registry
    prof = cProfile.Profile()
    prof.enable()
    shapecheck.check_model(model)
    prof.disable()
    st = pstats.Stats(prof)
    print(f"\n== cProfile of a warm check_model({path.name}), top {top} by cumulative time")
    st.sort_stats("cumulative").print_stats(top)
    print(f"== top {top} by own time")
    st.sort_stats("tottime").print_stats(top)


# ---------------------------------------------------------------- driver

def _fmt_rate(n: int, s: float | None) -> str:
    return f"{n / s:,.0f}" if s else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", nargs=2, metavar=("KIND", "MODEL"), help=argparse.SUPPRESS)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2500, 5000, 10_000])
    ap.add_argument("--pool", type=int, default=200, help="distinct index inputs per node kind (make_large_model)")
    ap.add_argument("--distinct", action="store_true",
                    help="also every size with pool = nodes // 8: no two nodes share a signature, so no solver cache hits")
    ap.add_argument("--ort-timeout", type=float, default=300.0)
    ap.add_argument("--skip-ort", action="store_true")
    ap.add_argument("--profile", action="store_true", help="cProfile a warm check of the largest model")
    ap.add_argument("--json", metavar="FILE", help="also write the raw measurements here")
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(*a.worker)))
        return 0

    import make_large_model as mlm
    runs = [(n, a.pool) for n in a.sizes]
    if a.distinct:
        runs += [(n, n // 8) for n in a.sizes]
    rows = []
    for n, pool in runs:
        path = mlm.ensure(n, pool)
        print(f"-- {path.name}: {n} nodes, pool {pool}", flush=True)
        r = {"nodes": n, "pool": pool, "model": str(path)}
        r["shapecheck"] = run_worker("shapecheck", path, 3600)
        r["shapecheck_mem"] = run_worker("shapecheck-mem", path, 3600)
        r["onnx"] = run_worker("onnx", path, 3600)
        r["ort"] = {"kind": "ort", "error": "skipped"} if a.skip_ort else run_worker("ort", path, a.ort_timeout)
        for k in ("shapecheck", "shapecheck_mem", "onnx", "ort"):
            print(f"   {k}: {json.dumps(r[k])}", flush=True)
        rows.append(r)

    print("\n| nodes | pool | tool | seconds | nodes/s | peak RSS MB | peer s / ours cold | peer s / ours warm |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in rows:
        sc, n = r["shapecheck"], r["nodes"]
        cold, warm = sc.get("cold_s"), sc.get("warm_s")
        mem = r["shapecheck_mem"].get("tracemalloc_peak_mb")
        print(f"| {n} | {r['pool']} | shapecheck cold (first call, specs loaded) | {cold:.3f} | {_fmt_rate(n, cold)} | "
              f"{sc.get('maxrss_mb', 0):.0f} | | |")
        print(f"| {n} | {r['pool']} | shapecheck warm (second call) | {warm:.3f} | {_fmt_rate(n, warm)} | | | |")
        for k, label in (("onnx", "onnx infer_shapes(data_prop=True)"), ("ort", "ORT SymbolicShapeInference")):
            p = r[k]
            if "error" in p:
                print(f"| {n} | {r['pool']} | {label} | {p['error']} | | | | |")
                continue
            s = p["cold_s"]
            print(f"| {n} | {r['pool']} | {label} | {s:.3f} | {_fmt_rate(n, s)} | {p.get('maxrss_mb', 0):.0f} | "
                  f"{s / cold:.2f} | {s / warm:.2f} |")
        print(f"|   |   | shapecheck memory: tracemalloc peak {mem:.1f} MB during a cold check; RSS before the check "
              f"{sc.get('rss_before_mb', 0):.0f} MB, after {sc.get('maxrss_mb', 0):.0f} MB; "
              f"spec loading alone {sc.get('spec_load_s', float('nan')):.3f} s | | | | | | |")
    # scaling: time and memory per node across sizes, for the shared pool and for all-distinct models
    for label, same in (("pool %d" % a.pool, [r for r in rows if r["pool"] == a.pool]),
                        ("pool = nodes // 8", [r for r in rows if r["pool"] == r["nodes"] // 8 != a.pool])):
        same = [r for r in same if "warm_s" in r["shapecheck"]]
        if len(same) < 2:
            continue
        print(f"\nscaling ({label}): " + "; ".join(
            f"{r['nodes']} nodes: warm {1e6 * r['shapecheck']['warm_s'] / r['nodes']:.0f} us/node, "
            f"tracemalloc peak {1e3 * r['shapecheck_mem'].get('tracemalloc_peak_mb', 0) / r['nodes']:.1f} KB/node"
            for r in same))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    if a.profile:
        profile(mlm.ensure(max(a.sizes), a.pool))
        if a.distinct:
            profile(mlm.ensure(max(a.sizes), max(a.sizes) // 8))
    return 0


if __name__ == "__main__":
    sys.exit(main())
