"""`shapecheck infer` and `shapecheck specs`: exit codes, JSON fields, and unusable input
(exit 2, one paragraph on stderr, never a traceback)."""
from __future__ import annotations

import json

import pytest

from shapecheck.cli import main

ND = ["infer", "ScatterND", "-i", "data=float[N,C]", "-i", "indices=int64[M,1]", "-i", "updates=float[M,C]"]


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out and "Traceback" not in err
    return code, out, err


def test_infer_valid_exit_0(capsys):
    code, out, err = run(capsys, ND + ["-a", "reduction=add"])
    assert code == 0 and err == ""
    assert "ScatterND-18" in out
    assert "output output: float[N,C]" in out
    assert "result: valid" in out


def test_infer_conditional_exit_0(capsys):
    argv = ["infer", "ScatterND", "-i", "data=float[N,C]", "-i", "indices=int64[M,K]", "-i", "updates=float[M,C]"]
    code, out, err = run(capsys, argv)
    assert code == 0
    assert "valid only if: K == 1" in out
    assert "result: conditional" in out


def test_infer_invalid_exit_1_with_diagnostic(capsys):
    argv = ["infer", "ScatterND", "--opset", "13", "-i", "data=float[4,4,4]", "-i", "indices=int64[2,1]",
            "-i", "updates=float[2,4]"]
    code, out, err = run(capsys, argv)
    assert code == 1
    assert "error[C7]: ScatterND-13" in out
    assert "fix: give updates the shape [2,4,4]" in out
    assert "result: invalid" in out


def test_infer_json(capsys):
    code, out, _ = run(capsys, ND[:1] + ["--json"] + ND[1:] + ["--opset", "16", "-a", "reduction=max"])
    assert code == 1
    d = json.loads(out)
    assert d["status"] == "invalid"
    assert d["spec"] == "ScatterND-16" and d["op"] == "ScatterND" and d["opset"] == 16
    assert d["outputs"] == {"output": "float[N,C]"}
    [v] = d["violations"]
    assert v["constraint"] == "C9"
    assert v["rule"] == 'reduction in {"none", "add", "mul"}'
    assert "ScatterND-18" in v["fix"]
    assert v["values"]["reduction"] == "'max'"
    ids = [c["id"] for c in d["constraints"]]
    assert ids == [f"C{i}" for i in range(1, 11)]
    by_id = {c["id"]: c for c in d["constraints"]}
    assert by_id["C8"]["status"] == "unchecked" and by_id["C9"]["status"] == "refuted"
    assert set(d) >= {"status", "spec", "op", "opset", "outputs", "conditions", "violations", "warnings",
                      "constraints"}


def test_infer_json_conditions_and_constants(capsys):
    argv = ["infer", "--json", "ScatterND", "-i", "data=float[N,4]", "-i", "indices=int64[2,1] = [[0],[3]]",
            "-i", "updates=float[2,4]"]
    code, out, _ = run(capsys, argv)
    d = json.loads(out)
    assert code == 0 and d["status"] == "conditional" and d["conditions"] == ["N >= 4"]
    c8 = next(c for c in d["constraints"] if c["id"] == "C8")
    assert c8["status"] == "conditional" and c8["conditions"] == ["N >= 4"]


def test_infer_openvino(capsys):
    argv = ["infer", "--json", "openvino:ScatterElementsUpdate", "--opset", "12", "-i", "data=f32[N,C]",
            "-i", "indices=i32[M,C]", "-i", "updates=f32[M,C]", "-i", "axis=i64[] = 0"]
    code, out, _ = run(capsys, argv)
    d = json.loads(out)
    assert code == 0 and d["spec"] == "openvino:ScatterElementsUpdate-12" and d["status"] == "valid"


def test_infer_warning_does_not_fail(capsys):
    argv = ["infer", "ScatterND", "-i", "data=float[8]", "-i", "indices=int64[2,1] = [[1],[1]]", "-i", "updates=float[2]"]
    code, out, _ = run(capsys, argv)
    assert code == 0 and "warning[W1]" in out


def test_specs_command(capsys):
    code, out, _ = run(capsys, ["specs", "--json"])
    assert code == 0
    rows = json.loads(out)
    from shapecheck.registry import default_registry
    assert sorted(r["name"] for r in rows) == sorted(s.name for s in default_registry())
    assert {"TensorScatter-24", "openvino:ScatterNDUpdate-15", "openvino:SliceScatter-15"} <= {r["name"] for r in rows}
    nd18 = next(r for r in rows if r["name"] == "ScatterND-18")
    assert nd18["constraints"] == 10 and nd18["domain"] == "ai.onnx" and nd18["version"] == 18


@pytest.mark.parametrize("argv,words", [
    (["infer", "ScatterND", "-i", "data=flot[N,C]", "-i", "indices=int64[M,1]", "-i", "updates=float[M,C]"],
     "unknown element type 'flot'"),
    (["infer", "ScatterND", "-i", "data=float[N,C", "-i", "indices=int64[M,1]", "-i", "updates=float[M,C]"],
     "bad tensor type 'float[N,C'"),
    (["infer", "ScatterND", "-i", "data=float[(N]", "-i", "indices=int64[M,1]", "-i", "updates=float[M,C]"],
     "missing ')'"),
    (["infer", "ScatterND", "-i", "data=float[N]", "-i", "indices=int64[2,1] = [[0],", "-i", "updates=float[2]"],
     "bad constant value"),
    (["infer", "NoSuchOp", "-i", "data=float[N]"], "unknown operator 'NoSuchOp'"),
    (["infer", "openvino:Nope", "-i", "data=float[N]"], "unknown operator"),
    (["infer", "ScatterElements", "--opset", "10", "-i", "data=float[N]"], "ScatterElements-11"),
    (ND + ["-a", "axis=1"], "no attribute 'axis'"),
    (["infer", "ScatterElements", "-i", "data=float[N,C]", "-i", "indices=int64[M,C]", "-i", "updates=float[M,C]",
      "-a", "axis=abc"], "attribute 'axis' must be int, got 'abc'"),
    (["infer", "ScatterElements", "-i", "data=float[N,C]", "-i", "indices=int64[M,C]", "-i", "updates=float[M,C]",
      "-a", "reduction=[1,2]"], "attribute 'reduction' must be string"),
    (["infer", "ScatterND", "-i", "data=float[N,C]", "-i", "indices=int64[M,1]"], "needs input 'updates'"),
    (ND + ["-i", "extra=float[2]"], "no input 'extra'"),
    (["infer", "ScatterND", "-i", "data"], "expected NAME=VALUE"),
    (ND + ["-a", "reduction"], "expected NAME=VALUE"),
    (ND + ["-a", "=add"], "expected NAME=VALUE"),
    (ND + ["--opset", "x"], "invalid int value"),
    (ND + ["-a", "reduction=[1,"], "not a JSON list"),
    (["infer"], "required"),
    (["frobnicate"], "invalid choice"),
    (ND + ["--bogus"], "unrecognized arguments"),
])
def test_unusable_input_exits_2_with_one_paragraph(capsys, argv, words):
    code, out, err = run(capsys, argv)
    assert code == 2
    assert out == ""
    flat = err.replace("\n", " ")
    assert words in flat or words in err.replace("\n", "")
    assert err.startswith("shapecheck: error:")
    assert "\n\n" not in err.strip()   # one paragraph
    assert err.count("shapecheck: error:") == 1


def test_no_command_prints_help_and_exits_2(capsys):
    code = main([])
    out, err = capsys.readouterr()
    assert code == 2 and "infer" in out and "Traceback" not in out + err
