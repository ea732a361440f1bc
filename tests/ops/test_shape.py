"""The shape ops (Shape, Size, Reshape, Expand, Concat, Range): ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import pytest

from tests.harness.node_cases import check_node_case, family_cases


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("shape")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 35


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "shape")


def test_a_reshape_whose_minus_one_halves_a_dim_is_exact_where_onnxruntime_runs():
    # found on a TorchScript export of pixel_unshuffle: Reshape [B,3,H,W] -> [0, 0, -1, 2, W] left the
    # -1 unknown, and the domain stated 'B*H*W == 2*B*W*reshaped' over the placeholder's name
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    import shapecheck
    from shapecheck.dims import has_unknown

    nodes = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Gather", ["s", "i3"], ["w"]),
             helper.make_node("Concat", ["zz", "w"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["y"])]
    inits = [numpy_helper.from_array(np.array([3]), "i3"), numpy_helper.from_array(np.array([0, 0, -1, 2]), "zz")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 3, "H", "W"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    rep = shapecheck.check_model(model)
    (y,) = [t for n, t in rep.types.items() if n == "y"]
    assert not any(has_unknown(d) for d in y.shape), y
    assert "reshaped" not in rep.domain.text() and rep.domain.text() == "B >= 1, H % 2 == 0 and H >= 2, W >= 1"
    options = ort.SessionOptions()
    options.log_severity_level = 4
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    for h in range(1, 9):
        sizes = {"B": 2, "H": h, "W": 3}
        try:
            out = session.run(None, {"x": np.zeros((2, 3, h, 3), np.float32)})[0]
        except Exception:
            assert rep.domain.admits(sizes) is False, h
            continue
        assert rep.domain.admits(sizes) is True, h
        assert [int(d.subs({s: sizes[s.name] for s in d.free_symbols}) if hasattr(d, "subs") else d)
                for d in y.shape] == list(out.shape)


def test_a_reshape_whose_minus_one_divides_by_another_inputs_dim_is_stated_over_input_dims():
    # Reshape(x[A,B], [-1, C]) with C another input's length: the -1 was an unknown, and the domain
    # stated 'A*B == C*reshaped' and a later concat's 'D == r.shape[0]', which admits() could not
    # evaluate; it is floor(A*B/C) wherever the reshape is valid
    import itertools

    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto as T, helper
    import shapecheck

    ints = lambda name, v: helper.make_tensor(name, T.INT64, [len(v)], v)  # noqa: E731
    nodes = [helper.make_node("Shape", ["y"], ["sy"]), helper.make_node("Concat", ["m1", "sy"], ["tgt"], axis=0),
             helper.make_node("Reshape", ["x", "tgt"], ["r"]), helper.make_node("Concat", ["r", "z"], ["out"], axis=1)]
    inputs = [helper.make_tensor_value_info("x", T.FLOAT, ["A", "B"]), helper.make_tensor_value_info("y", T.FLOAT, ["C"]),
              helper.make_tensor_value_info("z", T.FLOAT, ["D", 2])]
    g = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("out", T.FLOAT, None)], [ints("m1", [-1])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    options = ort.SessionOptions()
    options.log_severity_level = 4
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    for nonempty in (True, False):
        rep = shapecheck.check_model(model, assume_nonempty=nonempty)
        assert "reshaped" not in rep.domain.text() and ".shape" not in rep.domain.text(), rep.domain.text()
        assert "(A*B) % C == 0" in rep.domain.text() and "A*B/C == D" in rep.domain.text(), rep.domain.text()
        rows = rep.types["r"].shape[0]
        ran = 0
        for a, b, c, d in itertools.product(range(0 if not nonempty else 1, 5), repeat=4):
            sizes = {"A": a, "B": b, "C": c, "D": d}
            feeds = {"x": np.zeros((a, b), np.float32), "y": np.zeros(c, np.float32), "z": np.zeros((d, 2), np.float32)}
            if c == 0:
                # the target [-1, 0] copies B (allowzero = 0): the spec states C != 0, stricter than the runtime
                assert rep.domain.admits(sizes) is False, sizes
                continue
            try:
                out = session.run(None, feeds)[0]
            except Exception:
                assert rep.domain.admits(sizes) is False, sizes
                continue
            if a * b % c == 0 and 0 in (a * b, d) and d != a * b // c:
                # onnxruntime's Concat skips an empty input's other dims (runtime-findings Q32); C4 follows the page
                assert rep.domain.admits(sizes) is False, sizes
                continue
            assert rep.domain.admits(sizes) is True, sizes
            assert out.shape[0] == rows.subs({s: sizes[s.name] for s in rows.free_symbols}), (sizes, rows)
            ran += 1
        assert ran >= 20
