"""Spec diff: structural changes, witnesses re-run through the executor here, CLI and changelog."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from shapecheck import ConstraintError, UsageError
from shapecheck.cli import main
from shapecheck.executor import run_spec
from shapecheck.solver import solve
from shapecheck.registry import default_registry, registry_with
from shapecheck.report.diff import to_markdown
from shapecheck.specdiff import diff, diff_all, diff_range
from shapecheck.types import parse_type


ROOT = Path(__file__).resolve().parent.parent
REG = default_registry()
OV = "openvino:ScatterElementsUpdate-3"


@pytest.fixture(scope="session")   # the module runs in one worker (--dist loadscope): diffed once
def all_diffs():
    return {(d.a, d.b): d for d in diff_all()}


def _arrays(inputs: dict[str, str]) -> dict[str, np.ndarray]:
    out = {}
    for name, text in inputs.items():
        t = parse_type(text, name)
        assert t.value is not None, f"witness input {name}={text} has no value"
        out[name] = t.value
    return out


def _executes(spec_name: str, w) -> None:
    """Run the witness on one side ourselves: raises what the executor raises.  Its text (``inputs``)
    must say the arrays it was built from, where it writes them out in full."""
    arrays = w.arrays[spec_name]
    for name, text in w.inputs[spec_name].items():
        if "values>" not in text:   # a large value is abbreviated (<32 values>)
            want, got = _arrays({name: text})[name], np.asarray(arrays[name])
            if got.dtype.kind == "V":   # ml_dtypes' narrow types: compared as float64, NaN equal to NaN
                want, got = want.astype(np.float64), got.astype(np.float64)
            np.testing.assert_array_equal(want, got)
    run_spec(REG.get(spec_name), arrays, w.attrs[spec_name])


def _check_witness(w) -> None:
    """Independently of diff's own confirmation: accepted side runs, rejected side raises for w.constraint."""
    _executes(w.accepted_by, w)
    if w.constraint in ("A1", "A2"):   # an attribute the rejecting spec does not declare, or of another type
        with pytest.raises(UsageError, match="has no attribute" if w.constraint == "A1" else "must be"):
            _executes(w.rejected_by, w)
    else:
        with pytest.raises(ConstraintError) as exc:
            _executes(w.rejected_by, w)
        assert exc.value.constraint == w.constraint
    assert w.confirmed


def _witnesses(d) -> set[tuple]:
    return {(w.label, w.accepted_by, w.rejected_by, w.constraint) for w in d.witnesses}


def _changes(d, category: str) -> set[tuple]:
    return {(c.kind, c.subject) for c in d.by_category(category)}


def _rule_id(spec: str, startswith: str) -> str:
    [rid] = [r.id for r in REG.get(spec).constraints if r.rule.startswith(startswith)]
    return rid


# ---------------------------------------------------------------- which pairs

def test_diff_all_covers_every_consecutive_pair_and_the_cross_pairs(all_diffs):
    want = set()
    for s in REG:
        later = [t for t in REG if (t.domain, t.op) == (s.domain, s.op) and t.version > s.version]
        if later:
            want.add((s.name, min(later, key=lambda t: t.version).name))
    # cross-operator pairs come from the specs' see_also keys
    cross = {("Scatter-11", "ScatterElements-11"), ("ScatterElements-11", OV),
             ("ScatterElements-18", "openvino:ScatterElementsUpdate-12"), ("ScatterND-11", "openvino:ScatterNDUpdate-3"),
             ("ScatterND-18", "openvino:ScatterNDUpdate-15")}
    assert {(s.name, t) for s in REG for t in (REG.get(x).name for x in s.see_also)} == cross
    want |= cross
    assert set(all_diffs) == want
    scatter = {p for p in want if p[0].split(":")[-1].startswith("Scatter")}
    assert ("ScatterND-13", "ScatterND-16") in want and len(scatter) >= 9  # Scatter 1, ScatterElements 3, ScatterND 3, cross 2
    assert ("openvino:ScatterNDUpdate-3", "openvino:ScatterNDUpdate-15") in want
    assert ("openvino:ScatterElementsUpdate-3", "openvino:ScatterElementsUpdate-12") in want


def test_every_witness_is_accepted_by_one_side_and_rejected_by_the_other(all_diffs):
    n = 0
    for d in all_diffs.values():
        for w in d.witnesses:
            assert {w.accepted_by, w.rejected_by} == {d.a, d.b}
            _check_witness(w)
            n += 1
    assert n >= 20


# ---------------------------------------------------------------- per pair

@pytest.mark.parametrize("op", ["ScatterND", "ScatterElements"])
def test_reduction_gains_max_and_min_at_18(all_diffs, op):
    d = all_diffs[(f"{op}-16", f"{op}-18")]
    cid = _rule_id(f"{op}-16", "reduction in")
    assert _witnesses(d) == {(f"reduction = '{v}'", f"{op}-18", f"{op}-16", cid) for v in ("max", "min")}
    assert _changes(d, "attributes") == {("values added", "reduction")}
    [c] = d.by_category("attributes")
    assert c.b == "{max, min}"
    assert _changes(d, "constraints") == {("changed", cid)}
    assert not d.cross_operator and not d.equivalent
    for w in d.witnesses:   # smallest non-empty input: one element per tensor
        assert all(parse_type(t).value.size == 1 for t in w.inputs[w.accepted_by].values())


@pytest.mark.parametrize("op", ["ScatterND", "ScatterElements"])
def test_bfloat16_joins_at_13(all_diffs, op):
    d = all_diffs[(f"{op}-11", f"{op}-13")]
    cid = _rule_id(f"{op}-11", "dtype(data) in")
    assert _witnesses(d) == {("data, updates as bfloat16", f"{op}-13", f"{op}-11", cid)}
    [w] = d.witnesses
    assert w.inputs[w.accepted_by]["data"].startswith("bfloat16[")
    assert _changes(d, "types") == {("added", "T (data, updates)")}
    assert not d.by_category("constraints") and not d.by_category("attributes")


@pytest.mark.parametrize("op", ["ScatterND", "ScatterElements"])
def test_reduction_attribute_and_string_rule_arrive_at_16(all_diffs, op):
    d = all_diffs[(f"{op}-13", f"{op}-16")]
    # any reduction given to 13 is an unknown attribute there
    assert _witnesses(d) == {(f"reduction = '{v}'", f"{op}-16", f"{op}-13", "A1") for v in ("add", "mul", "none")}
    assert _changes(d, "attributes") == {("added", "reduction")}
    added = {c.b for c in d.by_category("constraints")}
    assert {c.kind for c in d.by_category("constraints")} == {"added"}
    assert 'reduction in {"none", "add", "mul"}' in added
    assert any('"string"' in r for r in added)   # string with mul: a constraint added ...
    # ... which separates nothing: both versions reject string data with reduction mul
    q = {"data": np.array(["a"], object), "indices": np.array([[0]]), "updates": np.array(["b"], object)}
    if op == "ScatterElements":
        q = {k: v.reshape(1, 1) if v.ndim == 1 else v for k, v in q.items()}
    for name in (f"{op}-13", f"{op}-16"):
        assert solve(REG.get(name), q, {"reduction": "mul"}, unknown_attrs="finding").status == "invalid"
    assert not any("string" in w.label for w in d.witnesses)


def test_scatter_11_is_deprecated_and_otherwise_identical(all_diffs):
    d = all_diffs[("Scatter-9", "Scatter-11")]
    assert _changes(d, "deprecation") == {("deprecated", "Scatter-11")}
    assert [c.category for c in d.changes] == ["deprecation"]
    assert any("constraints are identical" in n for n in d.notes)
    assert any("rejects every input" in n for n in d.notes)
    assert {(w.accepted_by, w.constraint) for w in d.witnesses} == {("Scatter-9", "deprecated")}


def test_scatter_to_scatterelements_is_only_name_and_deprecation(all_diffs):
    d = all_diffs[("Scatter-11", "ScatterElements-11")]
    assert d.cross_operator
    assert {c.category for c in d.changes} == {"operator", "deprecation"}
    assert _changes(d, "deprecation") == {("undeprecated", "Scatter-11")}
    assert {(w.accepted_by, w.constraint) for w in d.witnesses} == {("ScatterElements-11", "deprecated")}


def test_scatterelements_vs_openvino(all_diffs):
    d = all_diffs[("ScatterElements-11", OV)]
    onnx = "ScatterElements-11"
    assert d.cross_operator
    assert ("attribute → input", "axis") in _changes(d, "inputs")
    assert _changes(d, "types") == {("added", "T (data, updates)"), ("removed", "T (data, updates)"),
                                    ("added", "Tind → T_IND (indices)")}
    # constraints matched by meaning: only the index bound changed, r >= 1 went, axis rules came
    ov_bound = _rule_id(OV, "0 <= indices")
    onnx_bound = _rule_id(onnx, "-s <= indices")
    assert _changes(d, "constraints") == {("changed", f"{onnx_bound} → {ov_bound}"),
                                          ("removed", _rule_id(onnx, "r >= 1")),
                                          ("added", _rule_id(OV, "rank(axis)")),
                                          ("added", _rule_id(OV, "dtype(axis)"))}
    ws = _witnesses(d)
    ov_t, onnx_t, onnx_tind = _rule_id(OV, "dtype(data) in"), _rule_id(onnx, "dtype(data) in"), \
        _rule_id(onnx, "dtype(indices) in")
    assert ("negative values in indices", onnx, OV, ov_bound) in ws
    for dt in ("string", "bool", "complex64", "complex128"):
        assert (f"data, updates as {dt}", onnx, OV, ov_t) in ws
    for dt in ("int8", "int16", "uint8", "uint16", "uint32", "uint64"):
        assert (f"indices as {dt}", OV, onnx, onnx_tind) in ws
    assert ("data, updates as bfloat16", OV, onnx, onnx_t) in ws
    assert not any(w.label == "indices as int32" for w in d.witnesses)   # int32 is in both
    # the axis attribute reaches OpenVINO as its axis input
    [neg] = [w for w in d.witnesses if w.label.startswith("negative")]
    assert parse_type(neg.inputs[OV]["axis"]).value.item() == neg.attrs[onnx].get("axis", 0)
    assert (parse_type(neg.inputs[onnx]["indices"]).value < 0).any()


def test_same_spec_is_equivalent_and_says_what_was_compared():
    for name in ("ScatterND-16", "Scatter-11", OV):
        d = diff(name, name)
        assert d.equivalent and not d.changes and not d.witnesses
        assert "constraints by meaning" in d.compared and "concrete inputs" in d.compared
    assert not diff("ScatterND-16", "ScatterND-18").equivalent


def test_generic_over_any_two_specs(tmp_path):
    # a made-up later version: default changes, allowed values shrink; nothing here is known to diff
    (tmp_path / "x.toml").write_text('extends = "ScatterND-18"\nversion = 19\n'
                                     '[attributes.reduction]\ntype = "string"\ndefault = "add"\n'
                                     '[[constraints]]\nid = "C9"\nrule = \'reduction in {"none", "add"}\'\n'
                                     'message = "none or add"\n')
    reg = registry_with([tmp_path])
    d = diff("ScatterND-18", "ScatterND-19", registry=reg)
    assert _changes(d, "attributes") == {("default changed", "reduction"), ("values removed", "reduction")}
    assert {(w.label, w.accepted_by, w.constraint) for w in d.witnesses} == \
        {(f"reduction = '{v}'", "ScatterND-18", "C9") for v in ("max", "min", "mul")}
    assert all(w.confirmed for w in d.witnesses)


# ---------------------------------------------------------------- ranges and errors

def test_diff_range_resolves_like_opsets():
    assert [(d.a, d.b) for d in diff_range("ScatterND", 11, 18)] == \
        [("ScatterND-11", "ScatterND-13"), ("ScatterND-13", "ScatterND-16"), ("ScatterND-16", "ScatterND-18")]
    assert [(d.a, d.b) for d in diff_range("ScatterElements", 12, 17)] == \
        [("ScatterElements-11", "ScatterElements-13"), ("ScatterElements-13", "ScatterElements-16")]
    with pytest.raises(UsageError, match="only one version"):
        diff_range("ScatterND", 16, 17)


def _cli_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shapecheck: error:") and "\n" not in err and "Traceback" not in err
    return err


@pytest.mark.parametrize("argv, needle", [
    (["diff", "ScatterND-99", "ScatterND-18"], "unknown spec 'ScatterND-99'"),
    (["diff", "ScatterND-16", "Nope"], "unknown spec 'Nope'"),
    (["diff", "ScatterND", "--opset", "18..11"], "bad --opset range '18..11'"),
    (["diff", "ScatterND", "--opset", "abc"], "bad --opset range 'abc'"),
    (["diff", "NoSuchOp", "--opset", "11..18"], "unknown operator 'NoSuchOp'"),
    (["diff", "ScatterND-16"], "diff takes two spec names"),
])
def test_cli_bad_input_exits_2_with_one_paragraph(capsys, argv, needle):
    assert needle in _cli_error(capsys, argv)


def test_cli_cross_operator_says_so(capsys):
    assert main(["diff", "ScatterElements-11", OV]) == 0
    assert "cross-operator diff" in capsys.readouterr().out
    assert main(["diff", "ScatterElements-11", OV, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cross_operator"] is True and data["a"] == "ScatterElements-11"
    assert main(["diff", "ScatterND-16", "ScatterND-18", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cross_operator"] is False


def test_cli_table_and_markdown(capsys):
    assert main(["diff", "ScatterND-16", "ScatterND-18"]) == 0
    out = capsys.readouterr().out
    assert "reduction = 'max'" in out and "confirmed" in out
    assert main(["diff", "ScatterND", "--opset", "11..18", "--markdown"]) == 0
    md = capsys.readouterr().out
    assert md.count("\n## ") == 3


# ---------------------------------------------------------------- changelog

def test_changelog_is_up_to_date(all_diffs):
    md = to_markdown(list(all_diffs.values()))
    assert md == to_markdown(diff_all())   # deterministic
    path = ROOT / "docs" / "changelog.md"
    assert path.exists() and path.read_text(encoding="utf-8") == md + "\n", \
        "docs/changelog.md is out of date; regenerate it with: shapecheck diff --all --markdown > docs/changelog.md"


def test_diff_doctests():
    import doctest

    import shapecheck.specdiff as mod
    result = doctest.testmod(mod)
    assert result.attempted > 0 and result.failed == 0


def test_diff_of_two_model_files_says_what_diff_compares_and_how_to_compare_models(capsys):
    a, b = (str(Path(__file__).parent / "fixtures" / "zoo" / f"cnn_ts{v}.onnx") for v in (14, 17))
    assert main(["diff", a, b]) == 2
    err = capsys.readouterr().err
    assert "diff compares two operator specs" in err and f"{a!r} is a file" in err
    assert f"shapecheck check {a} {b}" in err and "Traceback" not in err
