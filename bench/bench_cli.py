"""`shapecheck check DIR` on a directory of 50 generated models: one worker vs all cores.

    python bench/bench_cli.py [--models 50] [--nodes 400] [--repeat 3]

The models come from ``make_large_model.build`` (chained scatter nodes of eight kinds, each
model with its own node count so they are not copies of one another) and are written once to
a temporary directory.  Each configuration runs the installed CLI entry point in a fresh
process (``python -m shapecheck check DIR --quiet --jobs N``), as CI does, and the best of
``--repeat`` wall times is kept.  Prints both times and the speedup ratio.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_large_model import build  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def make_corpus(directory: Path, models: int, nodes: int) -> None:
    for i in range(models):
        onnx.save(build(nodes=nodes + 8 * (i % 7), pool=20 + i % 5), str(directory / f"model_{i:02d}.onnx"))


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(directory: Path, jobs: int, repeat: int) -> tuple[float, float, int]:
    """Best wall time, the CPU time (all processes) of that run, and the exit code."""
    best, cpu, code = float("inf"), 0.0, -1
    for _ in range(repeat):
        c0 = _children_cpu()
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "shapecheck", "check", str(directory), "--quiet", "--jobs", str(jobs)],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, _children_cpu() - c0
        code = p.returncode
        if code == 2:
            raise SystemExit(f"shapecheck check failed:\n{p.stdout}")
    return best, cpu, code


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=50)
    ap.add_argument("--nodes", type=int, default=400, help="nodes per model (default 400)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="shapecheck-bench-cli-") as tmp:
        d = Path(tmp)
        make_corpus(d, args.models, args.nodes)
        one, cpu1, code1 = timed(d, 1, args.repeat)
        many, cpu_n, code_n = timed(d, cores, args.repeat)
    assert code1 == code_n, "the exit code must not depend on the number of workers"
    print(f"{args.models} models of ~{args.nodes} nodes, best of {args.repeat}; load average {os.getloadavg()[0]:.1f}")
    print(f"--jobs 1:      {one:7.2f} s wall, {cpu1:7.2f} s CPU")
    print(f"--jobs {cores:<2d}     {many:7.2f} s wall, {cpu_n:7.2f} s CPU  (all {cores} cores)")
    print(f"speedup:       {one / many:7.2f}x  (wall time; only meaningful on an otherwise idle machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
