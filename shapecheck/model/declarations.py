"""Declarations (``value_info``, declared graph outputs, IR ports) are claims: each is compared
with the inferred type, and may only fill in what inference left unknown.

A declaration agrees, refines (fills an unknown dim, dtype or rank), states a condition (its
dims are named differently and are equal only if a relation holds) or contradicts inference.

A dim name that no input of the model declares (TorchScript names every output dim it could not
infer: ``Convmask_dim_0``) constrains nothing: the first dim it names defines it (``Names``),
and each later use is compared with that definition.  Only a name the inputs declare, or a
name used twice, can make a condition.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ..frontends import Declaration, ModelGraph, ModelNode
from ..notation import Cond, compare_dims
from ..containers import MapType, OptionalType, SequenceType, is_container, kind_of
from ..types import TensorType
from ..dims import dim_str, has_unknown, is_unknown, normalize_dim, is_symbolic
from .reports import DeclarationReport, ModelReport

if TYPE_CHECKING:
    pass


@dataclass
class _Comparison:
    """What one declaration says against inference."""

    dtype: Any
    shape: Any
    contradictions: list[str] = field(default_factory=list)
    conditions: list[tuple[str, Any]] = field(default_factory=list)
    refined: list[str] = field(default_factory=list)
    type: Any = None          # a sequence, optional or map: the type with what the declaration fills in
    pins: bool = False        # a condition is a number declared where inference has a symbolic dim


class Names:
    """The dim names declarations introduce, each defined by the first inferred dim it names.

    >>> from shapecheck.dims import symbol
    >>> names = Names({"N"})
    >>> names.resolve(symbol("T"), symbol("N") + 1), names.resolve(symbol("T") * 2, 4), names.resolve(symbol("N"), 3)
    (N + 1, 2*N + 2, N)
    >>> names.defined
    ['T = N+1']
    """

    def __init__(self, source_names: set[str]):
        self.sources = source_names   # names the model's inputs declare: those stay the model's dims
        self.bound: dict[Any, Any] = {}

    @property
    def defined(self) -> list[str]:
        return [f"{s} = {dim_str(v)}" for s, v in self.bound.items()]

    def resolve(self, declared: Any, inferred: Any) -> Any:
        """``declared`` with the names defined so far replaced; a free name standing alone is
        defined here, as ``inferred``."""
        if not is_symbolic(declared) or is_unknown(declared):
            return declared
        if (declared.is_Symbol and declared not in self.bound and declared.name not in self.sources
                and not has_unknown(inferred)):
            self.bound[declared] = inferred
            return inferred
        if self.bound and any(s in self.bound for s in declared.free_symbols):
            declared = normalize_dim(declared.xreplace(self.bound))
        return self._define_in(declared, inferred)

    def _define_in(self, declared: Any, inferred: Any) -> Any:
        """A free name inside a multiple (dynamo's ``8*s39`` for an inferred ``8*h``), defined as the
        inferred dim divided out (``s39 = h``) when that is a whole polynomial in the model's dims."""
        free = [s for s in getattr(declared, "free_symbols", ()) if s not in self.bound and s.name not in self.sources]
        if len(free) != 1 or not is_symbolic(inferred) or has_unknown(inferred):
            return declared
        (s,) = free
        a, b = declared.coeff(s), declared.subs(s, 0)
        if not (a.is_Integer and a != 0 and (b.is_Integer or not b.free_symbols & {s}) and declared == a * s + b):
            return declared
        value = normalize_dim((inferred - b) / a)
        poly = value.as_coefficients_dict() if is_symbolic(value) else {}
        if not poly or not all(k.is_Integer for k in poly.values()) or has_unknown(value):
            return declared
        self.bound[s] = value
        return normalize_dim(declared.xreplace(self.bound))


def _compare(d: TensorType, inf: TensorType, names: Names | None = None) -> _Comparison:
    if is_container(d) or is_container(inf):
        return _compare_kinds(d, inf, names)
    out = _Comparison(inf.dtype, inf.shape)
    if d.dtype and inf.dtype and d.dtype != inf.dtype:
        out.contradictions.append(f"element type {d.dtype} declared, {inf.dtype} inferred")
    elif d.dtype and not inf.dtype:
        out.dtype = d.dtype
        out.refined.append(f"element type = {d.dtype}")
    if d.shape is not None and inf.shape is None:
        out.shape = d.shape
        out.refined.append(f"rank = {len(d.shape)}")
    elif d.shape is not None and inf.shape is not None:
        if len(d.shape) != len(inf.shape):
            out.contradictions.append(f"rank {len(d.shape)} declared, {len(inf.shape)} inferred")
        else:
            out.shape = _compare_dims(d.shape, inf.shape, out, names)
    return out


def _compare_kinds(d: Any, inf: Any, names: Names | None, where: str = "") -> _Comparison:
    """A declaration against inference where either is a sequence, optional or map: the kinds, then
    what the elements are (a declared sequence's element type against every inferred element)."""
    out = _Comparison(None, None)
    out.type = inf
    dk, ik = kind_of(d), kind_of(inf)
    if ik is None and dk is not None:
        out.type = d
        out.refined.append(f"{where}type = {d}")
        return out
    if dk is None:
        return out
    if dk != ik:
        out.contradictions.append(f"{where}{dk} declared, {ik} inferred")
        return out
    if dk == "map":
        if d.key and inf.key and d.key != inf.key:
            out.contradictions.append(f"{where}key type {d.key} declared, {inf.key} inferred")
        pairs = [(d.value_type, inf.value_type, f"{where}value: ")]
    elif dk == "sequence" and inf.items is not None:
        pairs = [(d.elem, x, f"{where}element {i}: ") for i, x in enumerate(inf.items)]
    else:
        pairs = [(d.elem, inf.elem, f"{where}element: ")]
    refined = []
    for a, b, label in pairs:
        c = _compare(a, b, names) if not (is_container(a) or is_container(b)) else _compare_kinds(a, b, names, label)
        out.contradictions += [x if x.startswith(label) else label + x for x in c.contradictions]
        out.conditions += c.conditions
        out.refined += [x if x.startswith(label) else label + x for x in c.refined]
        refined.append(c.type if c.type is not None else TensorType(c.dtype, c.shape, b.value))
    if out.refined and not out.contradictions:
        out.type = _with_inner(inf, refined)
    return out


def _with_inner(t: Any, inner: list) -> Any:
    """``t`` with its element (map value; each element) replaced by ``inner``."""
    if isinstance(t, SequenceType):
        return SequenceType(None, None, tuple(inner)) if t.items is not None else SequenceType(inner[0], t.length)
    if isinstance(t, OptionalType):
        return OptionalType(inner[0], t.present)
    return MapType(t.key, inner[0])


def _compare_dims(declared: tuple, inferred: tuple, out: _Comparison, names: Names | None) -> tuple:
    new = list(inferred)
    for i, (dd, ii) in enumerate(zip(declared, inferred)):
        if is_unknown(dd) or dd == ii:
            continue
        if names is not None:
            dd = names.resolve(dd, ii)
            if dd == ii:
                continue
        if has_unknown(ii):   # unknown, or computed from an unknown (a sum of two Slices' unknown lengths)
            new[i] = dd
            out.refined.append(f"dim {i} = {dim_str(dd)}")
            continue
        verdict = compare_dims(dd, "==", ii)
        if verdict is False:
            out.contradictions.append(f"dim {i}: {dim_str(dd)} declared, {dim_str(ii)} inferred")
        elif isinstance(verdict, Cond):
            out.conditions.extend((str(r), r) for r in verdict.relations())
            out.pins |= type(dd) is int and is_symbolic(ii)
    return tuple(new)


def check_declaration(graph: ModelGraph, report: ModelReport, env: dict, node: ModelNode, tname: str,
                      assume: Callable[..., None], names: Names | None = None,
                      implied: Callable[[Any], bool] | None = None) -> None:
    """Compare ``tname``'s declaration (if any) with ``env[tname]``; record the verdict in ``report``
    (``names``: the model's declared dim names so far, see ``Names``; ``implied``: whether the
    model's conditions so far imply a relation, which then makes no condition of its own: a
    declared ``seq`` agrees with an inferred 32 once the model runs only at ``seq == 32``)."""
    decl: Declaration | None = graph.declared.get(tname)
    if decl is None:
        return
    inf = env[tname]
    d = decl.type
    if d.dtype == inf.dtype and d.shape == inf.shape and d.shape is not None:
        # the common case, decided without comparing dim by dim
        report.declarations.append(DeclarationReport(tname, node.name, decl.kind, d, d, "agrees", "info"))
        return
    before = len(names.bound) if names is not None else 0
    c = _compare(d, inf, names)
    if implied is not None and c.conditions:
        c.conditions = [(t, r) for t, r in c.conditions if r is None or not implied(r)]
    defined = names.defined[before:] if names is not None else []
    who = f"{tname} ({decl.kind})"
    if c.contradictions:
        severity = "error" if decl.kind == "graph output" else "warning"
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, d, inf, "contradicts", severity,
            f"{decl.kind} {tname!r} is declared {d} but inference gives {inf}: " + "; ".join(c.contradictions),
            f"declare {tname!r} as {inf}"))
    elif c.conditions:
        texts = [t for t, _ in c.conditions]
        for text, rel in c.conditions:
            assume(text, who, relation=rel)
        # a graph output declared with the export's size where inference has a dynamic dim: its readers
        # (onnxruntime warns) see a shape that holds only at that size
        pins = c.pins and decl.kind == "graph output"
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, d, inf, "condition", "warning" if pins else "info",
            (f"the {decl.kind} {tname!r} is declared {d} but inference gives {inf}: the declaration holds only "
             f"where " if pins else f"the {decl.kind} of {tname!r} names its dims differently from inference; "
             "it holds only if ") + ", ".join(texts), f"declare {tname!r} as {inf}", texts,
            [r for _, r in c.conditions if r is not None]))
    elif c.refined:
        env[tname] = c.type if c.type is not None else TensorType(c.dtype, c.shape, inf.value)
        for r in c.refined:
            assume(f"{tname} {r}, taken from {decl.kind}", who, refinement=True)
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, d, inf, "refines", "info",
            f"inference left part of {tname!r} unknown; the {decl.kind} fills in " + ", ".join(c.refined)))
    else:
        named = (f"the {decl.kind} of {tname!r} names dims no input of the model names, which inference "
                 "defines: " + ", ".join(defined)) if defined else ""
        report.declarations.append(DeclarationReport(tname, node.name, decl.kind, d, inf, "agrees", "info",
                                                     named))
