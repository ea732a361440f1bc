"""shapecheck against onnx's C++ shape inference on large decoders, and the CLI on small models.

    python bench/bench_decoders.py                          # 2k, 12k and 60k nodes, 3 rounds, the CLI (~8 min)
    python bench/bench_decoders.py --sizes 2000 --rounds 1 --no-cli

Not a test: run on demand.  The decoders are bench/make_decoder.py's (``setitem`` style: a
TorchScript-style layer with a static KV cache, stacked, value_info stripped).  In each round,
for each size, shapecheck's ``check_model`` runs beside onnx's ``infer_shapes(data_prop=True)``,
then ``annotate`` beside onnx again: two fresh processes at once, each pinned to a core of its
own (the cores swapped every other round; in turn on a one-core machine), so that a slow spell
of this machine, which moves a run by 20% or more, falls on both.  The workers are
bench_wholegraph's: the same warm-up, each timed from the model's path to its own answer (a
report, an annotated ModelProto, onnx's inferred ModelProto), model load included; shapecheck
compiles the specs of the model's ops in its warm-up, as a check does on first use and as the peer
has its op handlers from import.  Printed per size and round: the speed ratio (onnx's CPU time
over shapecheck's: above 1 shapecheck is faster; wall time beside it), the memory ratio
(shapecheck's peak resident set over onnx's, VmHWM, imports included) and each engine's exact
tensors against onnxruntime's runs; then the growth of the time per node from the smallest size
to the largest (1.00 is linear).

Then the CLI, process start included: ``shapecheck check -q`` on every model of at most 2,000
nodes in the export corpus and the zoo (median of ``--repeat`` runs each), the slowest named, and
``shapecheck --version`` and ``examples/kv_cache.onnx`` beside onnx's ``infer_shapes`` from a
fresh process.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import onnx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from bench_passes import pinned  # noqa: E402
from bench_wholegraph import CLI_PEERS, WARMUP, _median_run  # noqa: E402

PAIRS = (("shapecheck", "onnx"), ("shapecheck-annotate", "onnx"))
SMALL = 2000   # nodes: the CLI's small graphs (issue 28: each at most 0.5 s)


def _spawn(engine: str, path: Path, core: int | None) -> subprocess.Popen:
    """bench_wholegraph's worker for ``engine`` on one model, pinned to ``core`` where the machine lets it."""
    return pinned([sys.executable, str(ROOT / "bench" / "bench_wholegraph.py"), "--worker", engine, str(path)], core)


def _result(proc: subprocess.Popen) -> dict:
    import json
    out, err = proc.communicate(timeout=1800)
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if proc.returncode or len(rows) != 2 or rows[0]["error"]:
        raise SystemExit(f"a worker failed: {(rows[0]['error'] if rows and rows[0].get('error') else err.strip()[-500:])}")
    return {**rows[0], "rss": rows[1]["maxrss_mb"]}


def pair(engines: tuple[str, str], path: Path, k: int) -> tuple[dict, dict]:
    """Both engines on ``path`` at once, one per core (swapped when ``k`` is odd)."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        a = _result(_spawn(engines[0], path, None))
        return a, _result(_spawn(engines[1], path, None))
    c = cores[:2] if k % 2 == 0 else cores[1::-1]
    procs = [_spawn(e, path, core) for e, core in zip(engines, c)]
    return _result(procs[0]), _result(procs[1])


def decoders(sizes: list[int], rounds: int) -> None:
    from make_decoder import build
    paths = {n: build("setitem", n) for n in sizes}
    seconds: dict[tuple[str, int], list[float]] = {}
    for ours, peer in PAIRS:
        print(f"\n## {ours} / {peer} on the setitem decoders ({rounds} rounds, side by side, one core each)")
        print(f"{'nodes':>7} {'round':>5} {'speed (CPU)':>11} {'(wall)':>7} {'memory':>7} {'ours s':>7} {'onnx s':>7} "
              f"{'ours MB':>8} {'onnx MB':>8} {'exact ours':>11} {'exact onnx':>11}")
        verdicts = []
        for n, path in paths.items():
            nodes = len(onnx.load(str(path), load_external_data=False).graph.node)
            fast = lean = 0
            for k in range(rounds):
                a, b = pair((ours, peer), path, k)
                seconds.setdefault((ours, n), []).append(a["cpu"])
                fast += b["cpu"] >= a["cpu"]
                lean += a["rss"] <= b["rss"]
                print(f"{nodes:>7,} {k + 1:>5} {b['cpu'] / a['cpu']:>10.2f}x {b['seconds'] / a['seconds']:>6.2f}x "
                      f"{a['rss'] / b['rss']:>6.2f}x {a['cpu']:>7.3f} {b['cpu']:>7.3f} {a['rss']:>8.0f} {b['rss']:>8.0f} "
                      f"{a['exact']:>5}/{a['total']:<5} {b['exact']:>5}/{b['total']:<5}")
            verdicts.append(f"{nodes:,} nodes: at least 1.0x the speed in {fast} of {rounds} rounds, "
                            f"at most 1.0x the memory in {lean} of {rounds}")
        print("   " + "; ".join(verdicts))
        if len(sizes) >= 2:
            lo, hi = min(sizes), max(sizes)
            n_lo = len(onnx.load(str(paths[lo]), load_external_data=False).graph.node)
            n_hi = len(onnx.load(str(paths[hi]), load_external_data=False).graph.node)
            per = [(b / n_hi) / (a / n_lo) for a, b in zip(seconds[(ours, lo)], seconds[(ours, hi)])]
            print(f"   {ours}: time per node grows x{statistics.median(per):.2f} from {n_lo:,} to {n_hi:,} nodes "
                  f"(each round: {', '.join(f'x{g:.2f}' for g in per)}; 1.00 = linear)")


def small_models() -> list[tuple[Path, int]]:
    """Every model of the export corpus and the zoo with at most ``SMALL`` nodes, with its node count."""
    out = []
    for d in ("exports", "zoo"):
        for p in sorted((ROOT / "tests" / "fixtures" / d).glob("*.onnx")):
            n = len(onnx.load(str(p), load_external_data=False).graph.node)
            if n <= SMALL:
                out.append((p, n))
    return out


def cli(repeat: int) -> None:
    models = small_models()
    print(f"\n## the CLI on {len(models)} models of at most {SMALL:,} nodes (exports and zoo; "
          f"`shapecheck check -q`, process start included, median of {repeat})")
    times = []
    for path, n in models:
        t, rc = _median_run([sys.executable, "-m", "shapecheck.cli", "check", "-q", str(path)], repeat)
        times.append((t, path.stem, n, rc))
    times.sort(reverse=True)
    over = [x for x in times if x[0] > 0.5]
    print(f"slowest: {', '.join(f'{s} ({n} nodes) {t:.2f} s' for t, s, n, _rc in times[:5])}")
    print(f"median {statistics.median(t for t, *_ in times):.2f} s; {len(over)} of {len(times)} over 0.5 s")
    for args in (["--version"], ["check", "-q", str(WARMUP)]):
        t, _rc = _median_run([sys.executable, "-m", "shapecheck.cli", *args], repeat)
        print(f"shapecheck {' '.join(args[:1] + [Path(a).name for a in args[1:]]):28} {t:.2f} s")
    for label in ("onnx infer_shapes (data_prop)", "python -c 'import onnx'"):
        t, _rc = _median_run([sys.executable, "-c", CLI_PEERS[label], str(WARMUP)], repeat)
        print(f"{label:39} {t:.2f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[2000, 12000, 60000], help="decoder sizes in nodes")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each CLI command (median)")
    ap.add_argument("--no-cli", action="store_true")
    args = ap.parse_args(argv)
    if args.sizes:
        decoders(args.sizes, args.rounds)
    if not args.no_cli:
        cli(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
