#!/usr/bin/env python3
"""Build the shipped example models: ``python examples/make_examples.py [OUTDIR]``.

* kv_cache.onnx       ScatterND writing one new token into a KV cache, dims batch/max_len/hidden symbolic
* histogram.onnx      ScatterElements with reduction="add" counting values into bins
* subgraph.onnx       an If whose branches scatter with ScatterND and ScatterElements
* broken.onnx         the mistakes shapecheck exists to catch (shown in the README)
* positions.onnx      token and position embeddings: a position table of 64 rows bounds seq (the README's domain)
* pinned.onnx         a Linear over the time axis: runs only at seq == 32, though seq is declared dynamic
* scatter_update.xml  OpenVINO IR with ScatterElementsUpdate-3 (+ .bin holding the axis constant)
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

import onnx
from onnx import TensorProto as T
from onnx import helper


def _model(nodes, name, inputs, outputs, opset, initializers=(), value_info=()):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="shapecheck-examples")
    m.ir_version = 8
    return m


def kv_cache() -> onnx.ModelProto:
    # cache[b, pos[b], :] = new[b, 0, :] -- indices are (batch, position) pairs, k = 2 < rank 3
    nodes = [helper.make_node("ScatterND", ["cache", "positions", "new_kv"], ["cache_out"], name="kv_update")]
    return _model(nodes, "kv_cache", [
        helper.make_tensor_value_info("cache", T.FLOAT, ["batch", "max_len", "hidden"]),
        helper.make_tensor_value_info("positions", T.INT64, ["batch", 1, 2]),
        helper.make_tensor_value_info("new_kv", T.FLOAT, ["batch", 1, "hidden"]),
    ], [helper.make_tensor_value_info("cache_out", T.FLOAT, ["batch", "max_len", "hidden"])], 18)


def histogram() -> onnx.ModelProto:
    nodes = [
        helper.make_node("ConstantOfShape", ["bins_shape"], ["zeros"], name="zeros",
                         value=helper.make_tensor("v", T.FLOAT, [1], [0.0])),
        helper.make_node("ScatterElements", ["zeros", "bin_of", "weights"], ["hist"], name="count", axis=0,
                         reduction="add"),
    ]
    return _model(nodes, "histogram", [
        helper.make_tensor_value_info("bin_of", T.INT64, ["n"]),
        helper.make_tensor_value_info("weights", T.FLOAT, ["n"]),
    ], [helper.make_tensor_value_info("hist", T.FLOAT, [16])], 18,
        initializers=[helper.make_tensor("bins_shape", T.INT64, [1], [16])])


def subgraph() -> onnx.ModelProto:
    then_g = helper.make_graph(
        [helper.make_node("ScatterND", ["x", "rows", "row_vals"], ["then_out"], name="then_scatter")],
        "then", [], [helper.make_tensor_value_info("then_out", T.FLOAT, None)])
    else_g = helper.make_graph(
        [helper.make_node("ScatterElements", ["x", "cols", "col_vals"], ["else_out"], name="else_scatter", axis=1)],
        "else", [], [helper.make_tensor_value_info("else_out", T.FLOAT, None)])
    nodes = [helper.make_node("If", ["use_rows"], ["y"], name="choose", then_branch=then_g, else_branch=else_g)]
    return _model(nodes, "subgraph", [
        helper.make_tensor_value_info("use_rows", T.BOOL, []),
        helper.make_tensor_value_info("x", T.FLOAT, ["N", 8]),
        helper.make_tensor_value_info("rows", T.INT64, ["R", 1]),
        helper.make_tensor_value_info("row_vals", T.FLOAT, ["R", 8]),
        helper.make_tensor_value_info("cols", T.INT64, ["N", "K"]),
        helper.make_tensor_value_info("col_vals", T.FLOAT, ["N", "K"]),
    ], [helper.make_tensor_value_info("y", T.FLOAT, ["N", 8])], 16)


def broken() -> onnx.ModelProto:
    idx = helper.make_tensor("idx", T.INT64, [2, 1], [0, 5])
    nodes = [
        # updates should be [2,4,4]: the page's formula data.shape[k:r-1] gives this wrong [2,4]
        helper.make_node("ScatterND", ["data", "idx", "upd"], ["a"], name="wrong_updates"),
        # reduction "max" arrives in opset 18; this model imports opset 16
        helper.make_node("ScatterElements", ["a", "pos", "vals"], ["b"], name="max_at_16", axis=2,
                         reduction="max"),
        # C3 of ScatterElements: updates must have the shape of indices
        helper.make_node("ScatterElements", ["b", "pos", "short_vals"], ["c"], name="shape_mismatch", axis=2),
    ]
    return _model(nodes, "broken", [
        helper.make_tensor_value_info("data", T.FLOAT, [4, 4, 4]),
        helper.make_tensor_value_info("upd", T.FLOAT, [2, 4]),
        helper.make_tensor_value_info("pos", T.INT64, [4, 4, "P"]),
        helper.make_tensor_value_info("vals", T.FLOAT, [4, 4, "P"]),
        helper.make_tensor_value_info("short_vals", T.FLOAT, [3, 4, "P"]),
    ], [helper.make_tensor_value_info("c", T.FLOAT, [4, 4, 4])], 16, initializers=[idx])


def openvino_ir(out: Path) -> None:
    """The layer of shared/seeds/002 (data [1000,256,7,7], indices/updates [125,20,7,6], axis [0])."""
    axis = struct.pack("<q", 0)
    (out / "scatter_update.bin").write_bytes(axis)

    def port(pid, dims, precision=None):
        p = f' precision="{precision}"' if precision else ""
        return f'<port id="{pid}"{p}>' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"

    def param(lid, name, dims, et, prec):
        return (f'<layer id="{lid}" name="{name}" type="Parameter" version="opset1">'
                f'<data shape="{",".join(map(str, dims))}" element_type="{et}"/>'
                f"<output>{port(0, dims, prec)}</output></layer>")

    data, upd = [1000, 256, 7, 7], [125, 20, 7, 6]
    xml = f"""<?xml version="1.0"?>
<net name="scatter_update" version="11">
  <layers>
    {param(0, "data", data, "f32", "FP32")}
    {param(1, "indices", upd, "i32", "I32")}
    {param(2, "updates", upd, "f32", "FP32")}
    <layer id="3" name="axis" type="Const" version="opset1">
      <data element_type="i64" shape="1" offset="0" size="8"/>
      <output>{port(0, [1], "I64")}</output>
    </layer>
    <layer id="4" name="scatter" type="ScatterElementsUpdate" version="opset3">
      <input>{port(0, data)}{port(1, upd)}{port(2, upd)}{port(3, [1])}</input>
      <output>{port(4, data, "FP32")}</output>
    </layer>
    <layer id="5" name="result" type="Result" version="opset1">
      <input>{port(0, data)}</input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="4" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="4" to-port="1"/>
    <edge from-layer="2" from-port="0" to-layer="4" to-port="2"/>
    <edge from-layer="3" from-port="0" to-layer="4" to-port="3"/>
    <edge from-layer="4" from-port="4" to-layer="5" to-port="0"/>
  </edges>
</net>
"""
    (out / "scatter_update.xml").write_text(xml)



def _weights(name: str, *shape: int) -> onnx.TensorProto:
    import numpy as np
    values = np.random.default_rng(sum(map(ord, name))).normal(0, 0.1, size=shape).astype(np.float32)
    return onnx.numpy_helper.from_array(values, name)


def positions() -> onnx.ModelProto:
    """GPT-2's embeddings: tokens by id, positions by Range(0, seq) into a table of 64 rows."""
    nodes = [
        helper.make_node("Shape", ["input_ids"], ["ids_shape"], name="shape"),
        helper.make_node("Gather", ["ids_shape", "one"], ["seq_len"], name="seq_len", axis=0),
        helper.make_node("Range", ["zero", "seq_len", "one"], ["position_ids"], name="positions"),
        helper.make_node("Gather", ["wte", "input_ids"], ["tokens"], name="token_embedding"),
        helper.make_node("Gather", ["wpe", "position_ids"], ["places"], name="position_embedding"),
        helper.make_node("Add", ["tokens", "places"], ["hidden"], name="embed"),
    ]
    return _model(nodes, "positions", [helper.make_tensor_value_info("input_ids", T.INT64, ["batch", "seq"])],
                  [helper.make_tensor_value_info("hidden", T.FLOAT, ["batch", "seq", 16])], 18,
                  initializers=[_weights("wte", 100, 16), _weights("wpe", 64, 16),
                                helper.make_tensor("zero", T.INT64, [], [0]), helper.make_tensor("one", T.INT64, [], [1])])


def pinned() -> onnx.ModelProto:
    """A Linear over the time axis, as torch exports x.transpose(1, 2) @ W for a W of 32x32."""
    nodes = [
        helper.make_node("Transpose", ["x"], ["x_t"], name="to_time_last", perm=[0, 2, 1]),
        helper.make_node("MatMul", ["x_t", "time.weight"], ["mixed"], name="time_mix"),
        helper.make_node("Transpose", ["mixed"], ["y"], name="back", perm=[0, 2, 1]),
    ]
    return _model(nodes, "pinned", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 8])],
                  [helper.make_tensor_value_info("y", T.FLOAT, ["batch", "seq", 8])], 18,
                  initializers=[_weights("time.weight", 32, 32)])


MODELS = {"kv_cache.onnx": kv_cache, "histogram.onnx": histogram, "subgraph.onnx": subgraph, "broken.onnx": broken,
          "positions.onnx": positions, "pinned.onnx": pinned}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, build in MODELS.items():
        onnx.save(build(), str(out / name))
    openvino_ir(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
