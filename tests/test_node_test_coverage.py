"""Every ONNX backend node test of a spec'd op runs through ``infer`` and ``execute`` (issue 16).

The cases are onnx's single-node backend test models whose element types shapecheck models
(tests/node_cases.py: ``modelled_types``) and whose op has a spec in the default registry at the
model's opset.  The node-test files (tests/test_*_node_tests.py) each expose the cases they run as
``CASES`` and, optionally, the names of those checked by the solver alone as ``INFER_ONLY``; a case
is covered when some file runs it and not by the solver alone.  The few that cannot run are in
``ALLOWED`` with the reason, and tests keep that list from going stale: each entry is a case of a
spec'd op that no file covers, and its reason is checked against onnx's schemas (a version past the
specs).  (Resize's four antialias cases, once checked by the solver alone, now run through both.)
"""
from __future__ import annotations

import importlib
from pathlib import Path

import onnx.defs
import pytest

from shapecheck.registry import default_registry
from tests.node_cases import modelled_types, node_testcases

REG = default_registry()
NODE_TEST_MODULES = sorted(f"tests.{p.stem}" for p in Path(__file__).parent.glob("test_*_node_tests.py"))


def _later(version: str, what: str) -> str:
    return f"{version} adds {what}; the specs stop at opset 24, where the op's newest spec does not take it"


ATTENTION_25 = _later("Attention-25", "local-window attention (left_window_size, right_window_size)")
BITSHIFT_28 = _later("BitShift-28", "the signed integer types")
# case name -> why no node-test file runs it through infer and execute
ALLOWED: dict[str, str] = {
    **dict.fromkeys(("test_attention_3d_local_window", "test_attention_bidirectional_window",
                     "test_attention_local_window", "test_attention_local_window_default",
                     "test_attention_local_window_ext_cache_float16_mask",
                     "test_attention_local_window_ext_cache_rank2_mask",
                     "test_attention_local_window_ext_cache_rank3_head_mask",
                     "test_attention_local_window_ext_cache_rank4_batch_mask",
                     "test_attention_local_window_gqa_rank4_mask", "test_attention_local_window_rank1_boolean_mask",
                     "test_attention_local_window_with_past"), ATTENTION_25),
    **dict.fromkeys((f"test_bitshift_{d}_{t}{s}" for d, t, s in
                     [(d, t, "") for d in ("left", "right") for t in ("int8", "int16", "int32", "int64")]
                     + [(d, t, s) for d in ("left", "right") for t in ("int8", "int32")
                        for s in ("_negative_shift", "_shift_ge_width")]
                     + [("left", t, "_overflow") for t in ("int8", "int32")]
                     + [("right", t, "_negative_input") for t in ("int8", "int32")]), BITSHIFT_28),
    "test_celu_bfloat16": _later("Celu-28", "bfloat16"),
    "test_celu_float16": _later("Celu-28", "float16"),
    "test_compress_bfloat16": _later("Compress-28", "bfloat16"),
    **dict.fromkeys(("test_einsum_batch_matmul_bfloat16", "test_einsum_sum_bfloat16",
                     "test_einsum_transpose_bfloat16"), _later("Einsum-28", "bfloat16")),
    **dict.fromkeys((f"test_mod_{c}" for c in ("float16_mixed_sign_fmod_0", "float32_mixed_sign_fmod_0",
                                                 "float64_mixed_sign_fmod_0", "float_edge_cases_fmod_0_float16",
                                                 "float_edge_cases_fmod_0_float32", "float_edge_cases_fmod_0_float64")),
                    _later("Mod-28", "fmod = 0 on floats (Mod-13 requires fmod = 1 for them)")),
    "test_onehot_with_bfloat16_values": _later("OneHot-28", "bfloat16 values"),
    "test_range_bfloat16_type_positive_delta": _later("Range-27", "bfloat16"),
    "test_range_float16_type_positive_delta": _later("Range-27", "float16"),
    "test_reversesequence_bfloat16": _later("ReverseSequence-28", "bfloat16"),
    **dict.fromkeys(("test_spacetodepth_crd_mode_example", "test_spacetodepth_dcr_mode_example"),
                    _later("SpaceToDepth-28", "the mode attribute (DCR, CRD)")),
    "test_unique_bfloat16_sorted_without_axis": _later("Unique-28", "bfloat16"),
}


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
MODULES = [importlib.import_module(name) for name in NODE_TEST_MODULES]
RUN = {c.name for m in MODULES for c in m.CASES}
INFER_ONLY = {n for m in MODULES for n in getattr(m, "INFER_ONLY", ())}
COVERED = RUN - INFER_ONLY


def test_every_node_test_file_exposes_its_cases():
    assert len(MODULES) >= 11 and "tests.test_specs_misc_node_tests" in NODE_TEST_MODULES
    for m in MODULES:
        assert m.CASES and all(hasattr(c, "model") and hasattr(c, "data_sets") for c in m.CASES), m.__name__
        assert set(getattr(m, "INFER_ONLY", ())) <= {c.name for c in m.CASES}, m.__name__


def test_the_files_run_cases_of_specd_ops_only():
    """A file's case outside SPECD would mean the enumeration here misses cases."""
    assert RUN <= set(SPECD), sorted(RUN - set(SPECD))
    assert len(SPECD) >= 1000 and len({c.model.graph.node[0].op_type for c in SPECD.values()}) >= 140


def test_every_case_of_a_specd_op_runs_through_infer_and_execute():
    missing = sorted(set(SPECD) - COVERED - set(ALLOWED))
    assert not missing, "node test cases no file runs through infer and execute: " + ", ".join(
        f"{n} ({SPECD[n].model.graph.node[0].op_type})" for n in missing)


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_an_allowed_case_is_still_needed(name):
    """The case exists, is of a spec'd op, no file covers it, and its reason holds: the case's opset
    brings a version of the op past every spec (onnx's schema says which, and the reason names it)."""
    assert name in SPECD and name not in COVERED
    reason, case = ALLOWED[name], SPECD[name]
    node, opset = case.model.graph.node[0], _opset(case)
    since = onnx.defs.get_schema(node.op_type, opset, node.domain).since_version
    assert since > REG.resolve(node.op_type, opset, node.domain or None).version
    assert reason.startswith(f"{node.op_type}-{since} adds ")
