"""The docstring examples of every module run as tests."""
import doctest
import importlib

import pytest

MODULES = ["shapecheck.types", "shapecheck.dims", "shapecheck.spec.parser", "shapecheck.spec.syntax", "shapecheck.spec.compile", "shapecheck.spec.logic",
           "shapecheck.spec.values", "shapecheck.spec.shapes", "shapecheck.spec.slicing", "shapecheck.spec.reduction", "shapecheck.spec.analysis", "shapecheck.spec.load",
           "shapecheck.spec.compare", "shapecheck.spec.operators", "shapecheck.spec.core", "shapecheck.spec.indexing",
           "shapecheck.spec.schema", "shapecheck.spec.source", "shapecheck.spec.merge", "shapecheck.spec.registry",
           "shapecheck.solver.query", "shapecheck.solver.contradiction", "shapecheck.solver.explain",
           "shapecheck.solver", "shapecheck.api", "shapecheck.kernels", "shapecheck.executor", "shapecheck.check", "shapecheck.solve_cache",
           "shapecheck.result", "shapecheck.batch", "shapecheck.findings", "shapecheck.report.github",
           "shapecheck.specdiff.changes"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no doctest example"
    assert result.failed == 0
