"""Shared test set-up.

pytest-xdist's workers start with ``COLUMNS=80`` and ``LINES=24`` set; without them, as in a plain
run, the CLI's tables take its own default for piped output (120 columns), which the tests that
read the CLI's output expect.
"""
import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)
