"""Whole-graph shapes on the export corpus (tests/fixtures/exports/, issues 15 and 16).

Each export (made by tests/fixtures/make_exports.py; torch is not needed here) is checked by
shapecheck with value_info stripped, and every tensor's inferred shape is compared with the
shapes onnxruntime produced at several input sizes (``<model>.truth.json``):

* no tensor is ever wrong (a dim that evaluates to another size than the run's, or a wrong
  rank): always;
* the number of exact tensors is at least the floor in ``floors.json``: the count shapecheck
  reached when the floor was last raised (``python -m tests.harness.wholegraph --update-floors``);
  the failure message prints the peers' counts on the same model;
* every ScatterND/ScatterElements node whose validity does not depend on index values (the
  model ran at every size, and no input of the node has a data-dependent shape) is ``valid``,
  except the nodes ``floors.json`` lists under ``scatter_not_valid`` (those not valid today):
  the list must match exactly, so a node that becomes valid is taken off it;
* an export that bakes the sample's batch size into a constant (onnxruntime refused some
  runs) is never reported valid without a condition.
"""
from __future__ import annotations

import json
from functools import cache

import onnx
import pytest
import sympy

from shapecheck.model.check import check_model
from shapecheck.types import TensorType
from shapecheck.dims import is_unknown, parse_dim, symbol, unknown_dim
from tests.harness import wholegraph as wg

FLOORS = json.loads((wg.EXPORTS / "floors.json").read_text())["models"]
MODELS = [p.stem for p in wg.corpus()]


@cache
def _report(stem: str):
    return check_model(str(wg.EXPORTS / f"{stem}.onnx"))


def _truth(stem: str) -> dict:
    return wg.load_truth(wg.EXPORTS / f"{stem}.truth.json")


def test_corpus_is_complete():
    assert len(MODELS) >= 15
    assert sorted(FLOORS) == MODELS, "floors.json must list every export: run python -m tests.harness.wholegraph --update-floors"
    for stem in MODELS:
        path = wg.EXPORTS / f"{stem}.onnx"
        assert path.stat().st_size < 500_000, stem
        model = onnx.load(str(path), load_external_data=False)
        assert not model.graph.value_info, f"{stem}: value_info must be stripped"
        truth = _truth(stem)
        assert len(truth["runs"]) >= 2, stem
        assert any(isinstance(d, str) for dims in truth["input_dims"].values() for d in dims), stem
        sizes = {tuple(sorted(env.items())) for env in wg.run_envs(truth)}
        assert len(sizes) == len(truth["runs"]), f"{stem}: two runs at the same sizes"


@pytest.mark.parametrize("stem", MODELS)
def test_no_wrong_dims_and_exact_floor(stem):
    score = wg.compare(wg.EXPORTS / f"{stem}.onnx", wg.EXPORTS / f"{stem}.truth.json", _report(stem).types)
    floor = FLOORS[stem]
    peers = ", ".join(f"{k} {v}" for k, v in floor.get("peers", {}).items())
    wrong = {n: d for n, d in score.details.items() if d[0] == "wrong"}
    assert not wrong, f"{stem}: {len(wrong)} tensors contradict onnxruntime's runs: {list(wrong.items())[:5]}"
    assert score.exact >= floor["exact"], (
        f"{stem}: shapecheck {score.line()}; floor {floor['exact']}/{floor['total']}; peers: {peers}")
    assert score.total == floor["total"], stem


def _index_independent_scatters(stem: str) -> list[onnx.NodeProto]:
    truth = _truth(stem)
    if truth.get("refused"):
        return []
    dd = set(truth.get("data_dependent", []))
    model = onnx.load(str(wg.EXPORTS / f"{stem}.onnx"))
    return [n for n in model.graph.node if n.op_type in ("ScatterND", "ScatterElements")
            and not any(i in dd for i in n.input)]


@pytest.mark.parametrize("stem", MODELS)
def test_scatter_nodes_valid(stem):
    status = {n.name: n.status for n in _report(stem).nodes}
    not_valid = sorted(n.name for n in _index_independent_scatters(stem) if status.get(n.name) != "valid")
    listed = sorted(FLOORS[stem].get("scatter_not_valid", []))
    assert not_valid == listed, (
        f"{stem}: scatter nodes not valid {[(n, status.get(n)) for n in not_valid]}; floors.json lists {listed} "
        "(take a node off the list once it is valid)")


def test_baked_batch_is_never_valid():
    baked = [s for s in MODELS if _truth(s).get("refused")]
    assert baked, "the corpus must hold an export that bakes the sample's batch size"
    for stem in baked:
        report = _report(stem)
        hedged = (report.failed or report.assumptions
                  or any(n.status in ("conditional", "invalid") for n in report.nodes))
        assert hedged, f"{stem} runs only at the traced batch size but is reported valid"


# ---------------------------------------------------------------- the harness itself


def test_classify():
    b, s = symbol("batch"), symbol("seq")
    truths = [[2, 5, 6], [3, 7, 8]]
    envs = [{"batch": 2, "seq": 5}, {"batch": 3, "seq": 7}]
    assert wg.classify((b, s, s + 1), truths, envs, False) == "exact"
    assert wg.classify((b, s, 6), truths, envs, False) == "wrong"        # static where it varies
    assert wg.classify((b, s, 2 * s - 4), truths, envs, False) == "wrong"  # right at 5, wrong at 7
    assert wg.classify((b, s), truths, envs, False) == "wrong"           # rank
    assert wg.classify(None, truths, envs, False) == "unknown"
    assert wg.classify((b, s, unknown_dim("x")), truths, envs, False) == "unknown"
    assert wg.classify((b, s, symbol("unk__3")), truths, envs, False) == "unknown"
    assert wg.classify((b, s, symbol("nnz")), truths, envs, True) == "fresh"
    assert wg.classify((b, s, sympy.floor(s / 2) + sympy.ceiling(s / 2) + 1), truths, envs, False) == "exact"


def test_peer_dim_text_is_parsed_without_eval():
    d = wg._parse_text_dim("seq+1", "t")
    assert d == symbol("seq") + 1
    assert wg._parse_text_dim("Min(16, seq)", "t") == sympy.Min(16, symbol("seq"))   # as torch and peers write a cap
    assert is_unknown(wg._parse_text_dim("Floor(seq, 2)", "t"))   # no other call
    assert is_unknown(wg._parse_text_dim("__import__('os')", "t"))
    assert parse_dim("2*batch") == 2 * symbol("batch")


def test_compare_counts_missing_tensors_as_unknown(tmp_path):
    truth = {"input_dims": {"x": ["n"]}, "data_dependent": [],
             "runs": [{"inputs": {"x": [2]}, "shapes": {"a": [2], "b": [4], "c": [1]}},
                      {"inputs": {"x": [3]}, "shapes": {"a": [3], "b": [6], "c": [1]}}]}
    path = tmp_path / "m.truth.json"
    path.write_text(json.dumps(truth))
    n = symbol("n")
    score = wg.compare(None, path, {"a": TensorType(None, (n,)), "b": TensorType(None, (n + 2,))})
    assert (score.exact, score.wrong, score.unknown, score.total) == (1, 1, 1, 3)
    assert score.details == {"b": ("wrong", "[n+2]"), "c": ("unknown", "missing")}
