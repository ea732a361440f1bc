"""The package's exceptions: every error a user can cause is one of these.

The CLI turns a ``ShapeCheckError`` into one paragraph on stderr and an exit
code; nothing else the package raises is meant for users.
"""
from __future__ import annotations


class ShapeCheckError(Exception):
    """Base of every error shapecheck reports to a user."""

    exit_code = 2


class UsageError(ShapeCheckError):
    """Input that cannot be used: a bad type string, unknown op, unreadable model."""


class OptionError(UsageError):
    """A command option that does not fit the model it is given with (``--dims`` naming a dim no input
    of the model declares): the model is readable, but was not checked."""


class OutputError(UsageError):
    """An output that cannot be written (``--output`` into a folder that does not exist, or over a file
    shapecheck did not write): the model is readable, and nothing was written."""


class SpecError(UsageError):
    """A spec file that does not parse or does not make sense, located at ``file:line``."""

    def __init__(self, message: str, file: str = "", line: int = 0):
        self.file, self.line = file, line
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        super().__init__(where + message)


class ConstraintError(ShapeCheckError):
    """Concrete inputs break a constraint of the spec (raised by the executor).

    Carries the spec name, the constraint id and text, and the values involved.
    """

    exit_code = 1

    def __init__(self, spec: str, constraint: str, rule: str, message: str, values: dict | None = None):
        self.spec, self.constraint, self.rule, self.values = spec, constraint, rule, values or {}
        vals = ", ".join(f"{k} = {v}" for k, v in self.values.items())
        text = f"{spec} {constraint} `{rule}` does not hold: {message}"
        if vals:
            text += f" ({vals})"
        super().__init__(text)


class InvalidModelError(ShapeCheckError):
    """A model check found an error (an invalid node, a pinned dim, a stale graph output), raised where
    the caller asked for errors to stop it (``shapecheck.passes.infer_shapes(..., strict=True)``).

    The text is the first error as ``shapecheck check`` prints it; ``report`` is the whole ``ModelReport``.
    """

    exit_code = 1

    def __init__(self, message: str, report: object = None):
        self.report = report
        super().__init__(message)


class ShapeCheckWarning(UserWarning):
    """A spec's warning on concrete inputs (``W1``: duplicate targets under reduction none)."""


def did_you_mean(word: str, choices, what: str) -> str:
    """``unknown operator 'ScaterND'; did you mean ScatterND?``: the nearest names, never all of them.

    >>> did_you_mean("ScaterND", ["ScatterND", "Scatter", "Gather"], "operator")
    "unknown operator 'ScaterND'; did you mean ScatterND or Scatter?"
    >>> did_you_mean("matmul", ["MatMul", "MatMulInteger"], "operator")
    "unknown operator 'matmul'; did you mean MatMul?"
    """
    import difflib
    choices = list(choices)
    lower = {c.lower(): c for c in choices}
    if word.lower() in lower:
        near = [lower[word.lower()]]
    else:
        near = difflib.get_close_matches(word, choices, n=3, cutoff=0.75) or \
            [lower[c] for c in difflib.get_close_matches(word.lower(), list(lower), n=3, cutoff=0.6)]
    if not near:
        return f"unknown {what} {word!r}; `shapecheck specs` lists them all"
    return f"unknown {what} {word!r}; did you mean {' or '.join(near)}?"
