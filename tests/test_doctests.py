"""The docstring examples of every module run as tests."""
import doctest
import importlib

import pytest

MODULES = ["shapecheck.types", "shapecheck.spec.notation", "shapecheck.spec.compile", "shapecheck.spec.logic",
           "shapecheck.spec.values", "shapecheck.spec.shapes", "shapecheck.spec.analysis", "shapecheck.spec.load",
           "shapecheck.solver", "shapecheck.api", "shapecheck.kernels", "shapecheck.executor", "shapecheck.check", "shapecheck.solve_cache",
           "shapecheck.result", "shapecheck.batch", "shapecheck.findings", "shapecheck.report.github",
           "shapecheck.specdiff.changes", "shapecheck.model.control_flow", "shapecheck.report.text",
           "shapecheck.frontends.onnx_types", "shapecheck.spec.lazy", "shapecheck.frontends.onnx_functions"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no doctest example"
    assert result.failed == 0
