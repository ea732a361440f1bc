"""Imported once by the fork server of ``fresh.fresh_reports``: what every check's process has
before it checks anything, the checker's modules among them.  Besides the imports, every shipped
spec is compiled here, once, so that each forked process does not pay for it again: a compiled spec is an immutable object, and
``tests/test_lazy_registry.py`` holds that resolving one version gives what loading them all gives.
"""
import numpy  # noqa: F401
import onnx  # noqa: F401
import sympy  # noqa: F401

# the checker itself, so that every forked process runs the code this one read (a file saved while
# a test runs would otherwise reach only the processes forked after it: tests/test_process_state.py
# also compares the sources' hash before and after)
import shapecheck.api  # noqa: F401
import shapecheck.batch  # noqa: F401
import shapecheck.executor  # noqa: F401
import shapecheck.model.check  # noqa: F401
from shapecheck.registry import default_registry
from tests.harness import fresh  # noqa: F401

default_registry().load_all()
