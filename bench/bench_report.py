"""What the CLI costs over the engine on large decoders, and how long its report is.

    python bench/bench_report.py [--nodes 12000 60000] [--repeat 3]

For each decoder of ``bench/make_decoder.py`` (static KV cache, value_info stripped) it times, in
fresh processes: the engine alone (``check_model`` on the file, in a process that has imported what a check
imports), and ``shapecheck check FILE`` in each output format (text, json, sarif), counting the
lines the text format prints.  Reports the median of ``--repeat`` runs, the ratio CLI / engine
and the extra seconds, in wall time and in CPU time (which a busy machine disturbs less), and a
50,000-node graph whose every node reads its own output.
The targets (issue 26): CLI <= 1.3 x engine + 1 s, a valid model's text output <= 60 lines, the
self-reading graph within 10 s.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

# the engine in a process that has imported what a check imports (start-up, which the CLI's "+ 1 s"
# allows for) and nothing more: the specs the model needs are compiled inside the timing, as the CLI does
ENGINE = """
import sys, time, numpy, onnx, sympy, shapecheck, shapecheck.model
t, c = time.perf_counter(), time.process_time(); shapecheck.check_model(sys.argv[1])
print(time.perf_counter() - t, time.process_time() - c)
"""


def _engine(path: str) -> tuple[float, float]:
    """Wall and CPU seconds of the check alone (start-up excluded)."""
    out = subprocess.run([sys.executable, "-c", ENGINE, path], capture_output=True, text=True, check=True, cwd=ROOT)
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cli(path: str, fmt: str) -> tuple[float, float, int]:
    """Wall and CPU seconds of the whole command (start-up included), and the lines it printed."""
    t, c = time.perf_counter(), _children_cpu()
    p = subprocess.run([sys.executable, "-m", "shapecheck", "check", path, "--format", fmt, "--jobs", "1"],
                       capture_output=True, text=True, cwd=ROOT)
    return time.perf_counter() - t, _children_cpu() - c, len((p.stdout + p.stderr).splitlines())


def _self_reading(n: int, directory: Path) -> str:
    import onnx
    from onnx import TensorProto as T, helper
    nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i}"], name=f"n{i}") for i in range(n)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N"])],
                          [helper.make_tensor_value_info(f"t{n - 1}", T.FLOAT, None)])
    path = directory / f"self_reading_{n}.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    return str(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, nargs="*", default=[12000, 60000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    from make_decoder import DEFAULT_DIR, main as make
    make(["--nodes", *map(str, args.nodes), "--styles", "setitem"])
    for n in args.nodes:
        path = str(DEFAULT_DIR / f"decoder_setitem_{n}.onnx")
        engines = [_engine(path) for _ in range(args.repeat)]
        wall, cpu = (statistics.median(e[i] for e in engines) for i in (0, 1))
        print(f"decoder {n} nodes: engine (check_model) {wall:.2f} s wall, {cpu:.2f} s CPU")
        for fmt in ("text", "json", "sarif"):
            runs = [_cli(path, fmt) for _ in range(args.repeat)]
            w, c = (statistics.median(r[i] for r in runs) for i in (0, 1))
            print(f"  check --format {fmt:5s} wall {w:6.2f} s = {w / wall:.2f} x engine {w - wall:+.2f} s; "
                  f"CPU {c:6.2f} s = {c / cpu:.2f} x engine {c - cpu:+.2f} s; {runs[0][2]} lines printed")
    with tempfile.TemporaryDirectory() as d:
        path = _self_reading(50000, Path(d))
        w, c, lines = _cli(path, "text")
        print(f"50,000 nodes each reading its own output: check {w:.2f} s wall, {c:.2f} s CPU, {lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
