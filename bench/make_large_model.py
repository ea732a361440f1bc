"""Build a large, deterministic ONNX model of chained scatter nodes (for bench/bench_check.py).

    python bench/make_large_model.py [--nodes 10000] [--pool 200] [-o model.onnx]

The model has one data input ``data: float[batch,seq,hidden]`` and ``--nodes`` scatter nodes,
each consuming the previous node's output (so the graph is one chain, as deep as it is long).
Node ``i`` is of kind ``i % 8``:

====  ===============  =========================================================  ===============
kind  op               indices / updates                                          shapecheck says
====  ===============  =========================================================  ===============
0     ScatterND        input ``int64[m_p,1]`` / input ``float[m_p,seq,hidden]``   valid
1     ScatterND        input ``int64[m_p,2]`` / input ``float[m_p,hidden]``       valid
2     ScatterND        constant ``int64[2,3]`` initializer / input ``float[2]``   ``batch >= ..``
3     ScatterElements  input ``int64[batch,seq,k_p]`` (axis 2 or -1) / same      valid
4     ScatterElements  input ``int64[k_p,seq,hidden]`` (axis 0) / same            valid
5     ScatterElements  constant ``int64[1,1,2]`` initializer (axis 2) / constant  ``hidden >= ..``
6     ScatterElements  input ``int64[batch,s_p,hidden]`` (axis 2) / same          ``s_p <= seq``
7     ScatterND        input ``int64[m_p,3]`` / input ``float[m_p]``               valid
====  ===============  =========================================================  ===============

``p = (i // 8) % pool`` picks one of ``--pool`` index/update input pairs per kind (their
dims ``m_p``, ``k_p``, ``s_p`` are distinct dim_params), so the model has about
``6 * pool`` graph inputs and a few hundred distinct node signatures; reductions cycle through
none/add/mul/max/min (opset 18).  Constant indices are small initializers (values < 8).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

REDUCTIONS = ("none", "add", "mul", "max", "min")
DEFAULT_DIR = Path("/tmp/shapecheck-bench")


def build(nodes: int = 10_000, pool: int = 200) -> onnx.ModelProto:
    inputs = [helper.make_tensor_value_info("data", T.FLOAT, ["batch", "seq", "hidden"])]
    inits: list[onnx.TensorProto] = []
    made: set[str] = set()
    graph_nodes = []

    def inp(name: str, elem: int, shape: list) -> str:
        if name not in made:
            made.add(name)
            inputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    def const(name: str, arr: np.ndarray) -> str:
        if name not in made:
            made.add(name)
            inits.append(numpy_helper.from_array(arr, name))
        return name

    prev = "data"
    for i in range(nodes):
        kind, p = i % 8, (i // 8) % pool
        red = REDUCTIONS[(i // 8) % len(REDUCTIONS)]
        out = f"t{i}" if i < nodes - 1 else "y"
        m, k, s = f"m{p}", f"k{p}", f"s{p}"
        attrs: dict = {}
        if kind == 0:
            op = "ScatterND"
            ins = [inp(f"nd1_idx{p}", T.INT64, [m, 1]), inp(f"nd1_upd{p}", T.FLOAT, [m, "seq", "hidden"])]
        elif kind == 1:
            op = "ScatterND"
            ins = [inp(f"nd2_idx{p}", T.INT64, [m, 2]), inp(f"nd2_upd{p}", T.FLOAT, [m, "hidden"])]
        elif kind == 2:
            op = "ScatterND"
            v = np.array([[p % 4, p % 8, (p * 3) % 8], [(p + 1) % 4, (p + 5) % 8, (p + 2) % 8]], np.int64)
            ins = [const(f"nd3_idx{p}", v), inp("nd3_upd", T.FLOAT, [2])]
        elif kind == 3:
            op = "ScatterElements"
            attrs["axis"] = 2 if p % 2 else -1
            ins = [inp(f"se1_idx{p}", T.INT64, ["batch", "seq", k]), inp(f"se1_upd{p}", T.FLOAT, ["batch", "seq", k])]
        elif kind == 4:
            op = "ScatterElements"
            attrs["axis"] = 0
            ins = [inp(f"se2_idx{p}", T.INT64, [k, "seq", "hidden"]), inp(f"se2_upd{p}", T.FLOAT, [k, "seq", "hidden"])]
        elif kind == 5:
            op = "ScatterElements"
            attrs["axis"] = 2
            ins = [const(f"se3_idx{p}", np.array([[[p % 8, (p + 3) % 8]]], np.int64)),
                   const("se3_upd", np.ones((1, 1, 2), np.float32))]
        elif kind == 6:
            op = "ScatterElements"
            attrs["axis"] = 2
            ins = [inp(f"se4_idx{p}", T.INT64, ["batch", s, "hidden"]), inp(f"se4_upd{p}", T.FLOAT, ["batch", s, "hidden"])]
        else:
            op = "ScatterND"
            ins = [inp(f"nd4_idx{p}", T.INT64, [m, 3]), inp(f"nd4_upd{p}", T.FLOAT, [m])]
        if red != "none":
            attrs["reduction"] = red
        graph_nodes.append(helper.make_node(op, [prev, *ins], [out], name=f"n{i}", **attrs))
        prev = out

    graph = helper.make_graph(graph_nodes, "chain", inputs,
                              [helper.make_tensor_value_info("y", T.FLOAT, ["batch", "seq", "hidden"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="shapecheck-bench")
    model.ir_version = 8
    return model


def path_for(nodes: int, pool: int = 200) -> Path:
    return DEFAULT_DIR / f"chain_{nodes}_p{pool}.onnx"


def ensure(nodes: int, pool: int = 200) -> Path:
    """The model file for ``nodes`` (built once, then reused)."""
    p = path_for(nodes, pool)
    if not p.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
        m = build(nodes, pool)
        onnx.checker.check_model(m)
        onnx.save(m, str(p))
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--pool", type=int, default=200, help="distinct index/update inputs per kind (default 200)")
    ap.add_argument("-o", "--output", help=f"where to write (default {DEFAULT_DIR}/chain_N_pP.onnx)")
    a = ap.parse_args(argv)
    m = build(a.nodes, a.pool)
    onnx.checker.check_model(m)
    out = Path(a.output) if a.output else path_for(a.nodes, a.pool)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(m, str(out))
    print(f"{out}: {len(m.graph.node)} nodes, {len(m.graph.input)} inputs, {len(m.graph.initializer)} initializers, "
          f"{out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
