"""Large static-KV-cache decoder graphs for bench/bench_wholegraph.py, with ground truth.

    python bench/make_decoder.py [--nodes 2000 12000 60000] [--styles setitem index_copy] [-o DIR]

A decoder of ``--nodes`` nodes is built by stacking copies of one decoder layer as torch's
TorchScript exporter writes it (opset 17, from the committed corpus, so torch is not needed):

* ``setitem``: tests/fixtures/exports/kv_setitem_ts17.onnx, ``cache[:, :, pos] = k`` (ScatterND);
* ``index_copy``: tests/fixtures/exports/kv_index_copy_ts17.onnx, ``cache.index_copy_(2, pos, k)``
  (ScatterElements, plus the ScatterElements over ``Shape(cache)`` feeding an Expand).

Layer ``i`` reads the previous layer's ``y`` as its ``x``, the shared ``pos: int64[seq]`` and its
own caches ``cache_k<i>``, ``cache_v<i>: float[batch,2,16,16]``, and writes ``new_cache_k<i>``,
``new_cache_v<i>``; every other tensor and node name gets the prefix ``L<i>/``; the weights
(initializers) are shared by all layers.  value_info is empty.  The ground truth
(``<file>.truth.json``, the format of tests/fixtures/export_truth.py) comes from two onnxruntime
runs, ``(batch, seq) = (2, 5)`` and ``(3, 7)``.  Files are made once and reused.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
LAYERS = {"setitem": ROOT / "tests/fixtures/exports/kv_setitem_ts17.onnx",
          "index_copy": ROOT / "tests/fixtures/exports/kv_index_copy_ts17.onnx"}
DEFAULT_DIR = Path("/tmp/shapecheck-bench/decoder")
SIZES = (2000, 12000, 60000)
TRUTH_SIZES = ((2, 5), (3, 7))


def stack(layer: onnx.ModelProto, n_layers: int) -> onnx.ModelProto:
    g = layer.graph
    init_names = {t.name for t in g.initializer}
    x_in, pos_in = g.input[0], g.input[1]
    caches = [vi for vi in g.input[2:]]
    y_out, cache_outs = g.output[0], list(g.output[1:])
    inputs, outputs, nodes = [x_in, pos_in], [], []
    prev_y = x_in.name
    for i in range(n_layers):
        fixed = {x_in.name: prev_y, pos_in.name: pos_in.name}
        for vi in caches:
            name = vi.name.rstrip("0123456789") + str(i)
            fixed[vi.name] = name
            new = onnx.ValueInfoProto()
            new.CopyFrom(vi)
            new.name = name
            inputs.append(new)
        for vi in cache_outs:
            fixed[vi.name] = vi.name.rstrip("0123456789") + str(i)

        def rename(t: str, i: int = i, fixed: dict = fixed) -> str:
            if not t or t in init_names:
                return t
            return fixed.get(t, f"L{i}/{t}")

        for node in g.node:
            new = onnx.NodeProto()
            new.CopyFrom(node)
            new.name = f"L{i}/{node.name}"
            new.input[:] = [rename(t) for t in node.input]
            new.output[:] = [rename(t) for t in node.output]
            nodes.append(new)
        for vi in cache_outs:
            out = onnx.ValueInfoProto()
            out.CopyFrom(vi)
            out.name = fixed[vi.name]
            outputs.append(out)
        prev_y = rename(y_out.name)
    y = onnx.ValueInfoProto()
    y.CopyFrom(y_out)
    y.name = prev_y
    graph = helper.make_graph(nodes, f"decoder_{n_layers}", inputs, [y, *outputs], list(g.initializer))
    model = helper.make_model(graph, opset_imports=list(layer.opset_import), producer_name="bench/make_decoder.py")
    model.ir_version = layer.ir_version
    return model


def make_inputs_for(model: onnx.ModelProto):
    def make_inputs(batch: int, seq: int, rng: np.random.Generator) -> dict:
        feeds = {}
        for vi in model.graph.input:
            if vi.name == "pos":
                start = int(rng.integers(0, 16 - seq + 1))
                feeds["pos"] = np.arange(start, start + seq, dtype=np.int64)
                continue
            dims = [d.dim_value or {"batch": batch, "seq": seq}[d.dim_param] for d in vi.type.tensor_type.shape.dim]
            feeds[vi.name] = rng.standard_normal(dims).astype(np.float32)
        return feeds
    return make_inputs


def build(style: str, nodes: int, out_dir: Path = DEFAULT_DIR) -> Path:
    """The path of the ``style`` decoder of about ``nodes`` nodes, made (with its truth) if missing."""
    layer = onnx.load(str(LAYERS[style]))
    n_layers = max(1, math.ceil(nodes / len(layer.graph.node)))
    path = out_dir / f"decoder_{style}_{nodes}.onnx"
    truth_path = out_dir / f"decoder_{style}_{nodes}.truth.json"
    if path.exists() and truth_path.exists():
        return path
    from export_truth import truth

    out_dir.mkdir(parents=True, exist_ok=True)
    model = stack(layer, n_layers)
    onnx.checker.check_model(model)
    data = truth(model, make_inputs_for(model), sizes=TRUTH_SIZES)
    if data.get("refused"):
        raise SystemExit(f"{path.name}: onnxruntime refused a run: {data['refused'][0]['error']}")
    tmp = truth_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":")))
    tmp.replace(truth_path)
    tmp = path.with_suffix(".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(path)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--styles", nargs="*", default=list(LAYERS), choices=list(LAYERS))
    ap.add_argument("-o", "--out-dir", type=Path, default=DEFAULT_DIR)
    args = ap.parse_args(argv)
    for style in args.styles:
        for n in args.nodes:
            path = build(style, n, args.out_dir)
            print(path, len(onnx.load(str(path)).graph.node), "nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
