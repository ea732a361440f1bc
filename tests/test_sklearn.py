"""The sklearn corpus (tests/fixtures/sklearn/, written by tests/fixtures/make_sklearn.py): every tensor's
inferred type is onnxruntime's at both batch sizes, exactly: element type, rank and every dim (over the
model's batch dim), a sequence's length and its elements (ZipMap's maps: key and value types).

No dim may be wrong; none may be left unknown either (100% exact): every op skl2onnx writes has a
spec, ai.onnx.ml's included.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy

import shapecheck
from shapecheck.containers import MapType, SequenceType
from shapecheck.dims import has_unknown, symbol
from shapecheck.types import TensorType

CORPUS = Path(__file__).resolve().parent / "fixtures" / "sklearn"
MODELS = sorted(p.stem for p in CORPUS.glob("*.onnx"))
BATCH = symbol("batch")


def _dim(d, batch: int):
    if type(d) is int or not isinstance(d, sympy.Basic):
        return d
    if has_unknown(d):
        return None
    v = sympy.sympify(d).xreplace({BATCH: sympy.Integer(batch)})
    return int(v) if v.is_Integer else None


def _verdict(t, want: dict, batch: int) -> str:
    """exact | unknown (a part not inferred) | wrong (a part that contradicts the run), for one tensor."""
    kind = want["kind"]
    if kind == "tensor":
        if not isinstance(t, TensorType) or t.dtype is None or t.shape is None:
            return "unknown" if isinstance(t, TensorType) and t.dtype in (None, want["dtype"]) else "wrong"
        if t.dtype != want["dtype"] or len(t.shape) != len(want["shape"]):
            return "wrong"
        dims = [_dim(d, batch) for d in t.shape]
        if any(d is not None and d != w for d, w in zip(dims, want["shape"])):
            return "wrong"
        return "unknown" if None in dims else "exact"
    if kind == "sequence":
        if not isinstance(t, SequenceType):
            return "unknown" if isinstance(t, TensorType) and t.dtype is None and t.shape is None else "wrong"
        n = _dim(t.length, batch) if t.length is not None else None
        if n is not None and n != want["length"]:
            return "wrong"
        parts = [_verdict(t.items[i] if t.items is not None else t.elem, e, batch)
                 for i, e in enumerate(want["elements"])]
        if "wrong" in parts:
            return "wrong"
        return "exact" if n is not None and set(parts) <= {"exact"} else "unknown"
    ok = isinstance(t, MapType) and t.key == want["key"] and isinstance(t.value_type, TensorType)
    return "exact" if ok and t.value_type.dtype == want["value"] else ("unknown" if ok else "wrong")


@pytest.mark.parametrize("name", MODELS)
def test_every_tensor_is_exact(name):
    truth = json.loads((CORPUS / f"{name}.truth.json").read_text())
    report = shapecheck.check_model(str(CORPUS / f"{name}.onnx"))
    assert report.exit_code == 0, [(n.name, [str(v) for v in n.violations]) for n in report.nodes if n.violations]
    assert report.coverage["unknown"] == 0 and report.coverage["fallback"] == 0, report.coverage
    verdicts = {}
    for run in truth["runs"]:
        for tensor, want in run["tensors"].items():
            got = report.types.get(tensor)
            verdicts[(tensor, run["batch"])] = _verdict(got, want, run["batch"]), str(got), want
    wrong = {k: v for k, v in verdicts.items() if v[0] == "wrong"}
    assert not wrong, wrong
    inexact = {k: v for k, v in verdicts.items() if v[0] != "exact"}
    assert not inexact, inexact


def test_the_corpus_is_whole():
    assert len(MODELS) >= 19
    assert {"logreg_binary", "random_forest", "svc_proba", "gradient_boosting", "dict_vectorizer",
            "column_pipeline", "onehot_strings", "label_encoder"} <= set(MODELS)
    assert all((CORPUS / f"{m}.truth.json").is_file() for m in MODELS)
    assert all((CORPUS / f"{m}.onnx").stat().st_size < 4096 for m in MODELS)


def test_annotated_models_pass_onnxs_full_check(tmp_path):
    import onnx
    for name in MODELS:
        out = tmp_path / f"{name}.onnx"
        shapecheck.check_model(str(CORPUS / f"{name}.onnx"), output=str(out))
        onnx.checker.check_model(onnx.load(str(out)), full_check=True)
