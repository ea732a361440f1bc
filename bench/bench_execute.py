"""Benchmark: shapecheck.execute vs onnx.reference vs onnxruntime on large scatters.

Run on demand: ``python bench/bench_execute.py [--repeat N]``.  Prints median wall times and
the ratios ours/reference (target: reference >= 20x slower) and ours/onnxruntime (target <= 2x).
The execute path includes the solver's checks of every index value and the duplicate warning.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import shapecheck


def _model(op: str, shapes: dict, attrs: dict):
    node = helper.make_node(op, ["data", "indices", "updates"], ["y"], **attrs)
    code = {"data": TensorProto.FLOAT, "indices": TensorProto.INT64, "updates": TensorProto.FLOAT}
    ins = [helper.make_tensor_value_info(n, code[n], list(s)) for n, s in shapes.items()]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shapes["data"]))
    return helper.make_model(helper.make_graph([node], "g", ins, [out]), opset_imports=[helper.make_opsetid("", 18)],
                             ir_version=8)


def _median(fn, repeat: int) -> float:
    fn()  # warm up (and check it runs)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cases(rng: np.random.Generator):
    data = rng.standard_normal((1_000_000, 16)).astype(np.float32)
    idx = rng.choice(1_000_000, size=200_000, replace=False).reshape(-1, 1).astype(np.int64)
    upd = rng.standard_normal((200_000, 16)).astype(np.float32)
    for red in ("none", "add"):
        yield f"ScatterND [1M,16] k=1 200k rows {red}", "ScatterND", {"data": data, "indices": idx, "updates": upd}, \
            ({} if red == "none" else {"reduction": red})
    data = rng.standard_normal((2048, 2048)).astype(np.float32)
    idx = rng.integers(0, 2048, size=(2048, 512)).astype(np.int64)
    upd = rng.standard_normal((2048, 512)).astype(np.float32)
    yield "ScatterElements [2048,2048] axis 1 add", "ScatterElements", {"data": data, "indices": idx, "updates": upd}, \
        {"axis": 1, "reduction": "add"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for name, op, feeds, attrs in cases(rng):
        model = _model(op, {k: v.shape for k, v in feeds.items()}, attrs)
        # ours first: onnxruntime's worker threads spin for a while after each run and would
        # take the cores from our threads if we ran right after it
        t_ours = _median(lambda: shapecheck.execute(op, 18, feeds, attrs), args.repeat)
        ours_out = shapecheck.execute(op, 18, feeds, attrs)["output"]
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        ref = ReferenceEvaluator(model)
        np.testing.assert_allclose(ours_out, sess.run(None, feeds)[0], rtol=1e-5, atol=1e-5)
        t_ort = _median(lambda: sess.run(None, feeds), args.repeat)
        t_ref = _median(lambda: ref.run(None, feeds), max(1, args.repeat // 2))
        rows.append((name, t_ours, t_ref, t_ort))
    print(f"{'case':42s} {'ours ms':>9s} {'ref ms':>9s} {'ORT ms':>9s} {'ref/ours':>9s} {'ours/ORT':>9s}")
    for name, a, b, c in rows:
        print(f"{name:42s} {a * 1e3:9.1f} {b * 1e3:9.1f} {c * 1e3:9.1f} {b / a:9.1f}x {a / c:8.2f}x")


if __name__ == "__main__":
    main()
