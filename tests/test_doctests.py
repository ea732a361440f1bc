"""The docstring examples of every module run as tests."""
import doctest
import importlib

import pytest

MODULES = ["shapecheck.types", "shapecheck.dims", "shapecheck.names", "shapecheck.deferred", "shapecheck.runtime_dim", "shapecheck.notation.parser", "shapecheck.notation.syntax", "shapecheck.notation.compile", "shapecheck.notation.logic",
           "shapecheck.notation.values", "shapecheck.notation.shapes", "shapecheck.notation.slicing", "shapecheck.notation.reduction", "shapecheck.notation.analysis", "shapecheck.registry",
           "shapecheck.notation.compare", "shapecheck.notation.compare_values", "shapecheck.notation.operators", "shapecheck.notation.core", "shapecheck.notation.indexing", "shapecheck.notation.docs",
           "shapecheck.registry.schema", "shapecheck.registry.source", "shapecheck.registry.merge", "shapecheck.registry.base",
           "shapecheck.solver.query", "shapecheck.solver.contradiction", "shapecheck.solver.explain",
           "shapecheck.solver", "shapecheck.api", "shapecheck.kernels", "shapecheck.kernels.resize_antialias", "shapecheck.executor", "shapecheck.check", "shapecheck.solve_cache",
           "shapecheck.result", "shapecheck.batch", "shapecheck.findings", "shapecheck.report.github",
           "shapecheck.specdiff.changes", "shapecheck.model.control_flow", "shapecheck.report.text",
           "shapecheck.frontends.onnx_types", "shapecheck.registry.lazy", "shapecheck.frontends.onnx_functions",
           "shapecheck.notation.tensor_ops", "shapecheck.notation.einsum", "shapecheck.notation.conv",
           "shapecheck.notation.attention", "shapecheck.notation.more_ops", "shapecheck.notation.integer_ops",
           "shapecheck.rounding", "shapecheck.model.facts", "shapecheck.notation.probe",
           "shapecheck.model.declarations", "shapecheck.notation.disjunction", "shapecheck.frontends.onnx_proto"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no doctest example"
    assert result.failed == 0
