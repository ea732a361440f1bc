"""The notation's function reference, generated from the library's docstrings.

``python -m shapecheck.functions.reference > docs/notation-functions.md`` writes it; a test checks
the file is current.  Each module of the library (``LIBRARIES``, found by walking the package) is a
section, each function in its ``NOTATION`` tuple an entry: its signature and its docstring, with
the docstring's examples as a code block.

>>> reference().splitlines()[0]
'# Notation functions'
"""
from __future__ import annotations

import inspect
from typing import Callable

from ..notation import FIELDS, SPECIAL_FORMS
from . import LIBRARIES, notation_name

__all__ = ["reference", "signature"]


def signature(fn: Callable) -> str:
    """How a rule calls ``fn``: its notation name and its parameters, without annotations.

    >>> from shapecheck.functions.slicing import slice_shape
    >>> signature(slice_shape)
    'slice_shape(shape, starts, ends, axes=None, steps=None)'
    """
    params = []
    for p in inspect.signature(fn).parameters.values():
        text = ("*" if p.kind is p.VAR_POSITIONAL else "") + p.name
        if p.default is not p.empty:
            text += f"={p.default!r}"
        params.append(text)
    return f"{notation_name(fn)}({', '.join(params)})"


def _doc_markdown(doc: str) -> list[str]:
    """A docstring as markdown: prose as it is, each run of ``>>>`` examples (and their output) as code."""
    out: list[str] = []
    in_code = False
    for line in inspect.cleandoc(doc).splitlines():
        starts = line.startswith(">>>") or line.startswith("...")
        if starts and not in_code:
            out.append("```pycon")
            in_code = True
        elif in_code and not line.strip():
            out.append("```")
            in_code = False
        out.append(line)
    if in_code:
        out.append("```")
    return out


def reference() -> str:
    """The whole reference as markdown: the fields and special forms, then one section per library module."""
    lines = ["# Notation functions", "",
             "Generated from the docstrings of the notation's function library by "
             "`python -m shapecheck.functions.reference > docs/notation-functions.md`; do not edit by hand.",
             "", "## Fields and special forms", "",
             "Tensor fields: " + ", ".join(f"`x.{f}`" for f in FIELDS) + ".",
             "",
             "Special forms, compiled by the notation itself: " + ", ".join(f"`{f}(...)`" for f in sorted(SPECIAL_FORMS))
             + " take a list or a comprehension (`all(d < r for d in range(r))`) and short-circuit like Python's.",
             ""]
    for lib in LIBRARIES:
        summary = " ".join(inspect.cleandoc(lib.__doc__ or lib.__name__).split("\n\n")[0].split())
        lines += [f"## {lib.__name__.rsplit('.', 1)[1]}", "", summary, ""]
        for fn in sorted(lib.NOTATION, key=notation_name):
            lines += [f"### `{signature(fn)}`", ""] + _doc_markdown(fn.__doc__ or "(undocumented)") + [""]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(reference(), end="")
