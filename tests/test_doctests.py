"""The docstring examples of every module run as tests: the modules with examples are found by
walking the package, so a new module's examples run without a list to forget."""
import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import shapecheck

MODULES = sorted(m.name for m in pkgutil.walk_packages(shapecheck.__path__, "shapecheck.")
                 if ">>>" in Path(importlib.util.find_spec(m.name).origin).read_text(encoding="utf-8"))


def test_the_walk_finds_the_modules_with_examples():
    assert len(MODULES) >= 80 and "shapecheck.functions.conv" in MODULES and "shapecheck.dims" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no doctest example"
    assert result.failed == 0
