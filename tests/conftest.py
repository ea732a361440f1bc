"""Shared test set-up.

pytest-xdist's workers start with ``COLUMNS=80`` and ``LINES=24`` set; without them, as in a plain
run, the CLI's tables take its own default for piped output (120 columns), which the tests that
read the CLI's output expect.  The spec cache is kept in a directory of the test runs' own.
"""
import os
import tempfile

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)

# the spec cache (shapecheck/registry/cache.py) of the test runs, kept out of the user's home
# (one per user: a cache is trusted as the user's own files are)
os.environ.setdefault("SHAPECHECK_CACHE_DIR", os.path.join(tempfile.gettempdir(),
                                                           f"shapecheck-tests-cache-{getattr(os, 'getuid', lambda: 0)()}"))
