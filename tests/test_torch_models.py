"""Models exported by PyTorch (tests/fixtures/torch/, made by tests/fixtures/make_torch_models.py).

torch is not needed: these tests read the committed .onnx files.  For each export they
pin down which scatter nodes torch's TorchScript exporter (torch 2.13, ``dynamo=False``)
produced, what shapecheck says about them, the output types in the exporter's dim_param
names, and the exit codes.  Every condition shapecheck leaves is then *justified*: the
model is run by onnxruntime at two sets of concrete dims with the tensors the condition
names exposed as outputs, and the condition is evaluated on the shapes that come out.

Two exporter defects found while writing them are pinned down too:

* ``scatter_reduce`` declares its graph output ``y`` with rank 1 (``float[n]``), while the
  model returns ``[n,3]`` (onnxruntime warns "Expected shape from model of {-1} does not
  match actual shape of {4,3}").  The exporter wraps the scatter in two ``If`` nodes (for
  rank-0 inputs) whose branches disagree in rank, so onnx's inference gives up on the ``If``
  outputs; shapecheck folds the condition (it depends only on x's rank), follows the branch
  taken, and reports the declaration as a contradiction.
* ``index_put_(..., accumulate=True)`` becomes ``ScatterND`` with no reduction into zeros,
  plus ``Add``: with a repeated index the exported model keeps one update instead of
  adding both.  With constant indices shapecheck warns (ScatterND's W1, "two index tuples
  are equal"), though data's dims are symbolic.

"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

import shapecheck
from shapecheck.cli import main

FIX = Path(__file__).resolve().parent / "fixtures" / "torch"



def _scatter(nodes):
    """The scatter-family nodes of a report (the shape-computation nodes around them are checked too)."""
    return [n for n in nodes if n.op_type.startswith("Scatter")]

def _n(name, op, spec, status, output, conditions=(), attrs=None):
    return {"name": name, "op": op, "spec": spec, "status": status, "output": output,
            "conditions": list(conditions), "attrs": attrs or {}}


# ScatterElements C1-C5 with data, indices and updates of unknown rank (the lets r and a expanded)
_UNKNOWN_RANK_CONDITIONS = [
    "rank(data) >= 1", "rank(indices) == rank(data)", "updates.shape == indices.shape",
    "-rank(data) <= axis <= rank(data) - 1",
    "all(indices.shape[d] <= data.shape[d] for d in range(rank(data)) if d != (axis + rank(data) if axis < 0 else axis))",
]

# file -> opset, the scatter nodes (in graph order), other nodes skipped, what y is, exit codes
EXPECTED = {
    # x[idx] = v: Unsqueeze(idx, -1) -> indices [m,1]; v reshaped to [m] ++ x.shape[1:] = [m,3]
    "index_assign": dict(opset=18, skipped=6, y="float[n,3]", exit=0, strict_exit=0, nodes=[
        _n("/ScatterND", "ScatterND", "ScatterND-18", "valid", "float[n,3]")]),
    # accumulate=True at opset 16: ScatterND *without* reduction into ConstantOfShape(Shape(x)), then Add(x, .)
    "index_put_accumulate": dict(opset=16, skipped=9, y="float[n,3]", exit=0, strict_exit=0, nodes=[
        _n("/ScatterND", "ScatterND", "ScatterND-16", "valid", "float[n,3]")]),
    # the same with a constant idx [0, 2, 0] (an initializer [[0],[2],[0]]): index 2 needs n >= 3 (C8)
    "index_put_accumulate_const": dict(opset=18, skipped=7, y="float[n,3]", exit=0, strict_exit=1, nodes=[
        _n("/ScatterND", "ScatterND", "ScatterND-18", "conditional", "float[n,3]", ["n >= 3"])]),
    # x.scatter(1, idx, src) at opset 13: one node, straight from the graph inputs
    "scatter": dict(opset=13, skipped=0, y="float[batch,n]", exit=0, strict_exit=0, nodes=[
        _n("/ScatterElements", "ScatterElements", "ScatterElements-13", "valid", "float[batch,n]",
           attrs={"axis": 1})]),
    # scatter_add: updates = Slice(src, [0,0], Shape(idx)); onnx's inference leaves the slice [?,?];
    # the Slice spec reads ends = shape(idx) = [batch,k] = shape(src), so the slice is [batch,k]: valid
    "scatter_add": dict(opset=18, skipped=2, y="float[batch,n]", exit=0, strict_exit=0, nodes=[
        _n("/ScatterElements", "ScatterElements", "ScatterElements-18", "valid", "float[batch,n]",
           attrs={"axis": 1, "reduction": "add"})]),
    # scatter_reduce: If(rank(x) == 0) reshapes the inputs to 1-D, else Identity.  The condition
    # Equal(Size(Shape(x)), 0) depends only on x's rank (2), so shapecheck folds it, takes the else
    # branch, and the scatter is valid on x, idx, src themselves.  y is then [n,3] (resp. [batch,n]),
    # which contradicts torch's declared rank-1 graph output: exit 1
    "scatter_reduce_amax": dict(opset=18, skipped=13, y="float[n,3]", declared_y="float[n]", exit=1, strict_exit=1, nodes=[
        _n("/ScatterElements", "ScatterElements", "ScatterElements-18", "valid", "float[n,3]",
           attrs={"axis": 0, "reduction": "max"})]),
    "scatter_reduce_sum": dict(opset=18, skipped=13, y="float[batch,n]", declared_y="float[batch]", exit=1, strict_exit=1, nodes=[
        _n("/ScatterElements", "ScatterElements", "ScatterElements-18", "valid", "float[batch,n]",
           attrs={"axis": 1, "reduction": "add"})]),
    # cache[:, pos] = new: indices = Concat(Range(batch) as [batch,1,1], pos as [batch,1,1]) = [batch,1,2];
    # the specs keep Range's length (batch) through Unsqueeze/Expand/Concat and Reshape's target
    # [batch,1,2,4] through Shape/Slice/Concat: indices [batch,1,2], updates [batch,1,2,4], valid
    "kv_cache": dict(opset=18, skipped=30, y="float[batch,seq,2,4]", exit=0, strict_exit=0, nodes=[
        _n("/ScatterND", "ScatterND", "ScatterND-18", "valid", "float[batch,seq,2,4]", [])]),
    # cache[:, pos] = new with pos [n_new]: indices = Range(batch)[:,None] + pos -> [batch,n_new,2]
    # with every shape-computation op a spec, both are exact and the node is valid
    "kv_cache_window": dict(opset=18, skipped=26, y="float[batch,seq,2,4]", exit=0, strict_exit=0, nodes=[
        _n("/ScatterND", "ScatterND", "ScatterND-18", "valid", "float[batch,seq,2,4]", [])]),
}

# Two concrete instances per fixture, for onnxruntime: dim_param -> size, plus index inputs in range
INSTANCES = {
    "index_assign": [dict(n=5, m=2), dict(n=9, m=4)],
    "index_put_accumulate": [dict(n=5, m=3), dict(n=7, m=1)],
    "index_put_accumulate_const": [dict(n=3), dict(n=8)],
    "scatter": [dict(batch=2, n=5, k=2), dict(batch=3, n=7, k=4)],
    "scatter_add": [dict(batch=2, n=5, k=3), dict(batch=4, n=6, k=6)],
    "scatter_reduce_amax": [dict(n=4, m=2), dict(n=6, m=5)],
    "scatter_reduce_sum": [dict(batch=2, n=5, k=3), dict(batch=3, n=4, k=2)],
    "kv_cache": [dict(batch=2, seq=6), dict(batch=3, seq=9)],
    "kv_cache_window": [dict(batch=2, seq=6, n_new=2), dict(batch=1, seq=8, n_new=5)],
}

# The same files, opened once
_REPORTS: dict[str, shapecheck.model.ModelReport] = {}


def report(name: str):
    if name not in _REPORTS:
        _REPORTS[name] = shapecheck.check_model(str(FIX / f"{name}.onnx"))
    return _REPORTS[name]


def _attrs(node) -> dict:
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def _feeds(model, dims: dict[str, int], seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs of the given dims; index inputs are drawn inside the dim they index."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for i in model.graph.input:
        shape = [d.dim_value if d.HasField("dim_value") else dims[d.dim_param] for d in i.type.tensor_type.shape.dim]
        if i.type.tensor_type.elem_type == onnx.TensorProto.INT64:
            feeds[i.name] = None, shape
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
    # index inputs: idx indexes x's axis (scatter axis for ScatterElements, axis 0 for index_put), pos the seq axis
    for name, val in list(feeds.items()):
        if isinstance(val, tuple):
            shape = val[1]
            if name == "pos":
                bound = dims["seq"]
            else:
                node = next(n for n in model.graph.node if n.op_type in ("ScatterElements", "ScatterND"))
                axis = _attrs(node).get("axis", 0)
                bound = feeds["x"].shape[axis]
            feeds[name] = rng.integers(-bound, bound, size=shape).astype(np.int64)
    return feeds


def _run(name: str, dims: dict[str, int], extra: list[str] = ()) -> dict[str, np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    model = onnx.load(str(FIX / f"{name}.onnx"))
    for t in extra:
        model.graph.output.append(onnx.ValueInfoProto(name=t))
    opts = ort.SessionOptions()
    opts.log_severity_level = 3   # the scatter_reduce exports make onnxruntime warn about y's declared shape
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    outs = sess.run(None, _feeds(model, dims))
    return {o.name: v for o, v in zip(model.graph.output, outs)}


_SHAPE_REF = re.compile(r"(\S+?)\.shape\[(\d+)\]")


def _tensors_in(cond: str) -> list[str]:
    return [m.group(1) for m in _SHAPE_REF.finditer(cond)]


def _holds(cond: str, shapes: dict[str, tuple], dims: dict[str, int]) -> bool:
    expr = _SHAPE_REF.sub(lambda m: str(shapes[m.group(1)][int(m.group(2))]), cond)
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(dims[m.group(0)]), expr)
    assert re.fullmatch(r"[\d\s=<>!]+", expr), expr
    return bool(eval(expr))  # noqa: S307 -- digits and comparison operators only


# ---------------------------------------------------------------- the fixtures themselves

def test_every_fixture_is_listed_and_small():
    assert sorted(p.stem for p in FIX.glob("*.onnx")) == sorted(EXPECTED)
    for p in FIX.glob("*.onnx"):
        assert p.stat().st_size < 50_000, p
        onnx.checker.check_model(onnx.load(str(p)), full_check=True)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_exported_graph_has_the_expected_scatter_nodes(name):
    exp = EXPECTED[name]
    model = onnx.load(str(FIX / f"{name}.onnx"))
    assert [(i.domain, i.version) for i in model.opset_import] == [("", exp["opset"])]
    assert model.producer_name == "pytorch"
    scatters = [n for n in model.graph.node if n.op_type.startswith("Scatter")]
    assert [(n.name, n.op_type) for n in scatters] == [(e["name"], e["op"]) for e in exp["nodes"]]
    for n, e in zip(scatters, exp["nodes"]):
        assert _attrs(n) == e["attrs"], name
    # no scatter hides inside the If branches either
    for n in model.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                assert not [s for s in a.g.node if s.op_type.startswith("Scatter")]


# ---------------------------------------------------------------- what shapecheck says

@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_model_reports_every_scatter_node(name):
    exp = EXPECTED[name]
    rep = report(name)
    got = [(n.name, n.op_type, n.spec, n.status, n.outputs, n.conditions) for n in _scatter(rep.nodes)]
    want = [(e["name"], e["op"], e["spec"], e["status"], {"output": e["output"]}, e["conditions"])
            for e in exp["nodes"]]
    assert got == want
    assert all(not n.violations for n in _scatter(rep.nodes))
    statuses = [e["status"] for e in exp["nodes"]]
    # every node is checked by a spec or skipped (left to onnx); the shape-computation nodes around
    # the scatter nodes have specs of their own now
    assert rep.summary["invalid"] == 0
    # (an If, whose outputs are its branches', counts by its subgraphs: among the truth's skipped nodes)
    assert rep.summary["checked"] + rep.summary["skipped"] + rep.summary.get("dead", 0) + rep.coverage["subgraphs"] \
        == len(statuses) + exp["skipped"]
    assert rep.summary["unchecked"] == 0
    assert not rep.violations
    assert str(rep.types["y"]) == exp["y"]
    conds = [a["condition"] for a in rep.assumptions if a["kind"] == "condition"]
    # the model's assumptions are the conditions of its nodes: the scatter nodes' among them
    assert set(c for e in exp["nodes"] for c in e["conditions"]) <= set(conds)
    assert set(conds) == {c for n in rep.nodes for c in n.conditions}
    assert rep.exit_code == exp["exit"]
    assert shapecheck.check_model(str(FIX / f"{name}.onnx"), strict=True).exit_code == exp["strict_exit"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cli_check_json_and_exit_codes(name, capsys):
    exp = EXPECTED[name]
    path = str(FIX / f"{name}.onnx")
    assert main(["check", path, "--json"]) == exp["exit"]
    doc = json.loads(capsys.readouterr().out)
    assert [(n["spec"], n["status"], n["outputs"]["output"]) for n in doc["nodes"] if n["op_type"].startswith("Scatter")] == \
        [(e["spec"], e["status"], e["output"]) for e in exp["nodes"]]
    assert doc["ok"] is (exp["exit"] == 0)
    assert main(["check", path, "--strict", "--json"]) == exp["strict_exit"]
    capsys.readouterr()


@pytest.mark.parametrize("name", ["index_assign", "index_put_accumulate", "scatter"])
def test_inputs_come_from_the_exporters_dim_params(name):
    node = _scatter(report(name).nodes)[0]
    data = {"index_assign": "float[n,3]", "index_put_accumulate": "float[n,3]", "scatter": "float[batch,n]"}[name]
    assert node.inputs["data"]["type"] == data
    if name != "scatter":
        assert node.inputs["indices"]["type"] == "int64[m,1]"      # Unsqueeze(idx [m], -1)
        assert node.inputs["updates"]["type"] == "float[m,3]"      # Reshape(v, Shape(idx) ++ x.shape[1:])
        assert node.inputs["updates"]["source"] in ("onnx inference", "inferred")
    else:
        assert node.inputs["indices"]["type"] == "int64[batch,k]"


def test_annotated_copy_names_dims_with_the_exporters_dim_params(tmp_path):
    out = tmp_path / "kv.onnx"
    shapecheck.check_model(str(FIX / "kv_cache.onnx"), output=str(out))
    m = onnx.load(str(out))
    y = m.graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in y] == ["batch", "seq", 2, 4]


# ---------------------------------------------------------------- conditions, justified by running the model

@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items()
                                        if any(x["conditions"] for x in e["nodes"])))
def test_every_condition_holds_on_the_exported_model(name):
    conds = [c for e in EXPECTED[name]["nodes"] for c in e["conditions"]]
    tensors = sorted({t for c in conds for t in _tensors_in(c)})
    for dims in INSTANCES[name]:
        outs = _run(name, dims, tensors)
        shapes = {t: outs[t].shape for t in tensors}
        for c in conds:
            assert _holds(c, shapes, dims), (c, shapes, dims)


@pytest.mark.parametrize("name", ["scatter_reduce_amax", "scatter_reduce_sum"])
def test_scatter_reduce_if_is_decided_from_the_rank(name):
    # at run time the If outputs are x, idx and src themselves (the else branch): shapecheck must see the same
    ins = ["/If_output_0", "/If_output_1", "/If_output_2"]
    model = onnx.load(str(FIX / f"{name}.onnx"))
    (node,) = _scatter(report(name).nodes)
    for dims in INSTANCES[name]:
        outs = _run(name, dims, ins)
        feeds = _feeds(model, dims)
        assert [outs[t].shape for t in ins] == [feeds[k].shape for k in ("x", "idx", "src")]
    declared = {i.name: "[" + ",".join(d.dim_param or str(d.dim_value) for d in i.type.tensor_type.shape.dim) + "]"
                for i in model.graph.input}
    assert node.inputs["data"]["type"] == "float" + declared["x"]
    assert node.inputs["indices"]["type"] == "int64" + declared["idx"]
    assert node.inputs["data"]["source"].startswith("If else_branch")


# ---------------------------------------------------------------- torch's declared output shapes

@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_declared_output_of_the_export(name):
    """Only the scatter_reduce exports declare y wrongly; every other declaration agrees with inference."""
    rep = report(name)
    model = onnx.load(str(FIX / f"{name}.onnx"))
    assert not model.graph.value_info            # torch writes no value_info in the main graph
    y = [d for d in rep.declarations if d.tensor == "y"]
    assert len(y) == 1 and y[0].kind == "graph output"
    if name.startswith("scatter_reduce"):
        declared, inferred = EXPECTED[name]["declared_y"], EXPECTED[name]["y"]
        assert (y[0].node, y[0].declared, y[0].inferred, y[0].status, y[0].severity) == \
            ("/If_1", declared, inferred, "contradicts", "error")
        assert y[0].fix == f"declare 'y' as {inferred}"
        # the else branch's own output declaration is just as wrong (a warning: it is not the interface)
        (sub,) = [d for d in rep.declarations if d.kind == "subgraph output" and d.status == "contradicts"]
        assert (sub.declared, sub.inferred, sub.severity) == (declared, inferred, "warning")
    else:
        assert (y[0].declared, y[0].status) == (EXPECTED[name]["y"], "agrees")
        assert all(d.status == "agrees" for d in rep.declarations)


@pytest.mark.parametrize("name", ["scatter_reduce_amax", "scatter_reduce_sum"])
def test_scatter_reduce_declared_rank_is_wrong_at_run_time(name):
    declared = onnx.load(str(FIX / f"{name}.onnx")).graph.output[0].type.tensor_type.shape.dim
    assert len(declared) == 1
    for dims in INSTANCES[name]:
        y = _run(name, dims)["y"]
        assert y.ndim == 2 and y.shape[0] == dims[declared[0].dim_param]


# ---------------------------------------------------------------- index_put_(accumulate=True) with repeated indices

def test_exported_accumulate_drops_repeated_updates():
    # torch: x.index_put_((tensor([0, 2, 0]),), v, accumulate=True) adds v[0] + v[2] to row 0;
    # the export scatters into zeros with reduction none, so row 0 gets only one of them
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(str(FIX / "index_put_accumulate_const.onnx"), providers=["CPUExecutionProvider"])
    x = np.zeros((5, 3), np.float32)
    v = np.ones((3, 3), np.float32)
    y = sess.run(None, {"x": x, "v": v})[0]
    torch_result = np.array([[2, 2, 2], [0, 0, 0], [1, 1, 1], [0, 0, 0], [0, 0, 0]], np.float32)
    assert not np.array_equal(y, torch_result)
    assert y[0].tolist() == [1, 1, 1]
    node = _scatter(report("index_put_accumulate_const").nodes)[0]
    assert node.inputs["indices"] == {"tensor": "onnx::ScatterND_18", "type": "int64[3,1] = [[0], [2], [0]]",
                                      "source": "initializer"}


def test_repeated_constant_indices_are_warned_about_when_dims_are_known():
    r = shapecheck.infer("ScatterND", 18, {"data": "float[5,3]", "indices": "int64[3,1] = [[0], [2], [0]]",
                                           "updates": "float[3,3]"})
    assert [w.constraint for w in r.warnings] == ["W1"]


def test_repeated_constant_indices_are_warned_about_in_the_export():
    # equal non-negative index rows are equal whatever n is, so W1 fires though data is float[n,3]
    node = _scatter(report("index_put_accumulate_const").nodes)[0]
    assert [w.constraint for w in node.warnings] == ["W1"]
