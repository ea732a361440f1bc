"""`shapecheck check DIR --format text|json|sarif|junit|github` on a directory of several models:
valid, conditional, invalid and unreadable.  SARIF is validated against the official SARIF 2.1.0
JSON schema (tests/data/sarif-schema-2.1.0.json, from oasis-tcs/sarif-spec)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import onnx
import pytest
from hypothesis import given, settings, strategies as st

from shapecheck.cli import main
from shapecheck.report.json import dumps
from tests.harness.models import FLOAT, INT64, model, node, vi

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def conditional_model() -> onnx.ModelProto:
    """ScatterND with indices int64[M,1] and updates float[U,C]: valid only if U == M (a tie between
    two dynamic dims, not a pinned one: K == 1 of indices int64[M,K] would pin K, an error)."""
    return model([node("ScatterND", ["d", "i", "u"], ["y"], "scatter_rows")],
                 [vi("d", FLOAT, ["N", "C"]), vi("i", INT64, ["M", 1]), vi("u", FLOAT, ["U", "C"])],
                 [vi("y", FLOAT, ["N", "C"])])


@pytest.fixture
def corpus(tmp_path, monkeypatch) -> Path:
    """models/ holding one model of each kind; the run happens inside tmp_path, as in a CI checkout."""
    d = tmp_path / "models"
    (d / "ir").mkdir(parents=True)
    shutil.copy(EXAMPLES / "kv_cache.onnx", d / "valid.onnx")
    onnx.save(conditional_model(), str(d / "conditional.onnx"))
    shutil.copy(EXAMPLES / "broken.onnx", d / "invalid.onnx")
    (d / "unreadable.onnx").write_text("not a model\n")
    shutil.copy(EXAMPLES / "scatter_update.xml", d / "ir" / "scatter_update.xml")
    shutil.copy(EXAMPLES / "scatter_update.bin", d / "ir" / "scatter_update.bin")
    monkeypatch.chdir(tmp_path)
    return d


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    cap = capsys.readouterr()
    assert "Traceback" not in cap.out + cap.err
    return code, cap.out, cap.err


MODELS = ["models/conditional.onnx", "models/invalid.onnx", "models/ir/scatter_update.xml",
          "models/unreadable.onnx", "models/valid.onnx"]


def test_exit_code_is_the_worst_over_all_models(corpus, capsys):
    assert run(capsys, "check", "models", "--quiet")[0] == 2                    # one is unreadable
    (corpus / "unreadable.onnx").unlink()
    assert run(capsys, "check", "models", "--quiet")[0] == 1                    # one is invalid
    (corpus / "invalid.onnx").unlink()
    assert run(capsys, "check", "models", "--quiet")[0] == 0                    # conditions do not fail
    assert run(capsys, "check", "models", "--quiet", "--strict")[0] == 1        # ... unless --strict


def test_text_one_summary_line_per_model_and_a_total(corpus, capsys):
    code, out, err = run(capsys, "check", "models", "--quiet", "--jobs", "1")
    assert code == 2
    lines = out.splitlines()
    assert len(lines) == len(MODELS) + 1
    for line, path in zip(lines, MODELS):
        assert path in line
    assert lines[1].startswith("FAILED  models/invalid.onnx: checked 3: 0 valid, 0 conditional, 3 invalid")
    assert lines[3].startswith("ERROR   models/unreadable.onnx")
    assert lines[-1].startswith("FAILED  total: 5 models: 3 ok, 1 failed, 1 not checked")
    # findings on stderr, each starting with its file, compiler style
    assert "models/invalid.onnx: error[C7]: node 'wrong_updates' (#0) (ScatterND, ScatterND-16):" in err
    assert "models/unreadable.onnx: error[unreadable]: not an ONNX model" in err
    assert "┏" not in out   # --quiet: no tables


def test_json_lists_every_model_with_a_summary(corpus, capsys):
    code, out, _ = run(capsys, "check", "models", "--json", "--jobs", "2")
    doc = json.loads(out)
    assert code == 2 and doc["exit_code"] == 2 and doc["ok"] is False
    assert [m["model"] for m in doc["models"]] == MODELS
    by = {m["model"]: m for m in doc["models"]}
    assert by["models/valid.onnx"]["nodes"][0]["status"] == "valid"
    assert by["models/valid.onnx"]["nodes"][0]["runtime_checks"] == ["C8"]
    assert by["models/conditional.onnx"]["nodes"][0]["conditions"] == ["U == M"]
    assert by["models/invalid.onnx"]["exit_code"] == 1
    assert by["models/unreadable.onnx"]["exit_code"] == 2 and "not an ONNX model" in by["models/unreadable.onnx"]["error"]
    assert doc["summary"] == {"models": 5, "ok": 3, "failed": 1, "unreadable": 1, "checked": 6, "valid": 2,
                              "conditional": 1, "invalid": 3, "skipped": 0}
    # the same run in this process gives the same document
    assert json.loads(run(capsys, "check", "models", "--json", "--jobs", "1")[1]) == doc


def test_one_file_keeps_the_single_model_json(corpus, capsys):
    code, out, _ = run(capsys, "check", "models/valid.onnx", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["model"] == "models/valid.onnx" and doc["summary"]["valid"] == 1 and "models" not in doc


def _sarif(capsys) -> dict:
    code, out, _ = run(capsys, "check", "models", "--format", "sarif")
    assert code == 2
    return json.loads(out)


def test_sarif_is_schema_valid_with_rules_locations_and_stable_fingerprints(corpus, capsys):
    doc = _sarif(capsys)
    jsonschema.Draft4Validator(SCHEMA).validate(doc)
    (run_,) = doc["runs"]
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    c7 = rules["ScatterND-16/C7"]
    assert c7["shortDescription"]["text"] == "updates must have shape indices.shape[0:q-1] ++ data.shape[k:]"
    assert "updates.shape == indices.shape[:-1] ++ data.shape[k:]" in c7["fullDescription"]["text"]
    assert "Note:" in c7["help"]["text"]          # the spec's note on the docs' wrong formula
    assert {"shapecheck/unreadable", "shapecheck/condition"} <= set(rules)
    res = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]): r for r in run_["results"]}
    r = res[("ScatterND-16/C7", "models/invalid.onnx")]
    assert r["level"] == "error" and run_["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == "ScatterND-16/C7"
    (loc,) = r["locations"][0]["logicalLocations"]
    assert loc["name"] == "wrong_updates" and loc["properties"]["op_type"] == "ScatterND"
    assert "updates.shape = [2,4]" in r["message"]["text"] and "fix: give updates the shape [2,4,4]" in r["message"]["text"]
    cond = res[("shapecheck/condition", "models/conditional.onnx")]
    assert cond["level"] == "note" and "U == M" in cond["message"]["text"]
    assert res[("shapecheck/unreadable", "models/unreadable.onnx")]["level"] == "error"
    assert not any(u.endswith("valid.onnx") and u.startswith("models/valid") for _, u in res)
    # fingerprints: stable across runs, one per result
    again = _sarif(capsys)
    fp = [x["partialFingerprints"] for x in run_["results"]]
    assert fp == [x["partialFingerprints"] for x in again["runs"][0]["results"]]
    assert len({json.dumps(f) for f in fp}) == len(fp)


def test_junit_one_testcase_per_model_and_node_with_findings(corpus, capsys):
    code, out, _ = run(capsys, "check", "models", "--format", "junit")
    root = ET.fromstring(out)
    assert code == 2 and root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert sorted(suites) == MODELS
    broken = suites["models/invalid.onnx"]
    names = [c.get("name") for c in broken.findall("testcase")]
    assert names == ["node 'wrong_updates' (ScatterND)", "node 'max_at_16' (ScatterElements)",
                     "node 'shape_mismatch' (ScatterElements)"]
    assert all(c.find("failure") is not None for c in broken.findall("testcase"))
    assert "ScatterND-16/C7" in broken.find("testcase/failure").get("type")
    (bad,) = suites["models/unreadable.onnx"].findall("testcase")
    assert bad.find("error") is not None
    (ok,) = suites["models/valid.onnx"].findall("testcase")
    assert ok.find("failure") is None and ok.find("error") is None
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "3", "1")


GITHUB = re.compile(r"^::(error|warning|notice) file=([^,:]+),title=([^:]+)::(.+)$")


def test_github_workflow_commands(corpus, capsys):
    code, out, _ = run(capsys, "check", "models", "--format", "github")
    assert code == 2
    cmds = [line for line in out.splitlines() if line.startswith("::")]
    assert cmds and all(GITHUB.match(line) for line in cmds), cmds
    parsed = [GITHUB.match(line).groups() for line in cmds]
    assert ("error", "models/invalid.onnx") in {(k, f) for k, f, _, _ in parsed}
    c7 = next(p for p in parsed if p[2].startswith("ScatterND-16/C7"))
    assert "%0Afix: give updates the shape [2,4,4]" in c7[3]     # newlines escaped, one line per finding
    assert any(k == "notice" and "U == M" in m for k, f, _, m in parsed)
    # the summary lines follow, one per model and a total
    assert out.splitlines()[-1].startswith("FAILED  total: 5 models")


def test_unreadable_model_does_not_stop_the_others(corpus, capsys):
    code, out, _ = run(capsys, "check", "models/unreadable.onnx", "models/valid.onnx", "--quiet")
    assert code == 2 and "OK  models/valid.onnx: checked 1: 1 valid" in out


def test_progress_bar_only_on_a_terminal(corpus, capsys):
    _, _, err = run(capsys, "check", "models", "--format", "json")
    assert err == ""    # stderr is not a terminal here: no progress bar, no other noise


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
                     max_leaves=30)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_JSON, st.integers(0, 5))
def test_json_text_is_the_document_at_every_depth(doc, depth):
    """The JSON and SARIF writer (outer levels indented, the rest on one line per value) writes the
    document json.dumps writes, and the very text of ``indent=2`` when nothing is deeper than its
    indented levels."""
    def nesting(d):
        children = list(d.values()) if isinstance(d, dict) else d if isinstance(d, list) else []
        return 1 + max(map(nesting, children), default=0) if children else 0
    text = dumps(doc, depth=depth)
    assert json.loads(text) == json.loads(json.dumps(doc))
    if depth >= nesting(doc):
        assert text == json.dumps(doc, indent=2)
    else:
        assert len(text.splitlines()) < len(json.dumps(doc, indent=2).splitlines())
