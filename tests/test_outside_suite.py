"""Cases from onnx's own shape-inference unit tests (``onnx/test/shape_inference_test.py``, run
with shapecheck as the inference by ``bench/outside_suite.py``), each rebuilt here with onnx.helper.

* malformed models become findings, never exceptions (``check_model`` and ``annotate``), and random
  small graphs with extreme attributes never make anything but a ``ShapeCheckError`` escape;
* the dims shapecheck got wrong, each checked against onnxruntime's run;
* the errors shapecheck missed, and the refusals judged against onnxruntime;
* ``annotate``'s output passes ``onnx.checker.check_model(full_check=True)`` on every shipped model.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from onnx import TensorProto as T
from onnx import helper, parser

import onnxruntime as ort

import shapecheck
from shapecheck.errors import ShapeCheckError
from tests.harness.models import FLOAT, INT64, const, model, node, registry_without, vi

INT64_MAX = (1 << 63) - 1


def findings(report) -> list[tuple[str, str, str]]:
    """(node, finding id, message) of every node and model finding of a report."""
    out = [(n.name, f.constraint, f.message) for n in report.nodes for f in n.violations]
    return out + [("", f.constraint, f.message) for f in report.violations]


def checked(m: onnx.ModelProto):
    """check_model's report; annotate runs too, and neither raises."""
    report = shapecheck.check_model(m)
    shapecheck.annotate(m)
    return report


# ---------------------------------------------------------------- crashes become findings

def test_constant_of_shape_of_a_float_tensor_is_refused_not_a_crash():
    """onnx's test_issue_constantofshape_6135: the shape input is a float initializer (declared
    int64); its values (-10.0) were taken as dims, and printing the declared type crashed."""
    m = model([node("ConstantOfShape", ["c"], ["out"])], [vi("c", INT64, [1])], [vi("out", FLOAT, None)],
              opset=21, initializers=[const("c", [-10.0], np.float32)], value_info=[vi("out", FLOAT, None)])
    rep = checked(m)
    assert rep.failed and ("out_node", "C1") in [(n, c) for n, c, _ in findings(rep)]
    assert str(rep.types["out"]) == "float[?]"


def _overflow(rep) -> list[str]:
    return [msg for _n, c, msg in findings(rep) if c == "overflow"]


def test_concat_past_int64_is_a_finding():
    """onnx's test_concat_axis_overflow: INT64_MAX + 1 along the axis."""
    m = model([node("Concat", ["x", "y"], ["z"], axis=0)],
              [vi("x", FLOAT, [INT64_MAX, 1]), vi("y", FLOAT, [1, 1])], [vi("z", FLOAT, None)], opset=13)
    rep = checked(m)
    assert rep.failed and _overflow(rep) == ["the output dim overflows int64: concat_result.shape[0] = 9223372036854775808"]
    assert str(rep.types["z"]) == "float[?,1]"
    out = shapecheck.annotate(m).graph.output[0].type.tensor_type.shape.dim
    assert not out[0].HasField("dim_value") and out[1].dim_value == 1


def test_tile_past_int64_is_a_finding():
    m = model([node("Tile", ["x", "r"], ["y"])], [vi("x", FLOAT, [1 << 62, 3])], [vi("y", FLOAT, None)],
              opset=13, initializers=[const("r", [4, 1])])
    rep = checked(m)
    assert rep.failed and _overflow(rep) and str(rep.types["y"]) == "float[?,3]"


def test_conv_transpose_past_int64_is_a_finding():
    m = model([node("ConvTranspose", ["x", "w"], ["y"], strides=[4])],
              [vi("x", FLOAT, [1, 1, 1 << 62]), vi("w", FLOAT, [1, 1, 3])], [vi("y", FLOAT, None)], opset=11)
    rep = checked(m)
    assert rep.failed and _overflow(rep) and str(rep.types["y"]) == "float[1,1,?]"


SCAN = """
<ir_version: 10, opset_import: ["" : 21]>
agraph (float[2] in0, float[2] in1, float[3, 2] in2) => (out) {{
    out = Scan <{attrs}body = b (float a, float s0, float s1) => (float c) {{ c = Identity(a) }}> (in0, in1, in2)
}}"""


@pytest.mark.parametrize("attrs, words", [
    ("num_scan_inputs = 1, ", "2 loop state variables, but its body has 1 output"),   # the IndexError
    ("", "num_scan_inputs"), ("num_scan_inputs = -1, ", "num_scan_inputs"), ("num_scan_inputs = 9, ", "num_scan_inputs"),
])
def test_a_scan_body_that_does_not_fit_is_a_finding(attrs, words):
    """onnx's test_scan_loop_state_vars_exceed_outputs and test_scan_invalid_num_scan_inputs_does_not_crash."""
    rep = checked(parser.parse_model(SCAN.format(attrs=attrs)))
    got = [(n, msg) for n, c, msg in findings(rep) if c == "control-flow"]
    assert rep.failed and len(got) == 1 and got[0][0] == "Scan_0" and words in got[0][1], findings(rep)
    assert not [d for d in rep.declarations if d.status == "contradicts"]   # the body keeps its declared inputs


# ---------------------------------------------------------------- the runtime's shapes

def ort_shapes(m: onnx.ModelProto, feeds: dict) -> list[tuple]:
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return [o.shape for o in sess.run(None, feeds)]


def ort_error(m: onnx.ModelProto, feeds: dict) -> str:
    try:
        ort_shapes(m, feeds)
    except Exception as exc:   # onnxruntime's own exception types
        return str(exc)
    return ""


@pytest.mark.parametrize("opset", [8, 9])
def test_scan_outputs_are_onnxruntimes(opset):
    """onnx's test_scan (Scan-8: sequence_lens first, a batch axis on every tensor) left both
    outputs untyped, so the annotated model failed onnx.checker."""
    body = helper.make_graph([helper.make_node("Identity", ["s"], ["so"]), helper.make_node("Neg", ["x"], ["xo"])], "b",
                             [vi("s", FLOAT, None), vi("x", FLOAT, None)], [vi("so", FLOAT, None), vi("xo", FLOAT, None)])
    shapes = ([2, 3], [2, 4, 5]) if opset == 8 else ([3], [4, 5])
    m = model([helper.make_node("Scan", ([""] if opset == 8 else []) + ["s0", "xs"], ["sf", "ys"], body=body,
                                num_scan_inputs=1)],
              [vi("s0", FLOAT, shapes[0]), vi("xs", FLOAT, shapes[1])], [vi("sf", FLOAT, None), vi("ys", FLOAT, None)],
              opset=opset)
    want = ort_shapes(m, {n: np.zeros(s, np.float32) for n, s in zip(("s0", "xs"), shapes)})
    rep = checked(m)
    assert not rep.failed and [rep.types[t].shape for t in ("sf", "ys")] == want
    onnx.checker.check_model(shapecheck.annotate(m), full_check=True)


def _dft(opset: int, shape: list, axis: int, onesided: int) -> onnx.ModelProto:
    ins, inits, attrs = ["x", ""], [], {"onesided": onesided}
    if opset >= 20:
        ins, inits = ["x", "", "axis"], [const("axis", axis)]
    else:
        attrs["axis"] = axis
    return model([node("DFT", ins, ["y"], **attrs)], [vi("x", FLOAT, shape)], [vi("y", FLOAT, None)], opset=opset,
                 initializers=inits)


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("shape, axis", [([2, 5, 5, 2], 4), ([2, 5, 2], 1)])
def test_a_one_sided_dft_of_complex_input_is_refused_as_onnxruntime_does(opset, shape, axis):
    """onnx's test_dft_invalid_axis_* and test_dft_rfft_invalid_complex_input_*: onnxruntime refuses a
    one-sided DFT of complex input at opsets 17 and 20, and so does the spec (DFT-17 C6, DFT-20 C7),
    with or without the input folded to a constant (OS13)."""
    m = _dft(opset, shape, axis, onesided=1)
    assert "one-sided DFT requires real input" in ort_error(m, {"x": np.ones(shape, np.float32)})
    one_sided = "C6" if opset == 17 else "C7"
    assert one_sided in [c for _n, c, _msg in findings(checked(m))]
    folded = model([node("Constant", [], ["x"], value=onnx.numpy_helper.from_array(np.ones(shape, np.float32))),
                    *_dft(opset, shape, axis, 1).graph.node], [], [vi("y", FLOAT, None)], opset=opset,
                   initializers=_dft(opset, shape, axis, 1).graph.initializer)
    assert one_sided in [c for _n, c, _m in findings(checked(folded))]


CATEGORY_MAPPER_ATTRS = [{"cats_int64s": [1, 2, 3], "cats_strings": ["1", "2"]}, {"cats_int64s": [1, 2, 3]}, {}]


@pytest.mark.parametrize("attrs", CATEGORY_MAPPER_ATTRS)
def test_ml_ops_refuse_what_onnxruntime_refuses(attrs):
    """onnx's test_category_mapper_fails_if_invalid_attributes: onnxruntime refuses cats_int64s and
    cats_strings of different lengths, or either missing; CategoryMapper-1's spec refuses each."""
    m = model([helper.make_node("CategoryMapper", ["x"], ["y"], domain="ai.onnx.ml", **attrs)],
              [vi("x", INT64, [3])], [vi("y", T.STRING, None)], opset=11)
    m.opset_import.append(helper.make_opsetid("ai.onnx.ml", 1))
    assert ort_error(m, {"x": np.array([1, 2, 3], np.int64)})
    rep = checked(m)
    assert rep.failed and rep.nodes[0].status == "invalid" and rep.nodes[0].spec == "ai.onnx.ml:CategoryMapper-1"


@pytest.mark.parametrize("attrs", CATEGORY_MAPPER_ATTRS)
def test_a_node_without_a_spec_goes_to_onnxs_inference_which_refuses_what_onnxruntime_refuses(attrs):
    """In a registry without CategoryMapper's spec, the node goes to onnx's per-node inference, whose
    error is the finding (the path every node without a spec takes)."""
    m = model([helper.make_node("CategoryMapper", ["x"], ["y"], domain="ai.onnx.ml", **attrs)],
              [vi("x", INT64, [3])], [vi("y", T.STRING, None)], opset=11)
    m.opset_import.append(helper.make_opsetid("ai.onnx.ml", 1))
    err = ort_error(m, {"x": np.array([1, 2, 3], np.int64)})
    rep = shapecheck.check_model(m, registry=registry_without("CategoryMapper"))
    got = [v.message for n in rep.nodes for v in n.violations if v.constraint == "onnx-inference"]
    assert err and len(got) == 1 and got[0] in err


def test_a_node_with_a_subgraph_that_is_not_control_flow_is_typed():
    """onnx's test_flex_attention_with_score_mod: FlexAttention (ai.onnx.preview) with a score_mod
    subgraph was left untyped, and the annotated model failed onnx.checker."""
    score = helper.make_graph([helper.make_node("Identity", ["scores"], ["scores_out"])], "score_mod",
                              [vi("scores", FLOAT, ["B", "Hq", "L", "S"])], [vi("scores_out", FLOAT, ["B", "Hq", "L", "S"])])
    m = model([helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview", score_mod=score)],
              [vi("Q", FLOAT, [2, 8, 128, 64]), vi("K", FLOAT, [2, 8, 256, 64]), vi("V", FLOAT, [2, 8, 256, 64])],
              [vi("Y", FLOAT, None)], opset=21)
    m.opset_import.append(helper.make_opsetid("ai.onnx.preview", 1))
    assert str(checked(m).types["Y"]) == "float[2,8,128,64]"
    onnx.checker.check_model(shapecheck.annotate(m), full_check=True)


# ---------------------------------------------------------------- dims onnx's tests expect and onnxruntime does not give

def _resize(opset: int, n: int, scale: float) -> onnx.ModelProto:
    inits = [const("scales", [1, 1, 1, scale], np.float32)]
    ins = ["x", "scales"]
    if opset >= 11:
        inits.append(const("roi", np.zeros(0), np.float32))
        ins = ["x", "roi", "scales"]
    return model([node("Resize", ins, ["y"])], [vi("x", FLOAT, [1, 1, 1, n])], [vi("y", FLOAT, None)], opset=opset,
                 initializers=inits)


@pytest.mark.parametrize("opset", [10, 11, 13, 18, 19])
def test_resize_output_size_is_onnxruntimes_float32_product(opset):
    """onnx's test_resize_scale_precision_large_dim expects floor(16777217 * 1.0) in double, 16777217;
    onnxruntime multiplies in float32 and gives 16777216.  The same rounding at a small size:
    floor(10 * 0.7) is 7 in float32 (onnxruntime), 6 in double (onnx's inference, onnx.reference)."""
    m = _resize(opset, 10, 0.7)
    want = ort_shapes(m, {"x": np.zeros((1, 1, 1, 10), np.float32)})
    assert want == [(1, 1, 1, 7)] and [checked(m).types["y"].shape] == want


@pytest.mark.parametrize("op, opset", [("MaxPool", 12), ("AveragePool", 19), ("LpPool", 18)])
@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
@pytest.mark.parametrize("size", [4, 9])
def test_pools_under_same_with_dilations_are_onnxruntimes(op, opset, auto_pad, size):
    """onnx's test_*pool_with_same_*_padding_and_stride_and_dilation expect ceil(D / s) (the page);
    onnxruntime gives [5,3,1,1] for D = 4 and [5,3,4,4] for D = 9 (docs/runtime-findings.md CP9)."""
    m = model([node(op, ["x"], ["y"], auto_pad=auto_pad, kernel_shape=[2, 2], strides=[2, 2], dilations=[2, 3])],
              [vi("x", FLOAT, [5, 3, size, size])], [vi("y", FLOAT, None)], opset=opset)
    want = ort_shapes(m, {"x": np.zeros((5, 3, size, size), np.float32)})
    assert [checked(m).types["y"].shape] == want


def test_nonzero_of_a_scalar_has_one_row_as_in_onnxruntime():
    """onnx's test_nonzero_scalar expects int64[0,?] (the page's [rank(X), nnz]); onnxruntime gives
    one row ([1, 1] for a nonzero scalar, [1, 0] for zero), and so does the spec (NonZero-9 notes)."""
    m = model([node("NonZero", ["x"], ["y"])], [vi("x", FLOAT, [])], [vi("y", INT64, None)], opset=13)
    for v in (0.0, 3.0):
        assert ort_shapes(m, {"x": np.array(v, np.float32)})[0][0] == 1
    assert checked(m).types["y"].shape[0] == 1


def test_stft_takes_onesided_1_by_default_as_onnxruntime():
    """onnx's test_stft_reals expects 5 bins without onesided (onnx's inference defaults it to 0);
    the page's default is 1, and onnxruntime and onnx.reference give 5 // 2 + 1 = 3 bins."""
    sig = np.arange(20, dtype=np.float32).reshape(2, 10, 1)
    m = model([node("STFT", ["signal", "step", "window"], ["y"])], [vi("signal", FLOAT, [2, 10, 1])],
              [vi("y", FLOAT, None)], opset=17, initializers=[const("step", 2), const("window", np.ones(5), np.float32)])
    want = ort_shapes(m, {"signal": sig})
    assert want == [(2, 3, 3, 2)] and [checked(m).types["y"].shape] == want


@pytest.mark.parametrize("unknown, values", [("axes", ([0, 1, 2], [1, 0, 2])), ("steps", ([1, 1], [-1, 2]))])
def test_slice_dims_that_depend_on_an_unknown_axes_or_steps_stay_unknown(unknown, values):
    """onnx's test_slice_with_input_shape_steps / _axes expect [1,2,2] / [1,6,2]: onnx's inference
    takes an axes or steps input of unknown shape for the default.  onnxruntime gives other shapes
    for other values of that input, so those dims are not known; shapecheck leaves them unknown."""
    if unknown == "axes":
        x, known = [5, 6, 7], {"starts": [1, 0, 0], "ends": [2, 6, 6], "steps": [1, 4, 3]}
    else:
        x, known = [3, 6, 2], {"starts": [1, 0], "ends": [2, 2], "axes": [0, 2]}
    names = ["starts", "ends", "axes", "steps"]
    inputs = [vi("x", FLOAT, x), vi(unknown, INT64, None)]
    m = model([node("Slice", ["x", *names], ["y"])], inputs, [vi("y", FLOAT, None)], opset=13,
              initializers=[const(k, v) for k, v in known.items()])
    runs = {ort_shapes(m, {"x": np.zeros(x, np.float32), unknown: np.array(v, np.int64)})[0] for v in values}
    got = checked(m).types["y"].shape
    assert len(runs) == 2
    for i, d in enumerate(got):
        assert type(d) is not int or {r[i] for r in runs} == {d}


@pytest.mark.parametrize("opset", [9, 14, 15])
def test_batch_norm_of_rank_1_is_n_with_one_channel(opset):
    """onnx's test_batch_norm_rank1: the page and onnxruntime take a rank-1 X as N with C = 1."""
    names = ["x", "s", "b", "m", "v"]
    for c, ok in ((1, True), (128, False)):
        m = model([node("BatchNormalization", names, ["y"])],
                  [vi("x", FLOAT, [128])] + [vi(n, FLOAT, [c]) for n in names[1:]], [vi("y", FLOAT, None)], opset=opset)
        feeds = {"x": np.arange(128, dtype=np.float32), **{n: np.ones(c, np.float32) for n in names[1:]}}
        rep = checked(m)
        assert (not ort_error(m, feeds), not rep.failed) == (ok, ok)
        if ok:
            assert [rep.types["y"].shape] == ort_shapes(m, feeds)


# ---------------------------------------------------------------- missed errors, each refused by onnxruntime

def _refused_like_onnxruntime(m: onnx.ModelProto, feeds: dict, ort_words: str, finding: str) -> None:
    assert ort_words in ort_error(m, feeds)
    rep = checked(m)
    assert rep.failed and finding in [c for _n, c, _m in findings(rep)], findings(rep)


def test_a_graph_input_without_an_element_type_is_refused():
    """onnx's test_empty_graph and test_concat_missing_shape: a seed input of type UNDEFINED."""
    m = model([node("Relu", ["x"], ["y"])], [vi("x", T.UNDEFINED, [2])], [vi("y", FLOAT, None)], opset=13)
    _refused_like_onnxruntime(m, {"x": np.ones(2, np.float32)}, "Invalid tensor data type 0", "G6")
    untyped = onnx.ValueInfoProto(name="x")
    m = model([node("Relu", ["x"], ["y"])], [untyped], [vi("y", FLOAT, None)], opset=13)
    _refused_like_onnxruntime(m, {"x": np.ones(2, np.float32)}, "does not have type information", "G6")


def test_an_initializer_of_undefined_data_type_is_refused():
    """onnx's test_parse_data_with_undefined_tensor_type."""
    shape = const("s", [4, 3])
    shape.data_type = T.UNDEFINED
    m = model([node("ConstantOfShape", ["s"], ["y"])], [], [vi("y", FLOAT, None)], opset=13, initializers=[shape])
    assert ort_error(m, {})
    assert "G6" in [c for _n, c, _m in findings(checked(m))]


@pytest.mark.parametrize("declared, words", [([4, 3], "{4,3} != {8,7}"), ([None, 7, 9], "{-1,7,9} != {8,7}"),
                                             ([8, 7], "")])
def test_an_initializer_must_match_its_graph_input(declared, words):
    """onnx's test_infer_initializer_input_mismatch and _consistency_different_rank."""
    m = model([node("Relu", ["x"], ["y"])], [vi("x", FLOAT, declared)], [vi("y", FLOAT, None)], opset=13,
              initializers=[const("x", np.ones((8, 7)), np.float32)])
    if words:
        _refused_like_onnxruntime(m, {}, words, "G7")
    else:
        assert not ort_error(m, {}) and not checked(m).failed


@pytest.mark.parametrize("opset", [1, 11, 22])
@pytest.mark.parametrize("op", ["Conv", "ConvTranspose"])
def test_pads_with_auto_pad_and_negative_pads_are_refused(op, opset):
    """onnx's test_conv_transpose_negative_pads and test_conv_transpose_with_pads_and_auto_pads."""
    feeds = {"x": np.ones((1, 1, 5, 5), np.float32), "w": np.ones((1, 1, 3, 3), np.float32)}
    inputs = [vi("x", FLOAT, [1, 1, 5, 5]), vi("w", FLOAT, [1, 1, 3, 3])]
    for attrs, words, constraint in (({"pads": [0, 0, 0, -1]}, "pads must not contain negative values", "C4"),
                                     ({"pads": [0, 0, 0, 0], "auto_pad": "VALID"}, "pads", "C12"),
                                     ({"pads": [1, 1, 1, 1], "auto_pad": "SAME_UPPER"}, "pads", "C12")):
        m = model([node(op, ["x", "w"], ["y"], **attrs)], inputs, [vi("y", FLOAT, None)], opset=opset)
        _refused_like_onnxruntime(m, feeds, words, constraint)
    m = model([node(op, ["x", "w"], ["y"], pads=[1, 1, 1, 1])], inputs, [vi("y", FLOAT, None)], opset=opset)
    assert [rep.types["y"].shape for rep in [checked(m)]] == ort_shapes(m, feeds)


def test_a_call_with_another_number_of_outputs_than_its_function_is_refused():
    """onnx's test_function_output_count_mismatch_does_not_crash."""
    m = parser.parse_model("""
        <ir_version: 8, opset_import: [ "" : 18, "local" : 1 ]>
        agraph (float[1] X) => (float[1] Y) { Y = local.F (X) }
        <opset_import: [ "" : 18 ], domain: "local">
        F (x) => (y1, y2) { y1 = Identity(x) y2 = Identity(x) }""")
    _refused_like_onnxruntime(m, {"X": np.ones(1, np.float32)}, "output index 1 is out of range", "function-call")


def test_a_node_whose_types_its_schema_refuses_is_refused():
    """onnx's test_convinteger_strides (type check off): ConvInteger of an int8 x with a uint8
    x_zero_point; ConvInteger-10's C1 refuses it as onnxruntime does."""
    m = model([node("ConvInteger", ["x", "w", "xz", "wz"], ["z"], strides=[1, 2])],
              [vi("x", T.INT8, [1, 4, 8, 8]), vi("w", T.INT8, [5, 4, 3, 3]), vi("xz", T.UINT8, []), vi("wz", T.UINT8, [])],
              [vi("z", T.INT32, None)], opset=21)
    feeds = {"x": np.ones((1, 4, 8, 8), np.int8), "w": np.ones((5, 4, 3, 3), np.int8),
             "xz": np.array(0, np.uint8), "wz": np.array(0, np.uint8)}
    _refused_like_onnxruntime(m, feeds, "bound to different types", "C1")


def test_quantize_linear_zero_point_of_another_type_than_output_dtype_is_refused():
    """onnx's test_quantizelinear_zp_output_dtype_conflicted: output_dtype int4, y_zero_point uint16."""
    m = model([node("QuantizeLinear", ["x", "s", "zp"], ["y"], output_dtype=T.INT4)],
              [vi("x", FLOAT, [3, 4, 5])], [vi("y", T.INT4, None)], opset=21,
              initializers=[const("s", 1.0, np.float32), const("zp", 0, np.uint16)])
    _refused_like_onnxruntime(m, {"x": np.ones((3, 4, 5), np.float32)}, "output_dtype INT4 does not match", "C2")


# ---------------------------------------------------------------- refusals onnx's tests do not make

def _one(op: str, inputs: dict, attrs: dict | None = None, opset: int = 18, inits: dict | None = None, n_out: int = 1):
    """A one-node model: ``inputs`` maps names to (elem type, shape) graph inputs or, in ``inits``, to
    constant arrays (the node's inputs in that order)."""
    inits = inits or {}
    names = list(inputs) + [k for k in inits if k not in inputs]
    order = [n for n in (attrs or {}).pop("_order", names)]
    outs = [f"y{i}" for i in range(n_out)]
    return model([node(op, order, outs, **(attrs or {}))], [vi(n, *inputs[n]) for n in inputs],
                 [helper.make_empty_tensor_value_info(o) for o in outs], opset=opset,
                 initializers=[const(k, v, np.asarray(v).dtype) for k, v in inits.items()])


# (onnx's test, model, constraint shapecheck refuses it by, words of onnxruntime's refusal)
REFUSALS = [
    ("test_LRN", lambda: _one("LRN", {"x": (FLOAT, [30, 4, 5])}, {"size": 3}, 13), "C2", "NumDimensions() == 4"),
    ("test_maxpool_with_padding", lambda: _one("MaxPool", {"x": (FLOAT, [5, 3, 4, 4])},
     {"kernel_shape": [2, 2], "pads": [2, 2, 2, 2]}, 12), "C5", "pads[dim] < kernel_shape[dim]"),
    ("test_averagepool_with_padding", lambda: _one("AveragePool", {"x": (FLOAT, [5, 3, 4, 4])},
     {"kernel_shape": [2, 2], "pads": [2, 2, 2, 2]}, 19), "C5", "pads[dim] < kernel_shape[dim]"),
    ("test_lppool_with_padding", lambda: _one("LpPool", {"x": (FLOAT, [5, 3, 4, 4])},
     {"kernel_shape": [2, 2], "pads": [2, 2, 2, 2]}, 18), "C5", "pads[dim] < kernel_shape[dim]"),
    ("test_maxpool_with_same_lower_padding_and_big_stride", lambda: _one("MaxPool", {"x": (FLOAT, [5, 3, 4, 4])},
     {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER", "strides": [4, 4]}, 12), "C11", "padding values must be non-negative"),
    ("test_conv_auto_pad_dilation", lambda: _one("Conv", {"x": (FLOAT, [1, 1, 6, 6]), "w": (FLOAT, [1, 1, 2, 2])},
     {"auto_pad": "SAME_UPPER", "dilations": [2, 2]}, 11), "C11", "Dilation not supported"),
    ("test_conv_transpose_with_output_shape", lambda: _one("ConvTranspose", {"x": (FLOAT, [1, 2, 16, 16]),
     "w": (FLOAT, [2, 2, 3, 3])}, {"strides": [2, 2], "output_shape": [36, 36]}, 11), "C9", "Explicit output_shape is inconsistent"),
    ("test_cumsum", lambda: _one("CumSum", {"x": (FLOAT, [2, 3])}, None, 14, {"axis": np.array(0, np.float32)}),
     "C3", "Type 'tensor(float)' of input parameter (axis)"),
    ("test_greater", lambda: _one("Greater", {"a": (T.BOOL, [3]), "b": (T.BOOL, [3])}, None, 13), "C1", "tensor(bool)"),
    ("test_less_or_equal", lambda: _one("LessOrEqual", {"a": (T.BOOL, [3]), "b": (T.BOOL, [3])}, None, 16), "C1",
     "tensor(bool)"),
    ("test_gridsample_2d", lambda: _one("GridSample", {"x": (FLOAT, [1, 1, 3, 3]), "g": (INT64, [1, 3, 3, 2])}, None, 20),
     "C1", "Type 'tensor(int64)' of input parameter (g)"),
    ("test_maxunpool_shape_without_output_shape", lambda: _one("MaxUnpool", {"x": (FLOAT, [1, 1, 2, 2]),
     "i": (FLOAT, [1, 1, 2, 2])}, {"kernel_shape": [2, 2], "strides": [2, 2]}, 11), "C1", "tensor(float)"),
    ("test_onehot_empty_depth", lambda: _one("OneHot", {"i": (INT64, [2])}, None, 11,
     {"depth": np.zeros(0, np.int64), "values": np.array([0, 1], np.float32)}), "C2", "not a scalar"),
    ("test_resize_scale_and_size_but_one_is_empty", lambda: _one("Resize", {"x": (FLOAT, [1, 1, 3, 3])}, None, 13,
     {"roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 2, 2], np.float32), "sizes": np.zeros(0, np.int64)}),
     "C2", "Only one of scales or sizes"),
    ("test_resize_size[11]", lambda: _one("Resize", {"x": (FLOAT, [1, 1, 3, 3])}, None, 11,
     {"roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 2, 2], np.float32), "sizes": np.array([1, 1, 6, 6])}),
     "C2", "Only one of scales or sizes"),
    ("test_rnn_layout", lambda: _one("RNN", {"x": (FLOAT, [4, 5, 3]), "w": (FLOAT, [1, 2, 3]), "r": (FLOAT, [1, 2, 2])},
     {"hidden_size": 2, "direction": "bidirectional"}, 14, n_out=2), "C4", "Input W must have shape"),
    ("test_roipool", lambda: _one("MaxRoiPool", {"x": (FLOAT, [1, 1, 4, 4]), "rois": (INT64, [1, 5])},
     {"pooled_shape": [2, 2]}, 1), "C1", "Type 'tensor(int64)' of input parameter (rois)"),
]


@pytest.mark.parametrize("test, build, constraint, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_onnxs_tests_do_not_make_are_onnxruntimes(test, build, constraint, words):
    """onnx's inference (type check off, as its tests run it) accepts these; onnxruntime refuses
    each (docs/runtime-findings.md OS), and shapecheck with the constraint named."""
    m = build()
    feeds = {}
    for i in m.graph.input:
        tt = i.type.tensor_type
        feeds[i.name] = np.ones([d.dim_value for d in tt.shape.dim], onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type))
    assert words in ort_error(m, feeds)
    rep = checked(m)
    assert rep.failed and constraint in [c for _n, c, _m in findings(rep)], findings(rep)


# ---------------------------------------------------------------- random graphs, extreme values

EXTREME_INTS = st.sampled_from([-INT64_MAX - 1, -(1 << 62), -3, -1, 0, 1, 2, 3, 1 << 62, INT64_MAX])
DIMS = st.sampled_from([0, 1, 2, 3, 1 << 62, INT64_MAX])


def _ints(n: int):
    return st.lists(EXTREME_INTS, min_size=0, max_size=n)


def _node(op: str, ins: list, outs: list, **attrs) -> onnx.NodeProto:
    """A node whose empty list attributes are there, as empty INTS."""
    n = node(op, ins, outs, **{k: v for k, v in attrs.items() if v != []})
    n.attribute.extend(helper.make_attribute(k, [], attr_type=onnx.AttributeProto.INTS) for k, v in attrs.items() if v == [])
    return n


@st.composite
def extreme_graphs(draw) -> onnx.ModelProto:
    """One node with extreme attributes or shape values, on inputs with extreme or empty dims."""
    rank = draw(st.integers(1, 4))
    shape = draw(st.lists(DIMS, min_size=rank, max_size=rank))
    x = vi("x", FLOAT, shape)
    kind = draw(st.sampled_from(["pool", "conv_t", "concat", "tile", "shape_input", "resize", "scan", "pad",
                                 "slice", "range", "k"]))
    opset = draw(st.sampled_from([11, 13, 18, 21]))
    inits, inputs, nodes = [], [x], []
    if kind == "pool":
        op = draw(st.sampled_from(["MaxPool", "AveragePool", "LpPool", "Conv"]))
        k = max(rank - 2, 1)
        attrs = {"kernel_shape": draw(st.lists(EXTREME_INTS, min_size=k, max_size=k)),
                 "pads": draw(_ints(2 * k)), "strides": draw(_ints(k)),
                 "auto_pad": draw(st.sampled_from(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))}
        if op != "LpPool":
            attrs["dilations"] = draw(_ints(k))
        ins = ["x"]
        if op == "Conv":
            inputs.append(vi("w", FLOAT, [1, shape[1] if rank > 1 else 1, *draw(st.lists(DIMS, min_size=k, max_size=k))]))
            ins.append("w")
            del attrs["kernel_shape"]
        nodes.append(_node(op, ins, ["y"], **attrs))
    elif kind == "conv_t":
        k = max(rank - 2, 1)
        inputs.append(vi("w", FLOAT, [shape[1] if rank > 1 else 1, 1, *draw(st.lists(DIMS, min_size=k, max_size=k))]))
        nodes.append(_node("ConvTranspose", ["x", "w"], ["y"], pads=draw(_ints(2 * k)), strides=draw(_ints(k)),
                          output_padding=draw(_ints(k)), dilations=draw(_ints(k))))
    elif kind == "concat":
        inputs.append(vi("x2", FLOAT, draw(st.lists(DIMS, min_size=rank, max_size=rank))))
        nodes.append(_node("Concat", ["x", "x2"], ["y"], axis=draw(EXTREME_INTS)))
    elif kind == "tile":
        inits.append(const("r", draw(st.lists(EXTREME_INTS, min_size=rank, max_size=rank))))
        nodes.append(_node("Tile", ["x", "r"], ["y"]))
    elif kind == "shape_input":
        op = draw(st.sampled_from(["Reshape", "Expand", "ConstantOfShape", "Unsqueeze", "Squeeze"]))
        inits.append(const("s", draw(st.lists(EXTREME_INTS, min_size=0, max_size=4))))
        nodes.append(_node(op, ["s"] if op == "ConstantOfShape" else ["x", "s"], ["y"]))
    elif kind == "resize":
        inits.append(const("sizes", draw(st.lists(EXTREME_INTS, min_size=rank, max_size=rank))))
        nodes.append(_node("Resize", ["x", "", "", "sizes"], ["y"]))
    elif kind == "pad":
        inits.append(const("p", draw(st.lists(EXTREME_INTS, min_size=2 * rank, max_size=2 * rank))))
        nodes.append(_node("Pad", ["x", "p"], ["y"]))
    elif kind == "slice":
        for name in ("starts", "ends", "axes", "steps"):
            inits.append(const(name, draw(st.lists(EXTREME_INTS, min_size=0, max_size=rank))))
        nodes.append(_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"]))
    elif kind == "range":
        inputs = []
        inits += [const(n, draw(EXTREME_INTS)) for n in ("start", "limit", "delta")]
        nodes.append(_node("Range", ["start", "limit", "delta"], ["r"]))
        nodes.append(_node("Cast", ["r"], ["y"], to=FLOAT))
    elif kind == "k":   # a count or index attribute or input
        op = draw(st.sampled_from(["TopK", "OneHot", "Split", "Gather", "Flatten", "Transpose", "Softmax"]))
        v = draw(EXTREME_INTS)
        if op == "TopK":
            inits.append(const("k", [v]))
            nodes.append(_node("TopK", ["x", "k"], ["y", "i"], axis=draw(EXTREME_INTS)))
        elif op == "OneHot":
            inits += [const("d", v), const("vals", [0.0, 1.0], np.float32)]
            nodes.append(_node("Cast", ["x"], ["xi"], to=INT64))
            nodes.append(_node("OneHot", ["xi", "d", "vals"], ["y"], axis=draw(EXTREME_INTS)))
        elif op == "Split":
            inits.append(const("sp", draw(st.lists(EXTREME_INTS, min_size=0, max_size=3))))
            nodes.append(_node("Split", ["x", "sp"], ["y", "y2"], axis=v))
        elif op == "Gather":
            inits.append(const("ix", draw(st.lists(EXTREME_INTS, min_size=0, max_size=3))))
            nodes.append(_node("Gather", ["x", "ix"], ["y"], axis=v))
        elif op == "Transpose":
            nodes.append(_node("Transpose", ["x"], ["y"], perm=draw(st.lists(EXTREME_INTS, min_size=0, max_size=rank))))
        else:
            nodes.append(_node(op, ["x"], ["y"], axis=v))
    else:   # a Scan whose num_scan_inputs and body may not fit it
        body = helper.make_graph([helper.make_node("Identity", ["a"], ["c"])], "b",
                                 [vi(n, FLOAT, None) for n in ("a", "s")[:draw(st.integers(0, 2))]],
                                 [vi("c", FLOAT, None)])
        n_in = draw(st.integers(1, 3))
        inputs = [vi(f"i{j}", FLOAT, shape) for j in range(n_in)]
        nodes.append(helper.make_node("Scan", [f"i{j}" for j in range(n_in)], ["y"], body=body,
                                      num_scan_inputs=draw(EXTREME_INTS)))
    return model(nodes, inputs, [vi("y", FLOAT, None)], opset=opset, initializers=inits)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extreme_graphs())
def test_extreme_graphs_never_raise_anything_but_a_shapecheck_error(m):
    for f in (shapecheck.check_model, shapecheck.annotate):
        try:
            f(m)
        except ShapeCheckError:
            pass


# ---------------------------------------------------------------- annotate's output is a valid model

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
SHIPPED = sorted(ROOT.glob("tests/fixtures/**/*.onnx")) + sorted(ROOT.glob("examples/*.onnx"))


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(ROOT)) for p in SHIPPED])
def test_annotated_models_pass_onnx_checkers_full_check(path):
    """Every shipped model, annotated, passes onnx.checker with its full check (onnx's strict
    inference over the written types); a model shapecheck refuses (tests/fixtures/broken) may not."""
    m = onnx.load(str(path))
    try:
        onnx.checker.check_model(shapecheck.annotate(m), full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        assert path.parent.name == "broken" and shapecheck.check_model(m).failed


def test_a_slice_ending_one_or_two_short_of_its_dim_is_exact_at_every_size():
    # an end computed in the graph, x[:, :x.shape[1] - 1]: its sign is unknown (seq may be 0), yet for
    # k = 1, 2 the runtime's end is max(0, seq - k) at every seq; for k = 3 it is not (seq = 2 gives 1)
    import sympy
    from shapecheck.dims import symbol
    from shapecheck.functions.slicing import slice_dim
    s = symbol("S")
    for k in (1, 2):
        for start in (0, 1, 2, -1, -3):
            for step in (1, 2, 3):
                d = slice_dim(s, start, s - k, step)
                for n in range(0, 12):
                    want = len(range(n)[start:n - k:step])
                    got = d.subs(s, n) if isinstance(d, sympy.Basic) else d
                    assert got == want, (k, start, step, n, d)
    assert not isinstance(slice_dim(s, 0, s - 3, 1), int) and "sliced" in str(slice_dim(s, 0, s - 3, 1))


def test_a_model_slicing_to_seq_minus_one_is_exact_in_onnxruntime():
    from onnx import numpy_helper
    c = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)  # noqa: E731
    nodes = [helper.make_node("Shape", ["x"], ["s"], start=1, end=2), helper.make_node("Sub", ["s", "one"], ["e"]),
             helper.make_node("Slice", ["x", "zero", "e", "ax"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["B", "seq", 4])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)],
                          [c("one", [1]), c("zero", [0]), c("ax", [1])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    assert str(shapecheck.infer(model)["y"]) == "float[B,seq-1,4]"
    assert str(shapecheck.check_model(model, assume_nonempty=False).types["y"]) == "float[B,Max(0,seq-1),4]"
    sess = ort.InferenceSession(model.SerializeToString())
    for seq in (1, 2, 5):
        assert sess.run(None, {"x": np.zeros((2, seq, 4), np.float32)})[0].shape == (2, seq - 1, 4)
