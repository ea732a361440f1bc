"""The docstring examples of every module run as tests."""
import doctest
import importlib

import pytest

MODULES = ["shapecheck.types", "shapecheck.dims", "shapecheck.dims.light", "shapecheck.dims.core", "shapecheck.deferred", "shapecheck.dims.runtime", "shapecheck.notation.parser", "shapecheck.notation.syntax", "shapecheck.notation.compile", "shapecheck.notation.logic",
           "shapecheck.functions.elementwise", "shapecheck.functions.shape", "shapecheck.functions.slicing", "shapecheck.functions.reduction", "shapecheck.notation.analysis", "shapecheck.registry",
           "shapecheck.notation.compare", "shapecheck.notation.compare_other", "shapecheck.notation.operators", "shapecheck.functions.core", "shapecheck.functions.scatter", "shapecheck.functions.reference",
           "shapecheck.registry.schema", "shapecheck.registry.source", "shapecheck.registry.merge", "shapecheck.registry.base",
           "shapecheck.solver.query", "shapecheck.solver.contradiction", "shapecheck.solver.explain",
           "shapecheck.solver", "shapecheck.api", "shapecheck.kernels", "shapecheck.kernels.resize", "shapecheck.executor", "shapecheck.model.check", "shapecheck.solver.cache",
           "shapecheck.result", "shapecheck.batch", "shapecheck.findings", "shapecheck.report.github",
           "shapecheck.specdiff.changes", "shapecheck.model.control_flow", "shapecheck.report.text",
           "shapecheck.frontends.onnx_types", "shapecheck.registry.lazy", "shapecheck.frontends.onnx_functions",
           "shapecheck.functions.resize", "shapecheck.functions.linalg", "shapecheck.functions.conv",
           "shapecheck.functions.attention", "shapecheck.functions.selection", "shapecheck.functions.layout", "shapecheck.functions.constant", "shapecheck.functions.gather", "shapecheck.functions.detection",
           "shapecheck.dims.rounding", "shapecheck.model.facts", "shapecheck.notation.probe",
           "shapecheck.model.declarations", "shapecheck.notation.relations", "shapecheck.notation.lattice", "shapecheck.frontends.onnx_proto"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no doctest example"
    assert result.failed == 0
