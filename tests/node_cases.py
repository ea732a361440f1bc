"""ONNX's own backend node tests, as the per-op node-test files use them: collected once per
file, filtered to single-node models of the ops a file covers."""
from __future__ import annotations

import warnings

import numpy as np
from onnx import TensorProto, numpy_helper

from shapecheck.types import ONNX_CODES, dtype_of_array


def single_op_cases(ops, modelled_types_only: bool = True) -> list:
    """The node test cases whose model is one node of an op in ``ops`` (optionally: only element
    types shapecheck models, which leaves out float8, int4 and the like)."""
    with warnings.catch_warnings():  # the generators of unrelated ops warn about float overflow
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.node import collect_testcases
        cases = collect_testcases()
    out = []
    for c in cases:
        g = c.model.graph
        if len(g.node) != 1 or g.node[0].op_type not in ops:
            continue
        if modelled_types_only and not all(v.type.tensor_type.elem_type in ONNX_CODES
                                           for v in list(g.input) + list(g.output)):
            continue
        out.append(c)
    return out


def opset_of(model) -> int:
    """The model's ONNX opset."""
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def as_array(a) -> np.ndarray:
    """A test case's input or output as an array."""
    return numpy_helper.to_array(a) if isinstance(a, TensorProto) else np.asarray(a)


def type_text(a: np.ndarray) -> str:
    """The shapecheck type text of an array: ``float[2,3]``."""
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def check_case(case, registry, replace=None) -> None:
    """Run every data set of a one-node case through ``execute`` (with the node's number of outputs)
    and the solver (on the inputs' types): values must match the expected outputs within a float
    tolerance (kernels that sum in float64), inferred types must be theirs.  The given inputs are
    matched to the spec's inputs by position, skipping the node's empty input names (an optional
    input left out before a given one); likewise the outputs.  ``replace(feeds, attrs, outputs)``
    may give other expected outputs (a runtime's, where the case's are an erratum)."""
    import shapecheck
    from onnx import helper
    from shapecheck.solver import solve
    from tests.layout_harness import check_inferred

    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset, n_out = opset_of(case.model), len(node.output)
    spec = registry.resolve(node.op_type, opset)
    names = [i.name for i in spec.inputs]
    given = [k for k, n in enumerate(node.input) if n]
    outs = [k for k, n in enumerate(node.output) if n]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        inputs, outputs = [as_array(a) for a in inputs], [as_array(a) for a in outputs]
        feeds = {names[k]: a for k, a in zip(given, inputs)}
        if replace is not None:
            outputs = replace(feeds, attrs, outputs)
        got = list(shapecheck.execute(node.op_type, opset, feeds, attrs, output_count=n_out).values())
        for k, expected in zip(outs, outputs):
            ours = got[k]
            assert ours.dtype == expected.dtype and ours.shape == expected.shape, \
                (ours.dtype, ours.shape, expected.dtype, expected.shape)
            tol = 1e-2 if expected.dtype.itemsize <= 2 else 1e-4
            np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
        result = solve(spec, {n: type_text(a) for n, a in feeds.items()}, attrs, output_count=n_out)
        assert result.status == "valid", result.violations
        inferred = list(result.outputs.values())
        for k, expected in zip(outs, outputs):
            check_inferred(inferred[k], expected, {}, False)
