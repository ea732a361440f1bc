"""A solver result with its dim symbols renamed: every place that names them, objects and texts.

A result names its dims in its output types and relations (symbols) and in its conditions and
findings (text, printed from those symbols when it was solved).  ``renamed_result`` rebuilds all
of them from one map of symbols and one function on texts.  The solve cache renames a result
back from its canonical symbols (``cache._rename``); the model names the symbols a rule made for
an input of unknown rank by the model's tensor (``model/unranked.py``).
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable

from ..containers import is_container, rebuilt
from ..dims import normalize_dim, rebuild
from ..result import ConstraintResult, Finding, Result
from ..types import TensorType

if TYPE_CHECKING:
    import sympy


@lru_cache(maxsize=1 << 14)   # keyed by the expression and the renaming: a pure function of both
def renamed(d: sympy.Basic, pairs: tuple) -> Any:
    """``d`` with its symbols renamed (``pairs``: (old, new)); remembered, because rebuilding a
    ``Min``/``Max`` or a ``floor`` costs sympy milliseconds and a model renames the same few dims
    to and from canonical symbols at every node that uses them."""
    return normalize_dim(rebuild(d, dict(pairs))) if pairs else d


def _name(s: Any) -> str:
    return s.name


def renamed_result(r: Result, back: dict, text: Callable[[str], str]) -> Result:
    """``r`` with the symbols of ``back`` (old -> new) replaced, and ``text`` applied to every text
    that prints them (the conditions, the findings, the constraints' conditions and values)."""
    def finding(f: Finding) -> Finding:
        return replace(f, rule=text(f.rule), message=text(f.message), fix=text(f.fix), detail=text(f.detail),
                       values={k: text(v) for k, v in f.values.items()})

    def dims(ds):
        if ds is None:
            return None
        return tuple(d if type(d) in (int, bool) else d.xreplace(back) if d.is_Symbol else
                     renamed(d, tuple((s, back[s]) for s in sorted(d.free_symbols, key=_name) if s in back))
                     for d in ds)

    def ttype(t: TensorType) -> TensorType:
        if is_container(t):
            return rebuilt(t, ttype, lambda d: dims((d,))[0])
        if t.shape is None and t.sym is None and t.bounds is None:
            return t
        return TensorType(t.dtype, dims(t.shape), t.value, dims(t.sym), dims(t.bounds))

    return Result(
        status=r.status, spec=r.spec, op=r.op, opset=r.opset,
        outputs={k: ttype(v) for k, v in r.outputs.items()},
        conditions=[text(c) for c in r.conditions],
        violations=[finding(f) for f in r.violations],
        warnings=[finding(f) for f in r.warnings],
        constraints=[c if not (c.conditions or c.values) else
                     ConstraintResult(c.id, c.rule, c.message, c.status, [text(x) for x in c.conditions],
                                      {k: text(v) for k, v in c.values.items()}) for c in r.constraints],
        condition_sources={text(k): v for k, v in r.condition_sources.items()},
        relations={text(k): (v.xreplace(back) if v is not None else None) for k, v in r.relations.items()},
        runtime_when={k: text(v) for k, v in r.runtime_when.items()},
    )


__all__ = ["renamed", "renamed_result"]
