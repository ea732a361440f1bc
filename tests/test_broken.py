"""Hand-broken copies of corpus models are reported invalid, naming the node and the rule (issue 16).

tests/fixtures/make_broken.py writes each copy (one change in one node of a zoo or export model)
and records in ``broken/manifest.json`` the node, the change, onnxruntime's refusal, and the rule
shapecheck must give: ``constraint`` (``<spec> <id>``) where the op has a spec, else ``finding``
(an ``onnx-inference`` finding) and ``spec_constraint``, the constraint the op's spec gives once
it is merged.  A copy with ``pending`` (the reason shapecheck does not refuse it yet) is a strict
xfail, so that the entry goes once shapecheck refuses it.  ``shapecheck check --json`` runs once
over every copy, as a user would.
"""
from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import onnx
import pytest

from shapecheck.model.check import check_model
from tests.fixtures import make_broken

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
BROKEN = FIXTURES / "broken"
MANIFEST = json.loads((BROKEN / "manifest.json").read_text())
KINDS = ("reshape_target", "reshape_rows", "concat_dims", "matmul_inner", "conv_channels", "gather_index")


@cache
def _cli() -> tuple[int, dict]:
    paths = [str(BROKEN / f"{name}.onnx") for name in MANIFEST]
    proc = subprocess.run([sys.executable, "-m", "shapecheck.cli", "check", "-j", "1", "--json", *paths],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    return proc.returncode, {Path(m["model"]).stem: m for m in doc["models"]}


def test_manifest_is_complete():
    assert set(MANIFEST) == set(KINDS)
    for name, entry in MANIFEST.items():
        assert (BROKEN / f"{name}.onnx").stat().st_size < 500_000, name
        assert entry["onnxruntime"], f"{name}: onnxruntime's refusal must be recorded"
        assert entry.get("constraint") or (entry.get("finding") and entry.get("spec_constraint")), name


@pytest.mark.parametrize("name", list(MANIFEST))
def test_onnxruntime_refuses_the_copy_and_runs_the_source(name):
    entry = MANIFEST[name]
    truth = json.loads((FIXTURES / f"{entry['source']}.truth.json").read_text())
    source = onnx.load(str(FIXTURES / f"{entry['source']}.onnx"))
    inputs = make_broken.feeds(source, truth)
    assert make_broken.ort_error(source, inputs) is None
    assert make_broken.ort_error(onnx.load(str(BROKEN / f"{name}.onnx")), inputs) is not None


@pytest.mark.parametrize("name", list(MANIFEST))
def test_source_is_not_invalid(name):
    """The finding comes from the break: the unbroken source has no invalid node."""
    report = check_model(str(FIXTURES / f"{MANIFEST[name]['source']}.onnx"))
    assert not report.failed, [(n.name, n.violations) for n in report.nodes if n.status == "invalid"]


def test_cli_exit_code():
    code, models = _cli()
    assert code == 1
    assert set(models) == set(MANIFEST)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=e["pending"])) if e.get("pending") else n
    for n, e in MANIFEST.items()])
def test_copy_is_invalid_at_the_broken_node(name):
    entry = MANIFEST[name]
    model = _cli()[1][name]
    nodes = {n["name"]: n for n in model["nodes"]}
    node = nodes.get(entry["node"])
    invalid = {n["name"]: [f"{n['spec']} {v['constraint']}".strip() for v in n["violations"]]
               for n in model["nodes"] if n["status"] == "invalid"}
    assert not model["ok"] and model["exit_code"] == 1, f"{name}: reported valid; invalid nodes {invalid}"
    assert node is not None and node["status"] == "invalid", (
        f"{name}: {entry['node']} is {node and node['status']}, not invalid; invalid nodes: {invalid}")
    rules = {f"{node['spec']} {v['constraint']}".strip() for v in node["violations"]}
    accepted = {entry["constraint"]} if entry.get("constraint") else {entry["finding"], entry["spec_constraint"]}
    assert rules & accepted, f"{name}: {entry['node']} violates {sorted(rules)}, expected one of {sorted(accepted)}"
