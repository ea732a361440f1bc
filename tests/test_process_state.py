"""Same model, same answer: no report depends on what the process checked before.

Every model of the test corpora, and a copy of each with its input dims bound to sizes, is
answered by ``check_model`` and by entry points drawn at random among the others (``check_model``
with its options, ``annotate``, ``infer``), and by the CLI's ``batch.check_one``, in a process of its
own; then all of them again, in one process, in two random orders of (model, entry), and by the
CLI's worker pool with many models per worker (a third order).  Every answer must equal the fresh
process's.

A cache that keys a result by less than all it depends on fails here: the fold cache once keyed
ConstantOfShape's folded value by its input tensor alone, so a float fill of one model was the
int64 fill of the next.
"""
from __future__ import annotations

import multiprocessing
import random

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T, helper, numpy_helper

import shapecheck
from shapecheck import batch
from tests.harness import fresh
from tests.harness.corpora import bound_copy, corpus_models

ORDERS = (1, 2)   # seeds of the random orders (the worker pool's interleaving is a third order)


def _fill_model(value_dtype) -> onnx.ModelProto:
    """``ConstantOfShape(Shape(x))`` of a one-element ``value`` of ``value_dtype``, squared."""
    value = numpy_helper.from_array(np.array([1], dtype=value_dtype), "value")
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("ConstantOfShape", ["s"], ["ones"], value=value),
             helper.make_node("Mul", ["ones", "ones"], ["y"])]
    out = helper.np_dtype_to_tensor_dtype(np.dtype(value_dtype))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, [3])],
                          [helper.make_tensor_value_info("y", out, [3])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("first, second", [(np.float32, np.int64), (np.int64, np.float32), (np.int64, np.int32)])
def test_a_folded_fill_keeps_its_element_type_after_another_model(first, second):
    shapecheck.check_model(_fill_model(first))
    rep = shapecheck.check_model(_fill_model(second))
    want = np.dtype(second).name.replace("float32", "float")
    assert str(rep.types["ones"]) == f"{want}[3] = " + ("[1.0, 1.0, 1.0]" if want == "float" else "[1, 1, 1]")
    assert rep.summary["invalid"] == 0 and rep.exit_code == 0


# session-scoped: the module's tests run in one worker (--dist loadscope), which may run another module's
# tests between them; a module fixture would be computed again after those
@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> list[str]:
    """The corpora, their dim-bound copies, and the fills above (which share a folded input)."""
    out = tmp_path_factory.mktemp("bound")
    paths = corpus_models()
    for dtype in (np.float32, np.int64, np.int32):
        onnx.save(_fill_model(dtype), str(out / f"fill_{np.dtype(dtype).name}.onnx"))
        paths.append(str(out / f"fill_{np.dtype(dtype).name}.onnx"))
    return paths + [b for p in paths if (b := bound_copy(p, out)) is not None]


def _sources_hash() -> str:
    """A hash of shapecheck's code and specs: a file saved while this module's tests run would reach
    the processes forked after it only, and look like an answer that depends on the order."""
    import hashlib
    from pathlib import Path
    root = Path(shapecheck.__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted([*(root / "shapecheck").rglob("*.py"), *(root / "specs").rglob("*.toml")]):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="session")
def sources_at_start() -> str:
    return _sources_hash()


@pytest.fixture(scope="session")
def fresh_answers(corpus, sources_at_start) -> list[dict[str, str]]:
    """A fresh process's answers: per model, of ``check``, of the CLI's ``batch`` and of every entry the
    random orders draw for it (the others are never compared)."""
    drawn: list[set] = [set() for _ in corpus]
    for order in _orders(len(corpus)):
        for i, name in order:
            drawn[i].add(name)
    names = [("check",) + tuple(n for n in fresh.ENTRIES[1:] if n in d) + ("batch",) for d in drawn]
    return fresh.fresh_reports(corpus, names=names)


def _unchanged(sources_at_start: str) -> None:
    assert _sources_hash() == sources_at_start, (
        "shapecheck's sources or specs changed while this test ran: its answers compare two versions of the "
        "code, not two orders; run it again on a tree nobody edits")


def _orders(n: int) -> list[list[tuple[int, str]]]:
    """Per seed: every model by ``check`` and by one more entry drawn at random, all shuffled."""
    out = []
    for seed in ORDERS:
        rng = random.Random(seed)
        order = [(i, name) for i in range(n) for name in ("check", rng.choice(fresh.ENTRIES[1:]))]
        rng.shuffle(order)
        out.append(order)
    return out


def test_the_corpora_are_all_here(corpus):
    kinds = {p.split("/fixtures/")[-1].split("/")[0] for p in corpus if "/fixtures/" in p}
    assert {"exports", "zoo", "broken", "ir", "torch"} <= kinds
    assert sum(p.endswith("__bound.onnx") for p in corpus) >= 50


def test_every_answer_is_a_fresh_process_answer_in_any_order(corpus, fresh_answers, sources_at_start):
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Pool(2, maxtasksperchild=1) as pool:
        runs = pool.starmap(fresh.in_order, [(corpus, order) for order in _orders(len(corpus))])
    _unchanged(sources_at_start)
    for seed, got in zip(ORDERS, runs):
        differ = [(corpus[i], name) for (i, name), text in got.items() if text != fresh_answers[i][name]]
        assert not differ, f"order {seed}: {len(differ)} answers differ from a fresh process's, first {differ[:5]}"


def test_the_worker_pool_answers_as_a_fresh_process(corpus, fresh_answers, sources_at_start):
    outcomes = batch.run(corpus, jobs=2)      # many models per worker, forked from this process
    _unchanged(sources_at_start)
    differ = []
    for path, o, want in zip(corpus, outcomes, fresh_answers):
        d = o.to_dict()
        d.pop("model", None)
        if fresh._canon(d) != want["batch"]:
            differ.append(path)
    assert not differ, f"{len(differ)} models differ from a fresh process's report, first {differ[:5]}"
