"""The compiler hook: check_model / annotate / infer take a path, ModelProto, bytes, an onnx_ir.Model
and a torch.onnx.ONNXProgram (duck typed: onnx_ir and torch are imported only when such an object
is passed); reports index like their JSON; shapecheck.diff is the function."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import onnx
import pytest

import shapecheck
from shapecheck import UsageError

ROOT = Path(__file__).resolve().parent.parent
KV = ROOT / "examples" / "kv_cache.onnx"
BROKEN = ROOT / "examples" / "broken.onnx"


class FakeONNXProgram:
    """What torch.onnx.export(..., dynamo=True) returns, as far as shapecheck looks at it:
    ``model_proto`` (a ModelProto) and ``model`` (an onnx_ir.Model).  torch is not a test
    dependency, so its two attributes stand in for it."""

    def __init__(self, proto=None, ir_model=None):
        if proto is not None:
            self.model_proto = proto
        self.model = ir_model


def forms(path: Path):
    import onnx_ir
    proto = onnx.load(str(path))
    return {"str": str(path), "Path": path, "ModelProto": proto, "bytes": path.read_bytes(),
            "bytearray": bytearray(path.read_bytes()), "onnx_ir.Model": onnx_ir.load(str(path)),
            "ONNXProgram.model_proto": FakeONNXProgram(proto=proto),
            "ONNXProgram.model": FakeONNXProgram(ir_model=onnx_ir.load(str(path)))}


@pytest.mark.parametrize("form", ["str", "Path", "ModelProto", "bytes", "bytearray", "onnx_ir.Model",
                                  "ONNXProgram.model_proto", "ONNXProgram.model"])
def test_every_form_gives_the_same_report(form):
    m = forms(BROKEN)[form]
    rep = shapecheck.check_model(m)
    want = shapecheck.check_model(str(BROKEN))
    assert [(n.name, n.status, [v.constraint for v in n.violations]) for n in rep.nodes] == \
        [(n.name, n.status, [v.constraint for v in n.violations]) for n in want.nodes]
    assert rep.exit_code == 1
    ann = shapecheck.annotate(forms(KV)[form])
    assert isinstance(ann, onnx.ModelProto)
    out = {o.name: o for o in ann.graph.output}
    dims = [d.dim_param or d.dim_value for d in next(iter(out.values())).type.tensor_type.shape.dim]
    assert dims == ["batch", "max_len", "hidden"]
    types = shapecheck.infer(forms(KV)[form])
    assert str(types["cache"]) == "float[batch,max_len,hidden]"


@pytest.mark.parametrize("bad", [3.5, None, ["model.onnx"], object()])
def test_wrong_type_is_a_one_line_type_error(bad):
    with pytest.raises(TypeError) as e:
        shapecheck.check_model(bad)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("check_model() takes a model:")
    for accepted in ("path", "onnx.ModelProto", "bytes", "onnx_ir.Model", "torch.onnx.ONNXProgram"):
        assert accepted in msg
    with pytest.raises(TypeError, match=r"^annotate\(\) takes a model"):
        shapecheck.annotate(bad)


def test_bytes_that_are_not_a_model_are_a_usage_error():
    with pytest.raises(UsageError, match="not an ONNX model"):
        shapecheck.check_model(b"\xff\x00 definitely not protobuf")


def test_onnx_ir_and_torch_are_not_imported_for_paths_and_protos():
    code = ("import sys, onnx, shapecheck\n"
            f"shapecheck.check_model({str(KV)!r}); shapecheck.check_model(onnx.load({str(KV)!r}))\n"
            f"shapecheck.check_model(open({str(KV)!r}, 'rb').read()); shapecheck.annotate({str(KV)!r})\n"
            "assert 'onnx_ir' not in sys.modules and 'torch' not in sys.modules, sorted(sys.modules)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


def test_reports_index_like_their_json():
    rep = shapecheck.check_model(str(KV))
    assert rep["nodes"][0]["status"] == rep.nodes[0].status == "valid"
    assert rep["summary"] == rep.to_dict()["summary"] and "nodes" in rep and rep.get("nope") is None
    assert rep.nodes[0]["runtime_checks"] == ["C8"]
    r = shapecheck.infer("ScatterND", 18, {"data": "float[N,C]", "indices": "int64[M,K]", "updates": "float[M,C]"})
    assert r["conditions"] == r.conditions == ["K == 1"]
    assert shapecheck.check_model(str(BROKEN))["nodes"][0]["violations"][0]["constraint"] == "C7"


def test_valid_says_index_values_are_checked_at_run_time():
    # indices from a graph input: C8 (index bounds) is left to the runtime, and the JSON says so
    r = shapecheck.infer("ScatterND", 18, {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"})
    assert r.status == "valid" and r.runtime_checks == ["C8"] and r.to_dict()["runtime_checks"] == ["C8"]
    # constant indices: checked here, nothing is left to the runtime
    r = shapecheck.infer("ScatterND", 18, {"data": "float[4,C]", "indices": "int64[2,1] = [[0],[3]]",
                                           "updates": "float[2,C]"})
    assert r.status == "valid" and r.runtime_checks == []
    r = shapecheck.infer("ScatterND", 18, {"data": "float[4,C]", "indices": "int64[2,1] = [[0],[4]]",
                                           "updates": "float[2,C]"})
    assert r.status == "invalid" and [v.constraint for v in r.violations] == ["C8"]


def test_diff_is_the_function_the_readme_shows():
    assert callable(shapecheck.diff)
    d = shapecheck.diff("ScatterND-16", "ScatterND-18")
    assert [w.constraint for w in d.witnesses] == ["C9", "C9"]


def test_check_model_pauses_the_garbage_collector_and_restores_it(monkeypatch):
    import gc
    seen = []
    from shapecheck.model import check
    real = check.check_graph

    def spy(*a, **k):
        seen.append(gc.isenabled())
        return real(*a, **k)

    monkeypatch.setattr(check, "check_graph", spy)
    assert gc.isenabled()
    shapecheck.check_model(str(KV))
    shapecheck.check_model(str(KV), pause_gc=False)
    assert seen == [False, True] and gc.isenabled()   # paused by default, restored after
