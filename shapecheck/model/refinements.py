"""Declarations that fill in what inference left unknown, tried at the smallest sizes the domain admits.

A declaration may fill in a dim inference cannot give (``refines``): dynamo declares ``x[:, ::2] +
x[:, 1::2]`` as ``[B, floor(T/2+1/2), 3]``, where the broadcast of ``ceil(T/2)`` and ``floor(T/2)``
depends on T.  The claim is taken as stated, so the report said OK, and an annotated copy carried
it, though at T = 1 the sum is ``[B, 0, 3]`` (onnxruntime too).

``refuted_refinements`` checks the model again at a few of the smallest sizes its domain admits
(``probe_points``); where a refining declaration contradicts inference there, its report becomes a
warning that gives those sizes and both types: a witness, not a proof (the sizes tried are few).
"""
from __future__ import annotations

from typing import Any, Callable

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


def refuted_refinements(report: Any, check_at: Callable[[dict[str, int]], Any]) -> None:
    """Each refining declaration of ``report`` that a check at a probe point (``check_at(sizes)``, its
    report) finds contradicted there: a warning with the sizes and both types (see the module's text)."""
    if report.domain is None:
        return
    refining = [d for d in report.declarations if d.status == "refines" and _refutable(d, set(report.domain.dims))]
    if not refining:
        return
    for point in probe_points(report.domain):
        other = check_at(point)
        wrong = {d.tensor: d for d in other.declarations if d.status == "contradicts"}
        at = ", ".join(f"{k} = {v}" for k, v in point.items())
        for d in refining:
            c = wrong.get(d.tensor)
            if c is None or d.severity == "warning":
                continue
            d.severity = "warning"
            d.message += (f"; but at {at}, which the domain admits, inference gives {c.inferred} where the "
                          f"{d.kind} says {c.declared}: what it fills in is wrong there")
            d.fix = f"declare {d.tensor!r} as {d.inferred}, what inference gives at every size"
        if all(d.severity == "warning" for d in refining):
            return


def _refutable(d: Any, inputs: set[str]) -> bool:
    """Whether a check at given sizes can find what ``d`` fills in wrong: a rank, or a dim over the input
    dims; not a name of its own (TorchScript's ``Resizeout_dim_3``), which stays a name at every size."""
    declared, inferred = d.declared_type, d.inferred_type
    if getattr(inferred, "shape", ()) is None and getattr(declared, "shape", None) is not None:
        return True
    return any(getattr(x, "name", None) in inputs for x in _free(getattr(declared, "shape", None) or ()))


def _free(dims: Any) -> set:
    return {s for x in dims if not isinstance(x, int) for s in getattr(x, "free_symbols", ())}


__all__ = ["probe_points", "refuted_refinements", "PROBES"]
