"""The stated input domain against onnxruntime, on exports whose limits are known.

``tests/fixtures/domain/`` (made by ``tests/fixtures/make_domain.py`` with torch 2.14: both
exporters) holds exports that run only at their export size (a Linear over time, a hard-coded
reshape, a fixed positional table, a Flatten sized for 32x32, a baked batch, an RNN), exports
with ranges (BERT and GPT-2 position tables, a Whisper-style encoder, UNet skips, YOLO strides,
sliding windows, a decoder with a past), and healthy ones (resnet, mobilenet, Llama).  Each
has a grid of sizes, just inside and just outside every bound, and onnxruntime's outcome at
each point (``<model>.grid.json``; CI does not rerun them).

* At every grid point, the domain shapecheck states admits the sizes exactly where onnxruntime
  runs the model (with graph optimizations off where they change the outcome: the optimizer
  turns an out-of-range position lookup into a clamping Slice, runtime-findings DM1).
* ``--dims`` at a grid point (``check_model(dims=...)``) is valid exactly where onnxruntime runs.
* An export that runs only at its export size fails by default and under ``--quiet``, naming
  the pinned dim; the healthy ones pass, resnet, mobilenet and Llama under ``--strict`` too.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

import shapecheck
from shapecheck.cli import main

DOMAIN = Path(__file__).resolve().parent / "fixtures" / "domain"
MANIFEST = json.loads((DOMAIN / "manifest.json").read_text())["models"]
MODELS = sorted(p.stem for p in DOMAIN.glob("*.onnx"))
PINNED = ("linear_time", "hardcoded_reshape", "pos_table16", "flatten_linear", "levit_biases", "rnn_fixed_ts17",
          "baked_batch_ts17",
          "rnn_stack_dynamo18")
HEALTHY = ("resnet_tiny", "mobilenet_tiny", "llama_tiny", "bert_pos_ts17", "gpt2_pos_ts17", "rnn_stack_ts17")
STRICT = ("resnet_tiny", "mobilenet_tiny", "llama_tiny")


@cache
def _report(stem: str, nonempty: bool = True):
    return shapecheck.check_model(str(DOMAIN / f"{stem}.onnx"), assume_nonempty=nonempty)


def _points(stem: str) -> list[tuple[dict, bool]]:
    """(sizes, whether onnxruntime runs the model there) at every grid point inside the ranges the
    exporter recorded (torch's range_constraints: outside them the export claims nothing)."""
    grid = json.loads((DOMAIN / f"{stem}.grid.json").read_text())
    ranges = _recorded(stem)
    return [(p["dims"], p.get("disable_all", p)["ok"]) for p in grid["points"]
            if all(lo <= p["dims"][n] and (hi is None or p["dims"][n] <= hi) for n, (lo, hi) in ranges.items()
                   if n in p["dims"])]


@cache
def _recorded(stem: str) -> dict:
    from shapecheck.model.check import load_graph
    from shapecheck.model.sizes import recorded_ranges
    from shapecheck.registry import default_registry
    return recorded_ranges(load_graph(str(DOMAIN / f"{stem}.onnx"), default_registry()))


@pytest.mark.parametrize("stem", MODELS)
def test_the_stated_domain_is_where_onnxruntime_runs(stem):
    wrong = []
    for dims, ok in _points(stem):
        empty = any(v == 0 for v in dims.values())
        domain = _report(stem, not empty).domain
        admits = domain.admits(dims)
        if admits is not ok:
            wrong.append((dims, "onnxruntime runs" if ok else "onnxruntime fails", f"domain says {admits}"))
        # what the sizes fail is named exactly where the domain leaves them out for a relation's sake
        if bool(domain.excluding(dims)) is not (admits is False and domain.valid):
            wrong.append((dims, f"domain says {admits}", "excluding", [r.text for r in domain.excluding(dims)]))
    assert not wrong, f"{stem}: domain {_report(stem).domain.text()!r}: {wrong[:4]}"


@pytest.mark.parametrize("stem", MODELS)
def test_dims_answers_as_onnxruntime_at_every_grid_point(stem):
    wrong = []
    for dims, ok in _points(stem):
        empty = any(v == 0 for v in dims.values())
        rep = shapecheck.check_model(str(DOMAIN / f"{stem}.onnx"), dims=dims, assume_nonempty=not empty)
        if (rep.exit_code == 0) is not ok:
            wrong.append((dims, ok, [f.constraint for n in rep.nodes for f in n.violations][:2],
                          [f.constraint for f in rep.violations][:2]))
        # sizes the domain leaves out are said to be, first, naming the relations they fail
        excluded = [r.text for r in _report(stem, not empty).domain.excluding(dims)]
        outside = [f.rule for f in rep.violations if f.constraint == "outside-domain"]
        if outside != (["; ".join(excluded)] if excluded and not ok else []) or \
                (outside and rep.violations[0].constraint != "outside-domain"):
            wrong.append((dims, ok, "excluded by", excluded, "outside-domain findings", outside))
    assert not wrong, f"{stem}: {wrong[:4]}"


@pytest.mark.parametrize("stem", [m for m in MODELS if m.startswith(PINNED)])
def test_an_export_that_runs_only_at_its_export_size_fails_naming_the_dim(stem, capsys):
    rep = _report(stem)
    pins = [f for f in rep.violations if f.constraint == "pinned"]
    assert rep.exit_code == 1 and pins, rep.domain.text()
    assert main(["check", "--quiet", str(DOMAIN / f"{stem}.onnx")]) == 1
    err = capsys.readouterr().err
    assert "error[pinned]" in err and any(d in err for d in ("seq", "batch", "height"))


@pytest.mark.parametrize("stem", [m for m in MODELS if m.startswith(HEALTHY)])
def test_healthy_exports_pass_by_default(stem):
    assert _report(stem).exit_code == 0, [str(f) for f in _report(stem).violations]


@pytest.mark.parametrize("stem", [m for m in MODELS if m.startswith(STRICT)])
def test_healthy_vision_and_llama_exports_pass_strict(stem):
    rep = shapecheck.check_model(str(DOMAIN / f"{stem}.onnx"), strict=True)
    assert rep.exit_code == 0, (rep.domain.text(), [r.text for r in rep.domain.relations])


def test_the_corpus_is_all_here():
    assert len(MODELS) >= 35 and all(m in MANIFEST for m in MODELS)


def test_no_condition_names_an_internal_tensor():
    """Every relation of every corpus model's domain is over input dims or named run-time sizes."""
    from tests.harness.corpora import corpus_models
    from shapecheck.dims import is_unknown
    bad = []
    for path in corpus_models():
        rep = shapecheck.check_model(path)
        for rel in rep.domain.relations:
            syms = getattr(rel.relation, "free_symbols", None)
            if (rel.relation is None and rel.kind == "condition") or any(is_unknown(s) for s in syms or ()):
                bad.append((path, rel.text))
    assert not bad, bad[:5]


def test_every_size_onnxruntime_ran_the_corpora_at_is_in_the_domain():
    """The export corpus, the zoo and the sklearn corpus were run in onnxruntime at several sizes (``<model>.truth.json``):
    the stated domain admits every size it ran at, and none it refused (inside the ranges the
    exporter recorded)."""
    from tests.harness.corpora import FIXTURES
    wrong = []
    for truth in sorted(FIXTURES.glob("*/*.truth.json")):
        t = json.loads(truth.read_text())
        model = truth.with_name(truth.name.replace(".truth.json", ".onnx"))
        rep = shapecheck.check_model(str(model))
        ranges = _recorded_of(str(model))
        for ran, runs in ((True, t["runs"]), (False, t.get("refused", []))):
            for run in runs:
                # the input shapes of the run (exports, zoo), or its sizes by dim name (the sklearn corpus)
                sizes = {k: v for k, v in run.items() if isinstance(v, int) and not isinstance(v, bool)}
                for name, dims in t["input_dims"].items():
                    for d, v in zip(dims, run.get("inputs", {}).get(name, ())):
                        if isinstance(d, str):
                            sizes[d] = v
                if any(n in sizes and not (lo <= sizes[n] and (hi is None or sizes[n] <= hi))
                       for n, (lo, hi) in ranges.items()):
                    continue
                if rep.domain.admits(sizes) is not ran and (ran or rep.domain.admits(sizes) is not None):
                    wrong.append((model.name, sizes, "ran" if ran else "refused", rep.domain.text()))
    assert not wrong, wrong[:5]


def _recorded_of(path: str) -> dict:
    from shapecheck.model import load_graph
    from shapecheck.model.sizes import recorded_ranges
    from shapecheck.registry import default_registry
    return recorded_ranges(load_graph(path, default_registry()))


def test_a_pin_is_found_in_the_graph_when_the_recorded_ranges_are_gone(tmp_path):
    """rnn_stack_dynamo18 with torch's range metadata stripped (as tools that rewrite a model may do):
    the graph alone says ``(batch*seq) % 5 == 0`` and ``batch == floor(batch*seq/5)``, which together
    are ``seq == 5`` -- where onnxruntime runs it, at every grid point."""
    import onnx
    from shapecheck.model.sizes import RANGES_KEY
    model = onnx.load(str(DOMAIN / "rnn_stack_dynamo18.onnx"))
    for holder in (model, model.graph):
        kept = [p for p in holder.metadata_props if p.key != RANGES_KEY]
        del holder.metadata_props[:]
        holder.metadata_props.extend(kept)
    path = tmp_path / "stripped.onnx"
    onnx.save(model, str(path))
    rep = shapecheck.check_model(str(path))
    assert [f.constraint for f in rep.violations] == ["pinned"] and "seq == 5" in rep.domain.text()
    wrong = [(dims, ok) for dims, ok in _points("rnn_stack_dynamo18") if rep.domain.admits(dims) is not ok]
    assert not wrong, (rep.domain.text(), wrong)


def _recorded_batch(tmp_path, batch: str) -> str:
    """resnet_tiny_dynamo18 (onnxruntime runs it at batch 4) with torch's recorded range of batch ``batch``."""
    import onnx
    from shapecheck.model.sizes import RANGES_KEY
    model = onnx.load(str(DOMAIN / "resnet_tiny_dynamo18.onnx"))
    for holder in (model, model.graph):
        kept = [p for p in holder.metadata_props if p.key != RANGES_KEY]
        del holder.metadata_props[:]
        holder.metadata_props.extend(kept)
    model.metadata_props.add(key=RANGES_KEY, value=f"{{batch: {batch}, height: VR[1, 4096], width: VR[1, 4096]}}")
    path = str(tmp_path / "recorded.onnx")
    onnx.save(model, path)
    return path


def test_a_size_torch_recorded_as_its_only_one_pins_the_dim_as_the_exports(tmp_path):
    """torch's Dim.AUTO records the size it specialized as a range of one value (linear_time_dynamo18's
    ``VR[32, 32]``), the input still declared dynamic: pinned by the export's record, said so."""
    [pin] = [f for f in shapecheck.check_model(_recorded_batch(tmp_path, "VR[2, 2]")).violations
             if f.constraint == "pinned"]
    assert pin.message.startswith("the export is valid only where batch == 2") and "runs only" not in pin.message
    assert "torch.export.Dim" in pin.fix and "range the exporter recorded" in pin.values["from"]
    assert main(["check", "--quiet", str(DOMAIN / "rnn_fixed_ts17.onnx")]) == 1   # a graph's own pin says "runs only"
    assert [f.message for f in _report("rnn_fixed_ts17").violations if f.constraint == "pinned"][0].startswith(
        "the model runs only where")


@pytest.mark.parametrize("batch", ["VR[0, 2]", "VR[1, 8]"])
def test_a_range_of_a_few_sizes_torch_recorded_is_the_exports_contract_not_a_pin(tmp_path, capsys, batch):
    """``Dim("batch", min=1, max=8)`` records ``VR[1, 8]``: eight sizes the user asked for, not a dim the
    export specialized (it was reported as pinned, with a fix to re-export the dim dynamic).  The
    domain states the range as the export's, and the graph runs on more (onnxruntime at batch 4 with
    ``VR[0, 2]``, the cap of a Dim.AUTO export on a small sample)."""
    path = _recorded_batch(tmp_path, batch)
    rep = shapecheck.check_model(path)
    assert not [f for f in rep.violations if f.constraint == "pinned"] and rep.exit_code == 0
    [rel] = [r for r in rep.domain.relations if r.dims == ("batch",)]
    assert rel.declared and rel.severity == "info" and rel.text == f"1 <= batch <= {batch[-2]}"
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    assert f"1 <= batch <= {batch[-2]}    (recorded by the exporter and taken as the model's contract" in out, out


def test_a_pin_over_several_dims_gives_a_size_that_runs():
    # floor(height/4)*floor(width/4) == 64 (a Flatten -> Linear after two stride-2 stages): the fix
    # names the smallest size meeting it at every dim, and onnxruntime runs there (and not one below)
    import numpy as np
    import onnxruntime as ort
    from shapecheck.findings import PINNED
    path = str(DOMAIN / "flatten_linear_ts17.onnx")
    rep = shapecheck.check_model(path)
    (pin,) = [v for v in rep.violations if v.constraint == PINNED]
    assert pin.fix.endswith("(for example height = width = 32)"), pin.fix
    assert rep.domain.admits({"batch": 1, "height": 32, "width": 32}) and \
        not rep.domain.admits({"batch": 1, "height": 31, "width": 31})
    sess = ort.InferenceSession(path)
    name = sess.get_inputs()[0].name
    sess.run(None, {name: np.zeros((1, 3, 32, 32), np.float32)})
    with pytest.raises(Exception):
        sess.run(None, {name: np.zeros((1, 3, 31, 31), np.float32)})


def test_swins_padded_windows_read_as_one_set_per_dim():
    """A Swin export's window reshapes need ``16*ceiling(a/4)*ceiling(b/4) == a*b`` over the maps'
    sizes, and its attention reshapes products of them that are never 0: the domain says one set per
    dim (the sizes whose maps need no padding, which the tracer baked in), not a dozen raw conditions."""
    rep = _report("swin_windows_ts17")
    assert [r.dims for r in rep.domain.relations] == [("height",), ("width",)] and rep.exit_code == 0
    assert rep.domain.text() == ("batch >= 1, floor(height/4) % 8 == 0 and height >= 32, "
                                 "floor(width/4) % 8 == 0 and width >= 32")


def test_one_size_in_two_forms_is_no_condition():
    """conv_pool_upsample's map height ``2*floor(h/8 - 9/8) + 2`` and torch's flatten size from
    ``(h - 1)//8`` are one size: its Reshape is valid, and the domain is the recorded ranges alone
    (it stated ``X == X``, every floor shown as a ceiling, as a condition of the Reshape)."""
    rep = _report("conv_pool_upsample_dynamo18")
    assert rep.summary["conditional"] == 0 and rep.exit_code == 0
    assert [(r.dims, r.declared) for r in rep.domain.relations] == [(("batch",), True), (("height",), True),
                                                                   (("width",), True)]


@pytest.mark.parametrize("stem", ["levit_biases_ts17", "levit_biases_dynamo18"])
def test_a_pin_many_nodes_need_is_one_finding_naming_them(stem):
    """LeViT's attention biases, its reshapes and its MatMuls each need the 4x4 positions of the
    sample: one root cause, one finding, at the first node that needs it (the pass then takes the
    pin as a fact, ``domain.rewrite``: the later nodes' sizes agree under it)."""
    rep = _report(stem)
    pins = [f for f in rep.violations if f.constraint == "pinned"]
    assert [f.rule for f in pins] == ["ceiling(height/16)*ceiling(width/16) == 16"]
    assert "MatMul" in pins[0].values["needed by"] and rep.exit_code == 1


def test_one_size_given_is_valid_where_onnxruntime_runs_at_some_size_of_the_others():
    """``--dims seq=60`` on ``past_len + seq <= 64``: valid, the rest a bound at that size (``1 <=
    past_len <= 4``, not a pin); ``seq=64``: past_len >= 1 leaves no size, so the sizes are outside the
    domain, said first.  Checked against onnxruntime's grid, for one dim given at a time."""
    stem = "gpt2_cache_pos_ts17"
    points = [(d, ok) for d, ok in _points(stem) if all(v > 0 for v in d.values())]
    wrong, checked = [], 0
    for name in ("seq", "past_len"):
        for v in sorted({d[name] for d, _ok in points}):
            runs = any(ok for d, ok in points if d[name] == v)
            # failing where the other of past_len and seq is 1 (past_len + seq only grows with it; the
            # grid's batch is 2 there, which the relation does not name)
            fails = not runs and any(not ok for d, ok in points if d[name] == v and all(
                x == 1 for k, x in d.items() if k not in (name, "batch")))
            rep = shapecheck.check_model(str(DOMAIN / f"{stem}.onnx"), dims={name: v})
            kinds = [f.constraint for f in rep.violations]
            if runs and (rep.exit_code or kinds):
                wrong.append((name, v, "onnxruntime runs at some size", kinds))
            if fails and (rep.exit_code == 0 or kinds[:1] != ["outside-domain"]):
                wrong.append((name, v, "onnxruntime fails at every size", kinds))
            checked += fails
    assert not wrong and checked >= 2, (wrong, checked)
    rep = shapecheck.check_model(str(DOMAIN / f"{stem}.onnx"), dims={"seq": 60})
    assert [r.text for r in rep.domain.relations if r.dims == ("past_len",)] == ["1 <= past_len <= 4"]


@pytest.mark.parametrize("stem", ["hardcoded_reshape_ts17", "linear_time_ts17"])
def test_sizes_a_pin_leaves_out_get_the_pins_fix_aimed_at_its_constant(stem):
    """``--dims`` where a pinned model fails: the sizes are outside its domain, and the fix says both
    ways on, a size the pin admits or the graph made dynamic where its constant fixes the dim."""
    pin = next(r for r in _report(stem).domain.relations if r.severity == "error")
    dims, ok = next((d, ok) for d, ok in _points(stem) if not ok and pin in _report(stem).domain.excluding(d))
    rep = shapecheck.check_model(str(DOMAIN / f"{stem}.onnx"), dims=dims)
    first = rep.violations[0]
    assert first.constraint == "outside-domain" and first.rule == pin.text, [str(f) for f in rep.violations]
    assert first.fix.startswith(f"check at sizes where {pin.text}")
    assert "dynamic in the graph too (the constant" in first.fix and first.fix.endswith(
        "to run at " + ", ".join(f"{n} = {dims[n]}" for n in pin.dims)), first.fix
