"""ONNX's own backend node tests, as the per-op node-test files use them: collected once per
session (``node_testcases``), filtered to single-node models of the ops a file covers."""
from __future__ import annotations

import functools
import json
import warnings

import numpy as np
from onnx import TensorProto, numpy_helper

from shapecheck.types import ONNX_CODES, dtype_of_array


@functools.cache
def node_testcases() -> tuple:
    """Every ONNX backend node test case, collected once per session (collecting takes seconds)."""
    with warnings.catch_warnings():  # the generators of unrelated ops warn about float overflow
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.node import collect_testcases
        return tuple(collect_testcases())


def modelled_types(case) -> bool:
    """Every input and output of the case's model has an element type shapecheck models (not
    float8, int4 and the like)."""
    g = case.model.graph
    return all(v.type.tensor_type.elem_type in ONNX_CODES for v in list(g.input) + list(g.output))


def single_op_cases(ops, modelled_types_only: bool = True) -> list:
    """The node test cases whose model is one node of an op in ``ops`` (optionally: only element
    types shapecheck models, which leaves out float8, int4 and the like)."""
    return [c for c in node_testcases() if len(c.model.graph.node) == 1 and c.model.graph.node[0].op_type in ops
            and (not modelled_types_only or modelled_types(c))]


def opset_of(model) -> int:
    """The model's ONNX opset."""
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def as_array(a) -> np.ndarray:
    """A test case's input or output as an array."""
    return numpy_helper.to_array(a) if isinstance(a, TensorProto) else np.asarray(a)


def type_text(a: np.ndarray) -> str:
    """The shapecheck type text of an array: ``float[2,3]``."""
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def check_case(case, registry, replace=None, valued=(), concrete: bool = False) -> None:
    """Run every data set of a one-node case through ``execute`` (with the node's number of outputs)
    and the solver (on the inputs' types): values must match the expected outputs within a float
    tolerance (kernels that sum in float64), inferred types must be theirs.  The given inputs are
    matched to the spec's inputs by position, skipping the node's empty input names (an optional
    input left out before a given one); likewise the outputs; a variadic first input takes them all.
    ``replace(feeds, attrs, outputs)`` may give other expected outputs (a runtime's, where the case's
    are an erratum).  The inputs named in ``valued`` (a target shape, a range's bounds) are given to
    the solver with their values; with ``concrete``, every inferred output shape must be concrete."""
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
        variadic = bool(spec.inputs) and spec.inputs[0].variadic
        feeds = {names[0]: inputs} if variadic else {names[k]: a for k, a in zip(given, inputs)}
        if replace is not None:
            outputs = replace(feeds, attrs, outputs)
        got = list(shapecheck.execute(node.op_type, opset, feeds, attrs, output_count=n_out).values())
        for k, expected in zip(outs, outputs):
            ours = got[k]
            assert ours.dtype == expected.dtype and ours.shape == expected.shape, \
                (ours.dtype, ours.shape, expected.dtype, expected.shape)
            tol = 1e-2 if expected.dtype.itemsize <= 2 else 1e-4
            np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
        types = {n: [type_text(x) for x in a] if isinstance(a, list)
                 else type_text(a) + (f" = {json.dumps(a.tolist())}" if n in valued else "") for n, a in feeds.items()}
        result = solve(spec, types, attrs, output_count=n_out)
        assert result.status == "valid", result.violations
        inferred = list(result.outputs.values())
        for k, expected in zip(outs, outputs):
            check_inferred(inferred[k], expected, {}, False)
            if concrete:
                assert inferred[k].shape is not None and all(type(d) is int for d in inferred[k].shape), \
                    str(inferred[k])
