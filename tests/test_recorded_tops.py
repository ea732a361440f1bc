"""What the graph allows past a range the exporter recorded (``model/recorded.py``), on a BERT dynamo
export whose position table has 64 rows, with its ``range_constraints`` rewritten: the check runs
again without the recorded tops, and each statement is compared with where onnxruntime runs.

Before, a record of ``seq <= 64`` hid the table's own need (the pass proved it under the record),
and the report said the graph "may run on more", which onnxruntime refutes at 65.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import shapecheck
from shapecheck.domain.relation import DomainRelation
from shapecheck.model.recorded import graph_tops, recorded_tops
from shapecheck.model.sizes import RANGES_KEY
from tests.harness.runtime import run_model

BERT = Path(__file__).parent / "fixtures" / "exports" / "bert_dynamo18.onnx"


def _recorded(tmp_path, ranges: str) -> str:
    m = onnx.load(str(BERT), load_external_data=False)
    (prop,) = [p for p in m.graph.metadata_props if p.key == RANGES_KEY]
    prop.value = ranges   # s43 is batch, s53 seq (torch lists them by the order the inputs use them)
    path = str(tmp_path / "bert.onnx")
    onnx.save(m, path)
    return path


def _runs(path: str, batch: int, seq: int) -> bool:
    ids = np.ones((batch, seq), np.int64)
    return run_model(onnx.load(path), {"input_ids": ids, "attention_mask": ids}) is not None


def _relation(rep, name: str) -> DomainRelation:
    (rel,) = [r for r in rep.domain.relations if r.dims == (name,)]
    return rel


def test_a_recorded_top_the_graph_needs_too_names_the_table(tmp_path, capsys):
    from shapecheck.cli import main
    path = _recorded(tmp_path, "{s43: VR[1, 1024], s53: VR[1, 64]}")
    rep = shapecheck.check_model(path)
    seq = _relation(rep, "seq")
    assert (seq.text, seq.graph_checked, seq.graph_top, seq.declared) == ("1 <= seq <= 64", True, 64, True)
    assert [s.node for s in seq.sources] == ["node_expand_1"]
    assert any("int64[1,64]" in c for s in seq.sources for c in s.constants)
    assert seq.to_dict()["graph_top"] == 64
    assert main(["check", path]) == 0   # within the record: OK, as before
    out = capsys.readouterr().out
    assert "1 <= seq <= 64    (needed by node_expand_1; from initializer" in out
    assert "the exporter recorded the same top)" in out
    assert "= to go past it: re-export with initializer 'expand' int64[1,64]" in out
    assert "seq <= 64    (recorded by the exporter" not in out   # no "may run on more"
    assert _runs(path, 2, 64) and not _runs(path, 2, 65)


def test_a_recorded_top_below_the_graphs_says_how_far_the_graph_goes(tmp_path, capsys):
    from shapecheck.cli import main
    path = _recorded(tmp_path, "{s43: VR[1, 1024], s53: VR[1, 32]}")
    rep = shapecheck.check_model(path)
    seq, batch = _relation(rep, "seq"), _relation(rep, "batch")
    assert rep.domain.text() == "1 <= batch <= 1024, 1 <= seq <= 32"   # the contract stays the domain
    assert (seq.graph_checked, seq.graph_top, seq.sources) == (True, 64, [])
    assert (batch.graph_checked, batch.graph_top) == (True, None)
    main(["check", path])
    out = capsys.readouterr().out
    assert "the graph itself is valid up to seq <= 64, checked without the recorded top" in out
    assert "the graph itself is valid for every batch >= 1, checked without the recorded top" in out
    assert _runs(path, 1, 64) and not _runs(path, 1, 65) and _runs(path, 1025, 3)


def test_a_pin_the_record_alone_makes_says_what_the_graph_needs(tmp_path):
    path = _recorded(tmp_path, "{s43: VR[1, 1024], s53: VR[32, 32]}")
    rep = shapecheck.check_model(path)
    (pin,) = [f for f in rep.violations if f.constraint == "pinned"]
    assert pin.rule == "seq == 32"
    assert pin.values["without the record"] == "the graph itself is valid up to seq <= 64, checked without the recorded range"
    assert _runs(path, 1, 20) and not _runs(path, 1, 65)


def test_an_unrecorded_or_unbounded_range_is_not_checked_again(tmp_path):
    calls = []
    rep = shapecheck.check_model(_recorded(tmp_path, "{s43: VR[2, int_oo], s53: VR[2, int_oo]}"))
    assert not any(r.graph_checked for r in rep.domain.relations)
    assert graph_tops(rep, {"batch": (2, None)}, True, lambda r: calls.append(r)) is None and not calls


class _Report:
    def __init__(self, relations, invalid=0):
        self.domain = type("D", (), {"relations": relations, "invalid_nodes": []})()
        self.summary = {"invalid": invalid}
        self.violations = []


@pytest.mark.parametrize("other, written", [
    ([], (True, None)),                                                              # no condition on it
    ([DomainRelation("bound", ("seq",), "1 <= seq <= 64", lo=1, hi=64)], (True, 64)),
    ([DomainRelation("linear", ("past", "seq"), "past + seq <= 64")], (False, None)),  # over several dims
    ([DomainRelation("values", ("seq",), "seq == 8", "error", values=(8,))], (False, None)),
    ([DomainRelation("bound", ("seq",), "1 <= seq <= 16", lo=1, hi=16)], (False, None)),  # tighter: not trusted
])
def test_only_one_proved_interval_past_the_top_is_written(other, written):
    rel = DomainRelation("bound", ("seq",), "1 <= seq <= 32", lo=1, hi=32, declared=True)
    rep = _Report([rel])
    seen = []
    graph_tops(rep, {"seq": (1, 32)}, True, lambda ranges: seen.append(ranges) or _Report(other))
    assert seen == [{"seq": (1, None)}]
    assert (rel.graph_checked, rel.graph_top) == written


def test_a_check_past_the_top_with_an_invalid_node_writes_nothing():
    rel = DomainRelation("bound", ("seq",), "1 <= seq <= 32", lo=1, hi=32, declared=True)
    graph_tops(_Report([rel]), {"seq": (1, 32)}, True, lambda ranges: _Report([], invalid=1))
    assert not rel.graph_checked


def test_which_ranges_are_checked_again():
    needed = DomainRelation("bound", ("t",), "3 <= t <= 82", lo=3, hi=82, sources=["conv"], top_recorded=True)
    own = DomainRelation("bound", ("s",), "1 <= s <= 64", lo=1, hi=64, sources=["table"])
    domain = type("D", (), {"relations": [needed, own]})()
    # a top the nodes need stays; a top the record alone gives (its bottom needed by a kernel) is checked
    assert recorded_tops(domain, {"t": (1, 82), "s": (1, 1024)}, True) == {"t": (1, None)}
