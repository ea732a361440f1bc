"""Cross-framework diffs a converter needs: ONNX ScatterND/ScatterElements against OpenVINO's
ScatterNDUpdate/ScatterElementsUpdate, each difference with a witness confirmed by the executor.
The pairs are declared in the ONNX specs (``see_also``), not in Python."""
from __future__ import annotations

import pytest

from shapecheck.cli import main
from shapecheck.specdiff import cross_pairs, diff


def _by_label(d):
    return {(w.label, w.accepted_by): w for w in d.witnesses}


def test_pairs_come_from_the_specs():
    pairs = {(a.name, b.name) for a, b in cross_pairs()}
    assert {("ScatterND-18", "openvino:ScatterNDUpdate-15"), ("ScatterElements-18", "openvino:ScatterElementsUpdate-12"),
            ("ScatterND-11", "openvino:ScatterNDUpdate-3")} <= pairs


def test_scatternd_18_vs_scatterndupdate_15():
    d = diff("onnx:ScatterND-18", "openvino:ScatterNDUpdate-15")
    assert d.cross_operator and not d.equivalent
    w = _by_label(d)
    ov, onnx = "openvino:ScatterNDUpdate-15", "ScatterND-18"
    # reduction names: add/mul in ONNX are sum/prod in OpenVINO; sub exists only in OpenVINO
    assert w[("reduction = 'add'", onnx)].constraint == "C9" and w[("reduction = 'mul'", onnx)].constraint == "C9"
    for red in ("sum", "prod", "sub"):
        assert w[(f"reduction = '{red}'", ov)].constraint == "C9"
    # both have max/min/none: no witness may claim they differ
    assert not any(label in (f"reduction = '{r}'" for r in ("max", "min", "none")) for label, _ in w)
    assert w[("indices as int32", ov)].constraint == "C5"
    assert all(x.confirmed for x in d.witnesses)


def test_scatterelements_18_vs_scatterelementsupdate_12():
    d = diff("ScatterElements-18", "openvino:ScatterElementsUpdate-12")
    w = _by_label(d)
    ov, onnx = "openvino:ScatterElementsUpdate-12", "ScatterElements-18"
    assert w[("reduction = 'add'", onnx)].rejected_by == ov
    assert {("reduction = 'sum'", ov), ("reduction = 'mean'", ov), ("use_init_val = False", ov)} <= set(w)
    assert all(x.confirmed for x in d.witnesses)
    assert any(c.subject == "use_init_val" for c in d.by_category("attributes"))


def test_index_ranges_differ_between_scatternd_11_and_scatterndupdate_3():
    d = diff("ScatterND-11", "openvino:ScatterNDUpdate-3")
    neg = [w for w in d.witnesses if w.label == "negative values in indices"]
    assert neg and neg[0].accepted_by == "ScatterND-11" and neg[0].constraint == "C8" and neg[0].confirmed


@pytest.mark.parametrize("a,b,words", [
    ("onnx:ScatterND-18", "openvino:ScatterNDUpdate-15", ["reduction = 'sub'", "reduction = 'add'"]),
    ("onnx:ScatterElements-18", "openvino:ScatterElementsUpdate-12", ["use_init_val", "reduction = 'mean'"]),
])
def test_cli_diff(capsys, a, b, words):
    assert main(["diff", a, b]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert all(w in out for w in words)
