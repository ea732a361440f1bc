"""Declarations that fill in what inference left unknown, tried at the smallest sizes the domain admits.

A declaration may fill in a dim inference cannot give (``refines``): dynamo declares ``x[:, ::2] +
x[:, 1::2]`` as ``[B, floor(T/2+1/2), 3]``, where the broadcast of ``ceil(T/2)`` and ``floor(T/2)``
depends on T.  The claim is taken as stated, so the report said OK, and an annotated copy carried
it, though at T = 1 the sum is ``[B, 0, 3]`` (onnxruntime too).

``refuted_refinements`` checks the model again at a few of the smallest sizes its domain admits
(``probe_points``); where a refining declaration contradicts inference there, its report becomes a
warning that gives those sizes and both types: a witness, not a proof (the sizes tried are few).
An annotated copy then takes its types from a check that takes nothing from those declarations
(``check._types_without``): what they filled in, and every type downstream of it, is left as inference has it.

A declaration that names its dims differently from inference states a condition (``floor(T/2 +
1/2) == ceiling(T/2)*Min(1, ceiling(T/2 - 1/2))``, the same sum now inferred exactly).  The domain
does not need it, since the graph runs either way; ``refuted_conditions`` evaluates it at the same
sizes, and where it fails there, its report becomes the same warning.
"""
from __future__ import annotations

from typing import Any, Callable

from ..domain.evaluate import Unsupported, compile_dim, holds_at
from ..types import TensorType

PROBES = 3   # sizes tried, at most


def probe_points(domain: Any, limit: int = PROBES) -> list[dict[str, int]]:
    """The smallest sizes ``domain`` admits: every input dim at its least value, then each dim in turn at
    its next value, then at the one after, the others at their least; only points the domain admits
    (``admits`` is True).

    >>> from shapecheck.domain.intset import DimSet
    >>> class D:
    ...     dims, sets = ("B", "T"), {"B": DimSet.interval(1, None), "T": DimSet.progression(2, None, 2)}
    ...     def admits(self, p): return True
    >>> probe_points(D(), 4)
    [{'B': 1, 'T': 2}, {'B': 2, 'T': 2}, {'B': 1, 'T': 4}, {'B': 3, 'T': 2}]
    """
    names = [n for n in domain.dims if n in domain.sets]
    firsts = {n: domain.sets[n].first(3) for n in names}
    if not names or any(not v for v in firsts.values()):
        return []
    base = {n: v[0] for n, v in firsts.items()}
    out = [base]
    for k in (1, 2):   # each dim at its next value, then at the one after: every dim moves within the first few
        out += [{**base, n: firsts[n][k]} for n in names if len(firsts[n]) > k]
    return [p for p in out if domain.admits(p) is True][:limit]


def refuted_refinements(report: Any, check_at: Callable[[dict[str, int]], Any]) -> list:
    """Each refining declaration of ``report`` that a check at a probe point (``check_at(sizes)``, its
    report) finds contradicted there: a warning with the sizes and both types (see the module's text).
    Gives those declarations' reports."""
    if report.domain is None:
        return []
    refining = [d for d in report.declarations if d.status == "refines" and _refutable(d, set(report.domain.dims))]
    refuted: list = []
    for point in probe_points(report.domain) if refining else ():
        other = check_at(point)
        wrong = {d.tensor: d for d in other.declarations if d.status == "contradicts"}
        for d in refining:
            c = wrong.get(d.tensor)
            if c is None or d.severity == "warning":
                continue
            _wrong_at(d, point, c.inferred, c.declared, "what it fills in is wrong there")
            d.fix = f"declare {d.tensor!r} as {d.inferred}, what inference gives at every size"
            refuted.append(d)
        if all(d.severity == "warning" for d in refining):
            break
    return refuted


def refuted_conditions(report: Any) -> None:
    """Each declaration whose condition fails at a probe point of ``report``'s domain: a warning that
    gives the sizes and both types there (see the module's text)."""
    # a dim declared as a number where inference has a symbolic one says where it holds already (``seq == 7``)
    stated = [d for d in report.declarations if d.status == "condition" and d.severity == "info" and d.relations
              and not any(_number(getattr(r, "lhs", None)) or _number(getattr(r, "rhs", None)) for r in d.relations)]
    if not stated or report.domain is None:
        return
    for point in probe_points(report.domain):
        for d in stated:
            if d.severity == "info" and any(holds_at(r, point) is False for r in d.relations):
                _wrong_at(d, point, _at(d.inferred_type, point), _at(d.declared_type, point),
                          "the declaration is wrong there")
        if all(d.severity != "info" for d in stated):
            return


def _wrong_at(d: Any, point: dict[str, int], inferred: Any, declared: Any, what: str) -> None:
    at = ", ".join(f"{k} = {v}" for k, v in point.items())
    d.severity = "warning"
    d.message += (f"; but at {at}, which the domain admits, inference gives {inferred} where the "
                  f"{d.kind} says {declared}: {what}")


def _number(x: Any) -> bool:
    return type(x) is int or bool(getattr(x, "is_number", False))


def _at(t: Any, point: dict[str, int]) -> Any:
    """The tensor type ``t`` at these sizes: each dim over them a number, any other as it is."""
    shape = getattr(t, "shape", None)
    if not isinstance(t, TensorType) or shape is None:
        return t
    out = []
    for x in shape:
        syms = tuple(getattr(x, "free_symbols", ()) or ())
        if not syms or any(getattr(s, "name", None) not in point for s in syms):
            out.append(x)
            continue
        try:
            v = compile_dim(x, syms)(tuple(point[s.name] for s in syms))
        except (Unsupported, ZeroDivisionError):
            v = None
        out.append(int(v) if v is not None and v == int(v) else x)
    return TensorType(t.dtype, tuple(out))


def _refutable(d: Any, inputs: set[str]) -> bool:
    """Whether a check at given sizes can find what ``d`` fills in wrong: a rank, or a dim over the input
    dims; not a name of its own (TorchScript's ``Resizeout_dim_3``), which stays a name at every size."""
    declared, inferred = d.declared_type, d.inferred_type
    if getattr(inferred, "shape", ()) is None and getattr(declared, "shape", None) is not None:
        return True
    return any(getattr(x, "name", None) in inputs for x in _free(getattr(declared, "shape", None) or ()))


def _free(dims: Any) -> set:
    return {s for x in dims if not isinstance(x, int) for s in getattr(x, "free_symbols", ())}


__all__ = ["probe_points", "refuted_conditions", "refuted_refinements", "PROBES"]
