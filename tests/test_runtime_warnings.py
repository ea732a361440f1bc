"""``--runtime``: portability warnings from specs/runtimes/*.toml, each rule checked against the real runtime.

For every rule of every runtime file, its ``example`` query becomes a one-node model that
shapecheck must warn about (with the rule's id) and that the runtime must refuse, and its
``passes`` query one that shapecheck must not warn about and that the runtime must run.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

import shapecheck
from shapecheck.cli import main
from shapecheck.runtimes import available, load_runtime
from shapecheck.types import ONNX_CODE_OF, numpy_dtype, parse_type

RULES = [(name, rule) for name in available() for rule in load_runtime(name).rules]


def _query_model(q: dict):
    types = {n: parse_type(t, n) for n, t in q["inputs"].items()}
    vi = lambda n, t: helper.make_tensor_value_info(n, ONNX_CODE_OF[t.dtype], list(t.shape))
    node = helper.make_node(q["op"], list(types), ["y"], **q.get("attrs", {}))
    out = types["data"] if "data" in types else types[next(iter(types))]   # Attention: Y has Q's shape here
    g = helper.make_graph([node], "g", [vi(n, t) for n, t in types.items()], [vi("y", out)])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", q["opset"])], ir_version=8)
    rng = np.random.default_rng(0)
    feeds = {}
    for n, t in types.items():
        if n == "indices":
            feeds[n] = np.zeros(t.shape, numpy_dtype(t.dtype))
        elif t.dtype == "string":
            feeds[n] = np.array(rng.choice(list("abc"), size=t.shape), dtype=object)
        else:
            feeds[n] = (rng.integers(0, 3, size=t.shape) + (1j if t.dtype.startswith("complex") else 0)).astype(
                numpy_dtype(t.dtype)) if t.dtype != "bool" else rng.random(t.shape) < .5
    return model, feeds


def _runs(runtime: str, model, feeds, tmp_path) -> bool:
    try:
        if runtime == "onnxruntime":
            import onnxruntime as ort
            ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
        else:
            import openvino as ov
            path = tmp_path / "m.onnx"
            onnx.save(model, str(path))
            core = ov.Core()
            compiled = core.compile_model(core.read_model(str(path)), "CPU")
            compiled(list(feeds.values()))
        return True
    except Exception:  # noqa: BLE001 -- the runtime's refusal: load, compile or run
        return False


def _warned(runtime: str, model) -> list[str]:
    rep = shapecheck.check_model(model, runtime=runtime)
    (node,) = rep.nodes
    assert node.status == "valid", node.violations   # valid by the spec: a portability warning, not a violation
    return [w.constraint for w in node.warnings]


@pytest.mark.parametrize("runtime,rule", RULES, ids=[f"{n}-{r.id}" for n, r in RULES])
def test_rule_matches_the_real_runtime(runtime, rule, tmp_path):
    assert rule.example and rule.passes, f"{rule.id} needs an example and a passes query"
    model, feeds = _query_model(rule.example)
    assert rule.id in _warned(runtime, model)
    assert not _runs(runtime, model, feeds, tmp_path), f"{runtime} runs {rule.example}: {rule.id} is wrong"
    model, feeds = _query_model(rule.passes)
    assert rule.id not in _warned(runtime, model)
    assert _runs(runtime, model, feeds, tmp_path), f"{runtime} refuses {rule.passes}"


def test_cli_runtime_flag_warns_with_the_id(tmp_path, capsys):
    rule = load_runtime("onnxruntime").rules[0]
    model, _ = _query_model(rule.example)
    onnx.save(model, str(tmp_path / "m.onnx"))
    assert main(["check", str(tmp_path / "m.onnx"), "--runtime", "onnxruntime"]) == 0
    cap = capsys.readouterr()
    out = cap.out + cap.err          # diagnostics go to stderr
    assert f"warning[{rule.id}]" in out and "onnxruntime cannot run this node" in out
    assert main(["check", str(tmp_path / "m.onnx")]) == 0
    cap = capsys.readouterr()
    assert "warning[" not in cap.out + cap.err      # no runtime named, no portability warnings


def test_a_rule_that_only_may_fail_says_nothing():
    spec = shapecheck.registry.default_registry().resolve("ScatterND", 18)
    ort = load_runtime("onnxruntime")
    assert ort.warnings(spec, {"data": "?[N]", "indices": "int64[M,1]", "updates": "?[M]"}, {}) == []
