"""ONNX's own backend node tests, through shapecheck: collected once per session
(``node_testcases``), and each one-node case of a family's ops run through ``execute`` and the
solver (``check_node_case``).

A family's ops are the specs whose semantics kind's kernel lives in ``kernels/<family>.py``
(``family_cases``): no list of ops.  What an op's cases need beyond the common check (inputs
the solver sees with their values, a float tolerance, random values, an erratum) is
``tests/ops/quirks.py``'s one table; the cases no family runs, with why, are its ``SKIP``.
"""
from __future__ import annotations

import functools
import importlib.util
import warnings

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import shapecheck
from shapecheck.kernels import KERNELS
from shapecheck.registry import default_registry
from shapecheck.solver import solve
from shapecheck.containers import OptionalValue, from_proto, is_container, type_of_value
from shapecheck.types import ONNX_CODES, dtype_of_array

LAST = 28   # the specs' range: a case stamped with a later opset runs at 28 (SKIP holds those of later versions)
REG = default_registry()


@functools.cache
def node_testcases() -> tuple:
    """Every ONNX backend node test case, collected once per session (collecting takes seconds)."""
    with warnings.catch_warnings():  # the generators of unrelated ops warn about float overflow
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.node import collect_testcases
        return tuple(collect_testcases())


def _modelled(tp) -> bool:
    """A tensor of an element type shapecheck models, or a sequence or optional of one."""
    kind = tp.WhichOneof("value")
    if kind in ("sequence_type", "optional_type"):
        return _modelled(getattr(tp, kind).elem_type)
    return kind == "tensor_type" and tp.tensor_type.elem_type in ONNX_CODES


def modelled_types(case) -> bool:
    """Every input and output of the case's model has an element type shapecheck models (not
    float8, int4 and the like; a sequence's or an optional's tensors too), and so has a Cast's target."""
    g = case.model.graph
    return all(_modelled(v.type) for v in list(g.input) + list(g.output)) and \
        all(a.name != "to" or a.i in ONNX_CODES for a in g.node[0].attribute)


def opset_of(model) -> int:
    """The model's opset of its node's domain (ONNX's, ai.onnx.ml's...)."""
    domain = model.graph.node[0].domain if model.graph.node else ""
    return next(o.version for o in model.opset_import if o.domain in ((domain,) if domain else ("", "ai.onnx")))


def as_array(a, tp=None):
    """A test case's input or output as an array (bfloat16 cases carry TensorProtos); a sequence as a
    list of arrays, an input of an optional type (``tp``, its TypeProto) as an ``OptionalValue``."""
    if tp is not None and tp.WhichOneof("value") == "optional_type":
        return OptionalValue(None if a is None else as_array(a, tp.optional_type.elem_type),
                             from_proto(tp.optional_type.elem_type))
    if isinstance(a, list):
        return [as_array(x) for x in a]
    return numpy_helper.to_array(a) if isinstance(a, TensorProto) else np.asarray(a)


def type_text(a: np.ndarray) -> str:
    """The shapecheck type text of an array: ``float[2,3]``."""
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def family_of(spec) -> str | None:
    """The family of a spec: the module of ``kernels/`` its semantics kind's kernel lives in (None
    for a spec without a kernel)."""
    kernel = KERNELS.get(spec.semantics.get("kind"))
    return None if kernel is None else kernel.__module__.rsplit(".", 1)[1]


def spec_of(case):
    """The spec a one-node case's op resolves to at the case's opset, or None."""
    node = case.model.graph.node[0]
    domain = node.domain or None
    opset = min(next(o.version for o in case.model.opset_import if o.domain == node.domain
                     or (not node.domain and o.domain == "ai.onnx")), LAST)
    if not any(s.version <= opset for s in REG.versions(node.op_type, domain)):
        return None
    return REG.resolve(node.op_type, opset, domain)


def family_cases(family: str) -> list:
    """The one-node cases, of element types shapecheck models, of the ops of ``family``, but those ``SKIP``s."""
    from tests.ops.quirks import SKIP
    out = []
    for c in node_testcases():
        if len(c.model.graph.node) != 1 or c.name in SKIP or not modelled_types(c):
            continue
        spec = spec_of(c)
        if spec is not None and family_of(spec) == family:
            out.append(c)
    return out


def _attrs(node) -> dict:
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    return {k: [x.decode() for x in v] if isinstance(v, list) and v and isinstance(v[0], bytes)
            else v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}


def _feeds(spec, node, inputs: list) -> dict:
    """The given inputs matched to the spec's inputs by position, skipping the node's empty input
    names (an optional input left out before a given one); a variadic first input takes them all."""
    names = [i.name for i in spec.inputs]
    if spec.inputs and spec.inputs[0].variadic:
        return {names[0]: list(inputs)}
    given = [k for k, n in enumerate(node.input) if n]
    last = len(names) - 1 if spec.inputs and spec.inputs[-1].variadic else None
    out: dict = {}
    for k, a in zip(given, inputs):
        if last is not None and k >= last:   # a variadic last input takes the rest (SequenceMap's)
            out.setdefault(names[last], []).append(a)
        else:
            out[names[k]] = a
    return out


def narrow_float(dt: np.dtype) -> bool:
    """bfloat16 and the float8, float6 and float4 types of ml_dtypes (numpy's kind "V")."""
    return dt.kind == "V" and dt.name.startswith(("bfloat16", "float"))


def _same_values(ours, expected, quirk) -> None:
    if isinstance(expected, list) or isinstance(ours, (list, OptionalValue)):
        ours = ours.value if isinstance(ours, OptionalValue) else ours
        assert isinstance(ours, list) == isinstance(expected, list), (ours, expected)
        if isinstance(expected, list):
            assert len(ours) == len(expected), (len(ours), len(expected))
            for a, b in zip(ours, expected):
                _same_values(a, b, quirk)
        else:
            _same_values(ours, expected, quirk)
        return
    assert ours.dtype == expected.dtype and ours.shape == expected.shape, \
        (ours.dtype, ours.shape, expected.dtype, expected.shape)
    if ours.dtype.kind == "V" and not narrow_float(ours.dtype):      # int4, uint4, int2, uint2
        ours, expected = ours.astype(np.int64), expected.astype(np.int64)
    if quirk.tol is None or (narrow_float(ours.dtype) and ours.dtype.itemsize == 1):
        if ours.dtype.kind == "f" or narrow_float(ours.dtype):      # NaN equals NaN, 0 equals -0
            np.testing.assert_array_equal(ours.astype(np.float64), expected.astype(np.float64))
        else:
            np.testing.assert_array_equal(ours, expected)
    elif ours.dtype.kind in "fc" or narrow_float(ours.dtype):
        rtol, atol = quirk.tol16 if expected.dtype.itemsize <= 2 else quirk.tol
        np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=quirk.equal_nan)
    else:
        np.testing.assert_array_equal(ours, expected)


def _type_of(name: str, a, quirk, variadic: bool = False):
    """What the solver is given for an input: its type, or the array itself (its value too); a
    sequence's or an optional's type (its elements' values too)."""
    if isinstance(a, list) and variadic:
        return [type_of_value(x) if isinstance(x, (list, OptionalValue)) else type_text(x) for x in a]
    if isinstance(a, (list, OptionalValue)):
        return type_of_value(a)
    if name in quirk.valued or (quirk.small_ints_valued and a.dtype.kind == "i" and a.ndim <= 1):
        return a
    return type_text(a)


def _onnxruntime_instead(case):
    """For an erratum: onnxruntime's outputs, which must differ from the case's."""
    from tests.harness.runtime import run_ort
    node = case.model.graph.node[0]

    def replace(feeds, attrs, outputs):
        ort = run_ort(node.op_type, opset_of(case.model), list(feeds.items()), attrs,
                      [o.type.tensor_type.elem_type for o in case.model.graph.output])
        assert any(not np.array_equal(a, b) for a, b in zip(ort, outputs)), "ONNX's values now agree"
        return ort
    return replace


def check_node_case(case, family: str) -> None:
    """Every data set of a one-node case through ``execute`` (with the node's number of outputs) and the
    solver (on the inputs' types, and the values of ``quirk.valued``): values must be the expected
    outputs (exactly, or within ``quirk``'s float tolerance; random ones only in dtype, shape and
    range), inferred types theirs (every dim the run's size where ``quirk.concrete``).  The outputs
    are matched by position, skipping the node's empty output names.  A case whose expected outputs
    are an erratum (``ORT_INSTEAD``) is compared with onnxruntime's instead.  The op's quirk is
    ``tests/ops/quirks.py``'s, by op or by ``family``."""
    from tests.harness.runtime import check_inferred
    from tests.ops.quirks import ORT_INSTEAD, quirk_of
    node = case.model.graph.node[0]
    quirk = quirk_of(node.op_type, family)
    replace = _onnxruntime_instead(case) if case.name in ORT_INSTEAD else None
    attrs, n_out = _attrs(node), len(node.output)
    spec = spec_of(case)
    opset = min(opset_of(case.model), LAST)
    outs = [k for k, n in enumerate(node.output) if n]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        given = [i for i in case.model.graph.input]
        inputs, outputs = [as_array(a, v.type) for a, v in zip(inputs, given)], [as_array(a) for a in outputs]
        outputs = [o.astype(object) if isinstance(o, np.ndarray) and o.dtype.kind in "US" else o for o in outputs]
        feeds = _feeds(spec, node, inputs)
        if replace is not None:
            outputs = replace(feeds, attrs, outputs)
        runnable = quirk.needs is None or importlib.util.find_spec(quirk.needs) is not None
        got = list(shapecheck.execute(node.op_type, opset, feeds, attrs, domain=node.domain or None,
                                      output_count=n_out).values()) if runnable else []
        random = quirk.random is not None and quirk.random(feeds)
        for k, expected in zip(outs if runnable else [], outputs):
            if random:
                assert got[k].dtype == expected.dtype and got[k].shape == expected.shape
                if quirk.values_in is not None:
                    assert set(np.unique(got[k].astype(np.float64)).tolist()) <= set(quirk.values_in)
            else:
                _same_values(got[k], expected, quirk)
        variadic = {i.name for i in spec.inputs if i.variadic}
        types = {n: _type_of(n, a, quirk, n in variadic) for n, a in feeds.items()}
        result = solve(spec, types, attrs, output_count=n_out)
        assert result.status == "valid", (result.violations, result.conditions)
        inferred = list(result.outputs.values())
        if quirk.through_model:   # the outputs a body gives (SequenceMap's): from the model's check
            report = shapecheck.check_model(case.model)
            assert report.exit_code == 0, [str(v) for n in report.nodes for v in n.violations]
            inferred = [report.types[o] for o in node.output]
            subs = {d: n for i, a in zip(case.model.graph.input, inputs) if isinstance(a, np.ndarray)
                    for d, n in zip(report.types[i.name].shape or (), a.shape) if type(d) is not int}
            for k, expected in zip(outs, outputs):
                check_inferred(inferred[k], expected, subs, False)
            continue
        concrete = quirk.concrete(feeds) if callable(quirk.concrete) else quirk.concrete
        for k, expected in zip(outs, outputs):
            check_inferred(inferred[k], expected, {}, False)
            if concrete and not is_container(inferred[k]):
                assert inferred[k].shape is not None and all(type(d) is int for d in inferred[k].shape), \
                    str(inferred[k])


def family_specs(family: str) -> list:
    """Every shipped spec of ``family``'s ops."""
    return [s for s in REG if family_of(s) == family]
