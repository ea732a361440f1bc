"""Every ONNX backend node test of a spec'd op runs through ``infer`` and ``execute``.

The cases are onnx's single-node backend test models whose element types shapecheck models
(tests/harness/node_cases.py: ``modelled_types``) and whose op has a spec in the default registry at the
model's opset.  Every op family (a module of ``shapecheck/kernels``) has its test file,
``tests/ops/test_<family>.py``, which exposes the cases it runs as ``NODE_CASES`` (its ops' cases,
found through the kernels, not listed); a case is covered when some file runs it.  The few that cannot
run are ``tests/ops/quirks.py``'s ``SKIP``, with the reason, and tests keep that table from going stale:
each entry is a case of a spec'd op that no file covers, and its reason is checked against onnx's
schemas (a version past the specs).
"""
from __future__ import annotations

import importlib
import pkgutil

import onnx.defs

import shapecheck.kernels
from shapecheck.registry import default_registry
from tests.harness.node_cases import modelled_types, node_testcases
from tests.ops.quirks import SKIP

REG = default_registry()
FAMILIES = sorted(m.name for m in pkgutil.iter_modules(shapecheck.kernels.__path__) if not m.name.startswith("_"))


def _opset(case) -> int:
    """The model's opset for the node's domain."""
    domain = case.model.graph.node[0].domain
    return next(o.version for o in case.model.opset_import if o.domain in ((domain,) if domain else ("", "ai.onnx")))


def _specd(case) -> bool:
    """A single-node case of modelled element types whose op has a spec at the model's opset."""
    if len(case.model.graph.node) != 1 or not modelled_types(case):
        return False
    node = case.model.graph.node[0]
    versions = REG.versions(node.op_type, node.domain or None)
    return any(s.version <= _opset(case) for s in versions)


SPECD = {c.name: c for c in node_testcases() if _specd(c)}
MODULES = [importlib.import_module(f"tests.ops.test_{family}") for family in FAMILIES]
RUN = {c.name for m in MODULES for c in getattr(m, "NODE_CASES", ())}
COVERED = RUN


def test_every_family_has_its_test_file_and_exposes_its_cases():
    assert len(MODULES) >= 20
    for m in MODULES:
        assert all(hasattr(c, "model") and hasattr(c, "data_sets") for c in getattr(m, "NODE_CASES", ())), m.__name__


def test_the_files_run_cases_of_specd_ops_only():
    """A file's case outside SPECD would mean the enumeration here misses cases."""
    assert RUN <= set(SPECD), sorted(RUN - set(SPECD))
    assert len(SPECD) >= 1000 and len({c.model.graph.node[0].op_type for c in SPECD.values()}) >= 140


def test_every_case_of_a_specd_op_runs_through_infer_and_execute():
    missing = sorted(set(SPECD) - COVERED - set(SKIP))
    assert not missing, "node test cases no file runs through infer and execute: " + ", ".join(
        f"{n} ({SPECD[n].model.graph.node[0].op_type})" for n in missing)


def test_every_skipped_case_is_still_skipped_for_its_reason():
    """Each case of ``SKIP`` (none, while every version has a spec) exists, is of a spec'd op, no file
    covers it, and its reason holds: the case's opset brings a version of the op past every spec
    (onnx's schema says which, and the reason names it)."""
    for name, reason in sorted(SKIP.items()):
        assert name in SPECD and name not in COVERED, name
        case = SPECD[name]
        node, opset = case.model.graph.node[0], _opset(case)
        since = onnx.defs.get_schema(node.op_type, opset, node.domain).since_version
        assert since > REG.resolve(node.op_type, opset, node.domain or None).version, name
        assert reason.startswith(f"{node.op_type}-{since} adds "), name
