"""Bad input to execute, verify and `shapecheck verify` gives the package's errors, never numpy's."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import shapecheck
from shapecheck.errors import ConstraintError, ShapeCheckError, UsageError
from shapecheck.verify import verify

F = np.float32
D = np.zeros((4, 3), F)
I = np.array([[0, 1, 2]], np.int64)
U = np.ones((1, 3), F)

# (op, opset, inputs, attrs, constraint id expected in the message or None for a UsageError)
BAD = [
    ("wrong updates dtype", "ScatterElements", 18, {"data": D, "indices": I, "updates": U.astype(np.float64)}, {}, "C7"),
    ("float indices", "ScatterElements", 18, {"data": D, "indices": I.astype(F), "updates": U}, {}, "C8"),
    ("int32 indices ScatterND", "ScatterND", 18, {"data": D, "indices": np.array([[1]], np.int32), "updates": U}, {}, "C5"),
    ("updates shape", "ScatterND", 18, {"data": D, "indices": np.array([[1]]), "updates": np.ones((1, 4), F)}, {}, "C7"),
    ("k > r", "ScatterND", 18, {"data": D, "indices": np.array([[1, 2, 0]]), "updates": np.ones(1, F)}, {}, "C6"),
    ("index too large", "ScatterElements", 18, {"data": D, "indices": I + 4, "updates": U}, {}, "C9"),
    ("index too small", "ScatterND", 18, {"data": D, "indices": np.array([[-5]]), "updates": U}, {}, "C8"),
    ("indices larger than data", "ScatterElements", 18, {"data": D, "indices": np.zeros((1, 5), np.int64),
                                                         "updates": np.ones((1, 5), F)}, {}, "C5"),
    ("rank-0 data", "ScatterElements", 18, {"data": np.float32(1), "indices": np.int64(0), "updates": np.float32(1)},
     {}, "C1"),
    ("axis out of range", "ScatterElements", 18, {"data": D, "indices": I, "updates": U}, {"axis": 2}, "C4"),
    ("max at 16", "ScatterND", 16, {"data": D, "indices": np.array([[1]]), "updates": U}, {"reduction": "max"}, "C9"),
    ("string mul", "ScatterElements", 18, {"data": D.astype(str), "indices": I, "updates": U.astype(str)},
     {"reduction": "mul"}, "C11"),
    ("deprecated", "Scatter", 11, {"data": D, "indices": I, "updates": U}, {}, "deprecated"),
    ("negative index OpenVINO", "openvino:ScatterElementsUpdate", 3,
     {"data": D, "indices": -I - 1, "updates": U, "axis": np.array(0)}, {}, "C10"),
    ("axis with 2 values OpenVINO", "openvino:ScatterElementsUpdate", 3,
     {"data": D, "indices": I, "updates": U, "axis": np.array([0, 0])}, {}, "C3"),
    ("missing input", "ScatterElements", 18, {"data": D, "indices": I}, {}, None),
    ("None input", "ScatterElements", 18, {"data": None, "indices": I, "updates": U}, {}, None),
    ("unknown input", "ScatterElements", 18, {"data": D, "indices": I, "updates": U, "extra": U}, {}, None),
    ("ragged list", "ScatterElements", 18, {"data": D, "indices": I, "updates": [[1.0, [2.0]]]}, {}, None),
    ("unknown attribute", "ScatterND", 13, {"data": D, "indices": np.array([[1]]), "updates": U}, {"reduction": "add"},
     None),
    ("attribute of the wrong type", "ScatterElements", 18, {"data": D, "indices": I, "updates": U}, {"axis": "x"}, None),
    ("unknown op", "ScatterFoo", 18, {"data": D}, {}, None),
    ("op before its first version", "ScatterND", 9, {"data": D}, {}, None),
]


@pytest.mark.parametrize("what,op,opset,inputs,attrs,cid", BAD, ids=[b[0] for b in BAD])
def test_execute_bad_input_raises_package_error(what, op, opset, inputs, attrs, cid):
    with pytest.raises(ShapeCheckError) as err:
        shapecheck.execute(op, opset, inputs, attrs)
    if cid is None:
        assert isinstance(err.value, UsageError)
    else:
        assert isinstance(err.value, ConstraintError)
        assert err.value.constraint == cid and f" {cid} " in str(err.value)


def test_non_array_inputs_are_converted_or_rejected_clearly():
    out = shapecheck.execute("ScatterND", 18, {"data": [0.0, 0.0, 0.0], "indices": [[2]], "updates": [5.0]})
    assert out["output"].tolist() == [0.0, 0.0, 5.0]
    with pytest.raises(ConstraintError) as err:   # a Python object is no element type shapecheck knows
        shapecheck.execute("ScatterND", 18, {"data": {"a": 1}, "indices": [[0]], "updates": [1.0]})
    assert err.value.constraint in str(err.value)


@pytest.mark.parametrize("inputs,attrs", [
    ({"data": "float[N,C]", "indices": "int64[M,1]"}, {}),                          # missing input
    ({"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]", "x": "float"}, {}),
    ({"data": "floaty[N]", "indices": "int64[M,1]", "updates": "float[M]"}, {}),    # bad type string
    ({"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"}, {"axis": 1}),
])
def test_verify_bad_query_raises_usage_error(inputs, attrs):
    with pytest.raises(UsageError):
        verify("ScatterND", 18, inputs, attrs, samples=2)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shapecheck.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [
    ["verify", "ScatterND", "--opset", "18", "-i", "data=float[N,C]", "-i", "indices=int64[M,1]"],
    ["verify", "ScatterND", "-i", "data=floaty[N]", "-i", "indices=int64[M,1]", "-i", "updates=float[M]"],
    ["verify", "ScatterFoo", "-i", "data=float[N]"],
    ["verify", "ScatterND", "-i", "data", "-i", "indices=int64[M,1]"],
    ["verify", "ScatterND", "-i", "data=float[N]", "-i", "indices=int64[M,1]", "-i", "updates=float[M]", "--samples", "0"],
    ["verify", "ScatterND", "--opset", "13", "-i", "data=float[N]", "-i", "indices=int64[M,1]", "-i", "updates=float[M]",
     "-a", "reduction=add"],
])
def test_cli_verify_bad_input_exits_2_with_one_paragraph(args):
    p = _cli(*args)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    text = p.stderr.strip()
    assert text.startswith("shapecheck: error:") and "\n\n" not in text


def test_cli_verify_good_query_exits_0_with_json():
    import json
    p = _cli("verify", "ScatterND", "-i", "data=float[N,C]", "-i", "indices=int64[M,1]", "-i", "updates=float[M,C]",
             "--samples", "3", "--seed", "5", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["ok"] and d["seed"] == 5 and len(d["samples"]) == 3 and d["reproducers"] == []


def test_duplicate_targets_under_reduction_none_warn_and_the_last_update_wins():
    import warnings as _w
    data = np.zeros((4, 2), np.float32)
    idx = np.array([[1], [1]], np.int64)
    upd = np.array([[1, 1], [2, 2]], np.float32)
    with _w.catch_warnings(record=True) as caught:
        _w.simplefilter("always")
        out = shapecheck.execute("ScatterND", 18, {"data": data, "indices": idx, "updates": upd})["output"]
    assert out[1].tolist() == [2.0, 2.0]  # row-major order: the second update is the last
    (w,) = [c for c in caught if issubclass(c.category, shapecheck.ShapeCheckWarning)]
    assert "ScatterND-18 W1" in str(w.message)
    with _w.catch_warnings(record=True) as caught:
        _w.simplefilter("always")
        shapecheck.execute("ScatterND", 18, {"data": data, "indices": idx, "updates": upd}, {"reduction": "add"})
    assert not [c for c in caught if issubclass(c.category, shapecheck.ShapeCheckWarning)]


def test_infer_accepts_numpy_scalars():
    r = shapecheck.infer("openvino:ScatterElementsUpdate", 3, {
        "data": np.zeros((2, 3), np.float32), "indices": np.zeros((1, 3), np.int64),
        "updates": np.zeros((1, 3), np.float32), "axis": np.int64(0)})
    assert r.status == "valid"
