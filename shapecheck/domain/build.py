"""The input domain of a model: the conditions its nodes need, as simple relations over its input dims.

``build_domain`` takes every condition the forward pass collected (a ``Need``: the relation,
its text and where it comes from) and the assumed sets of the input dims, and returns the
``InputDomain``:

1. each condition is made smaller under the assumptions alone (``reduce_relation``): one that
   always holds goes, one that never holds is refuted;
2. a condition on one dim becomes that dim's set of values (``truth_set``, proved), and the sets
   of each dim are intersected: an empty one means no input meets the model's conditions, a
   finite one pins a dim the model declares dynamic (an error: the model runs only at a few
   sizes);
3. where one condition says ``x % q == 0``, ``floor(x/q)`` is ``x/q`` in the others (made smaller
   again: ``batch == floor(batch*seq/5)`` is then ``seq == 5``);
4. a condition on several dims is made smaller under the other conditions' sets, and stays
   when they do not decide it; an equality that bounds every dim it names (``floor(h/4) *
   floor(w/4) == 64``, each factor at least 1) pins them too.

What cannot be put in a simple form stays a stated condition, simplified as far as proved.

>>> from shapecheck.dims import symbol
>>> from shapecheck.notation import AnyOf, Rel
>>> from shapecheck.domain.relation import Source
>>> b, s = symbol("batch"), symbol("seq")
>>> m = sympy.Min(64, s)
>>> need = Need("...", AnyOf(((Rel("==", m, s),), (Rel("==", m, 1),))), [Source("/Add", "Add", "Add-14", ("C1",))])
>>> d = build_domain([need], {b: DimSet.interval(1, None), s: DimSet.interval(1, None)})
>>> d.text(), [r.kind for r in d.relations]
('batch >= 1, 1 <= seq <= 64', ['bound'])
>>> d = build_domain([Need("...", Rel("==", b * s, 16 * b), [])], {b: DimSet.interval(1, None), s: DimSet.interval(1, None)})
>>> d.text(), d.errors[0].text
('batch >= 1, seq == 16', 'seq == 16')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..dims import is_runtime, is_unknown
from ..notation import Rel
from ..result import Indexable
from .evaluate import holds_at
from .intset import DimSet
from .reduce import reduce_relation
from .show import show
from .relation import DomainRelation
from .settle import always_ge, ceilings
from .narrow import bound_of, by_the_graph, is_dim, multiples_taken_out, narrowed, one_dim_parts, own_needs, without_repeats

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


@dataclass
class Need:
    """A condition the model needs: its text as the node stated it, its relation, where it comes from."""

    text: str
    relation: Any
    sources: list = field(default_factory=list)


@dataclass
class InputDomain(Indexable):
    """Where the model is valid: each input dim's set of values and the relations over several dims."""

    assumption: str
    relations: list = field(default_factory=list)      # DomainRelation, per dim first, then over several
    sets: dict = field(default_factory=dict)           # input dim name -> DimSet
    dims: tuple = ()
    # nodes that always run and are invalid at every size the conditions before them admit: then
    # no input size makes the model valid, whatever the sets say
    invalid_nodes: list = field(default_factory=list)
    # sizes at which the index values a node reads are in range for every input value, and beyond
    # which the values decide (RoBERTa's positions): [{"condition": "seq <= 62", "nodes": [...]}]
    every_value: list = field(default_factory=list)
    # the sizes the model was checked at (``--dims``), by input dim name: those dims are numbers here
    given: dict = field(default_factory=dict)
    malformed: list = field(default_factory=list)   # the graph's own errors (G2: a cycle): valid at no size

    @property
    def errors(self) -> list:
        return [r for r in self.relations if r.severity == "error"]

    @property
    def valid(self) -> bool:
        """Whether some input size may make the model valid."""
        return not self.invalid_nodes and not self.malformed and not any(r.kind == "refuted" for r in self.relations)

    def text(self) -> str:
        """``batch >= 1, 1 <= seq <= 64``: every input dim's set, then the relations over several;
        ``no input size`` when a node that always runs is invalid at every size, and ``no input
        size: `` with the conditions no size meets when the nodes need what cannot hold together."""
        if self.invalid_nodes or self.malformed:
            return "no input size"
        refuted = [r.text for r in self.relations if r.kind == "refuted"]
        if refuted:
            return "no input size: " + "; ".join(refuted)
        parts = [self.sets[n].text(n) for n in self.dims if n in self.sets]
        parts += [r.text + (" where the branch or loop body that needs it runs" if r.where_run else "")
                  for r in self.relations if (len(r.dims) != 1 or r.dims[0] not in self.sets) and not r.opaque]
        opaque = sum(r.opaque for r in self.relations)   # over types or shapes not inferred: no size condition
        return ", ".join(parts + ([f"where {opaque} condition{'s' if opaque > 1 else ''} on what is not inferred "
                                   f"hold{'' if opaque > 1 else 's'}"] if opaque else []))

    def admits(self, sizes: dict[str, int]) -> bool | None:
        """Whether the domain holds at these input sizes (by dim name; other names are not read); None
        where that depends on a dim not given (one the domain narrows: a misspelt name leaves it open)
        or on a size known only at run time."""
        if self.invalid_nodes or self.malformed:
            return False
        open_dims = False
        for name, ds in self.sets.items():
            if name not in sizes:
                open_dims |= ds not in (DimSet.interval(0, None), DimSet.interval(1, None))
            elif sizes[name] not in ds:
                return False
        for r in self.relations:
            if r.kind == "refuted":
                return False
            if len(r.dims) == 1 and r.dims[0] in self.sets:
                continue   # its set says it (a branch's need over one dim narrows no set)
            ok = holds_at(r.relation, sizes)
            if ok is not True:   # where a branch needs it, the branch may not run there: open
                return None if r.where_run else ok
        return None if open_dims else True

    def excluding(self, sizes: dict[str, int]) -> list[DomainRelation]:
        """The relations that fail at these sizes (by dim name; a dim not given is free): a dim's own
        relation when its size is outside the dim's set, one over several dims when it evaluates false.

        >>> from shapecheck.dims import symbol
        >>> b, s = symbol("batch"), symbol("seq")
        >>> d = build_domain([Need("seq <= 64", Rel("<=", s, 64), [])], {b: DimSet.interval(1, None), s: DimSet.interval(1, None)})
        >>> [r.text for r in d.excluding({"seq": 200})], d.excluding({"seq": 64}), d.excluding({"batch": 9})
        (['1 <= seq <= 64'], [], [])
        """
        out = []
        for r in self.relations:
            if r.kind == "refuted" or r.where_run:   # a branch's need fails only where that branch runs
                continue
            if len(r.dims) == 1 and r.dims[0] in self.sets and r.relation is None:
                if r.dims[0] in sizes and sizes[r.dims[0]] not in self.sets[r.dims[0]]:
                    out.append(r)
            elif holds_at(r.relation, sizes) is False or self._never_at(r, sizes):
                out.append(r)
        return out

    def _never_at(self, r: DomainRelation, sizes: dict[str, int]) -> bool:
        """Whether a relation over several dims, some of them given, fails at every value of the others
        in their sets (``past + seq <= 64`` at ``seq = 70``): reduced, with the sizes put in, to False."""
        rel = r.relation
        syms = getattr(rel, "free_symbols", None)
        if not syms or not any(x.name in sizes for x in syms) or all(x.name in sizes for x in syms):
            return False
        fixed = rel.xreplace({x: sizes[x.name] for x in syms if x.name in sizes})
        free = {x: bound_of(self.sets[x.name]) if x.name in self.sets else (0, None, 1)
                for x in syms if x.name not in sizes}
        return reduce_relation(fixed, free) is False

    def to_dict(self) -> dict[str, Any]:
        return {"assumption": self.assumption, "text": self.text(), "valid": self.valid,
                "invalid_nodes": list(self.invalid_nodes), "malformed": list(self.malformed),
                "every_value": list(self.every_value),
                "dims": {n: self.sets[n].text(n) for n in self.dims if n in self.sets},
                "relations": [r.to_dict() for r in self.relations], **({"given": dict(self.given)} if self.given else {})}


def build_domain(needs: list[Need], assumed: dict, nonempty: bool = True, scoped: list[Need] = (),
                 declared: set = frozenset()) -> InputDomain:
    """The input domain from the conditions ``needs`` and the assumed set of each input dim
    (``assumed``); ``scoped``: conditions needed only where a branch or a loop body runs, which stay
    conditions (made smaller under the others, never pinning a dim)."""
    sets = dict(assumed)
    base = {s: bound_of(v) for s, v in assumed.items()}
    per_dim: dict = {}                 # dim -> [(its set under one need, the need, the part)]
    several: list = []
    out: list[DomainRelation] = []
    reduced_needs = []
    for need in needs:
        rel = need.relation
        if rel is None or not hasattr(rel, "free_symbols"):
            out.append(_condition(need.text, need, ()))
            continue
        reduced_needs.append((need, reduce_relation(rel, {s: base.get(s, (0, None, 1)) for s in rel.free_symbols
                                                          if is_dim(s)})))
    for need, reduced in multiples_taken_out(reduced_needs, base):
        if reduced is True:
            continue
        if reduced is False:
            out.append(_refuted(need, "no input meets it"))
            continue
        several += one_dim_parts(reduced, need, sets, per_dim)
    several = narrowed(several, sets, per_dim)
    always = without_repeats(_several(several, sets))
    where_run = without_repeats(_several([(n.relation, n) for n in scoped if hasattr(n.relation, "free_symbols")],
                                         sets, pins=False), always)
    for r in where_run:   # needed only where a branch or a loop body runs: no requirement of every input
        r.where_run = True
    out = _per_dim(sets, assumed, per_dim, declared, nonempty) + always + where_run + out
    names = [s.name for s in assumed]
    return InputDomain("every input dim >= 1" if nonempty else "every input dim >= 0", out,
                       {s.name: sets[s] for s in assumed}, tuple(names))


def _per_dim(sets: dict, assumed: dict, per_dim: dict, declared: set = frozenset(), nonempty: bool = True
             ) -> list[DomainRelation]:
    """One relation per input dim whose set the conditions (or a declared range) narrowed.  A dim the
    graph's conditions leave a few values is pinned (an error), and so is one the range the exporter
    recorded (``declared``) fixes to one value (torch's ``Dim.AUTO`` records the size it specialized
    as ``VR[32, 32]``); a recorded range of several values is the export's contract (``Dim("batch",
    max=8)``), said as such where it narrows a dim, so that a bound no node needs is traced to it."""
    out = []
    for s in dict.fromkeys([*assumed, *per_dim]):
        contributions = per_dim.get(s, [])
        final = sets[s]
        sources = [src for _got, need, _part in contributions for src in need.sources]
        name = s.name
        if final.empty:
            out.append(DomainRelation("refuted", (name,), f"no value of {name} meets {_joined(contributions)}",
                                      "error", sources=sources))
            continue
        # a few values pin the dim (seq == 16, frames in {1, 2, 99, 100}); a run of them is a bound (an
        # 8-row table's 1 <= T <= 8, as a 64-row table's 1 <= seq <= 64)
        run = final.shape()
        values = None if run is not None and run[2] == 1 and run[1] is not None and run[1] > run[0] else final.values(8)
        input_dim = s in assumed and not is_runtime(s)
        # what the graph's own conditions leave a declared dim, without its recorded range (None: not proved)
        graph = by_the_graph(contributions, s, 1 if nonempty else 0) if contributions and s in declared else None
        if values is not None and input_dim and (
                (s not in declared or graph is None or graph.values(8) is not None) if contributions
                else s in declared and len(values) == 1):
            out.append(DomainRelation("values", (name,), final.text(name), "error", lo=final.lo, hi=final.hi,
                                      values=tuple(values), sources=sources, declared=not contributions))
            continue
        if not contributions:
            if s in declared and input_dim and final != DimSet.interval(1 if nonempty else 0, None):
                out.append(DomainRelation("bound", (name,), final.text(name), lo=final.lo, hi=final.hi, declared=True))
            continue
        if final == assumed.get(s, DimSet.interval(0, None)):
            continue
        needs = own_needs(contributions, name, assumed.get(s, DimSet.interval(0, None)))
        tops = tuple(dict.fromkeys(src.node for got, need, _p in contributions if got.hi is not None for src in need.sources))
        # a top no node needs is the range the exporter recorded: no constant of the graph to make larger
        capped = s in declared and final.hi is not None and graph is not None and graph.hi is None
        if values is not None:
            out.append(DomainRelation("values", (name,), final.text(name), lo=final.lo, hi=final.hi,
                                      values=tuple(values), sources=sources, needs=needs, top_recorded=capped, capped_by=tops))
            continue
        shape = final.shape()
        periodic = final.periodic() if shape is None else None
        lo, hi, step = shape if shape is not None else (final.lo, final.hi, periodic[0] if periodic else 1)
        kind = "divisibility" if step > 1 else "bound" if shape is not None else "condition"
        out.append(DomainRelation(kind, (name,), final.text(name), lo=lo, hi=hi, step=step if step > 1 else None,
                                  residue=(periodic[1] if periodic else lo % step) if step > 1 else None,
                                  sources=sources, needs=needs, top_recorded=capped, capped_by=tops))
    return out


def _joined(contributions: list) -> str:
    return " and ".join(need.text for _got, need, _part in contributions)


def _several(several: list, sets: dict, pins: bool = True) -> list[DomainRelation]:
    """Relations over several dims, under the sets the one-dim conditions left."""
    bounds = {s: bound_of(v) for s, v in sets.items() if not v.empty}
    out = []
    for rel, need in several:
        reduced = reduce_relation(rel, {s: bounds.get(s, (0, None, 1)) for s in rel.free_symbols if is_dim(s)})
        if reduced is True:
            continue
        if reduced is False:
            out.append(_refuted(need, "no input meets it together with the model's other conditions") if pins else
                       _condition(f"{need.text} (never holds where it is needed)", need, ()))
            continue
        dims = tuple(sorted(s.name for s in reduced.free_symbols))
        text = show(reduced)
        if pins and isinstance(reduced, Rel) and reduced.op == "==" and _pins(reduced, bounds):
            out.append(DomainRelation("condition", dims, text, "error", sources=list(need.sources), relation=reduced))
            continue
        kind = _kind(reduced)
        out.append(DomainRelation(kind, dims, text, sources=list(need.sources), relation=reduced))
    return out


def _kind(rel: Any) -> str:
    if isinstance(rel, Rel) and not any(is_unknown(s) for s in rel.free_symbols):
        d = sympy.expand(sympy.sympify(rel.lhs) - sympy.sympify(rel.rhs))
        if d.is_polynomial() and sympy.Poly(d).total_degree() <= 1:
            return "equality" if rel.op == "==" else "linear"
    return "condition"


def _pins(rel: Rel, bounds: dict) -> bool:
    """True when ``f == c`` (``c`` a positive integer, ``f`` a positive combination of products of
    dims and floors/ceilings of dims, each factor at least 1) bounds every dim it names: every
    factor is then at most ``c``."""
    lhs, rhs = sympy.sympify(rel.lhs), sympy.sympify(rel.rhs)
    if lhs.is_Integer:
        lhs, rhs = rhs, lhs
    if not rhs.is_Integer or rhs == 0 or lhs.is_Integer:
        return False
    # floors that are ceilings read as such, first: (floor(h/2 - 1/2) + 1)*(floor(w/2 - 1/2) + 1), a
    # Flatten -> Linear after a stride-2 conv, is the one product ceiling(h/2)*ceiling(w/2) (the same values)
    const, lhs = sympy.expand(ceilings(lhs)).as_coeff_Add()
    rhs -= const
    if rhs == 0 or lhs.is_Integer:
        return False
    terms = sympy.Add.make_args(lhs)
    if len(terms) == 1:   # one product == c != 0: no factor is 0, so each is at most |c| in size
        return all((f.base if f.is_Pow else f).is_Symbol and not is_unknown(f.base if f.is_Pow else f)
                   or isinstance(f, (sympy.floor, sympy.ceiling)) and _grows(f)
                   for f in sympy.Mul.make_args(terms[0].as_coeff_Mul()[1]))
    if rhs < 0:
        return False
    for term in terms:
        coeff, rest = term.as_coeff_Mul()
        if coeff <= 0 or rest == 1:
            return False
        for f in sympy.Mul.make_args(rest):
            base = f.base if f.is_Pow and f.exp.is_Integer and f.exp > 0 else f
            if not (base.is_Symbol or isinstance(base, (sympy.floor, sympy.ceiling))) or is_unknown(base):
                return False
            if not always_ge(base - 1, bounds):
                return False
            if not base.is_Symbol and not _grows(base):
                return False
    return True


def _grows(f: Any) -> bool:
    """A floor or ceiling of ``(a*s + b)/q`` with ``a > 0``: unbounded as ``s`` grows."""
    arg = f.args[0]
    syms = arg.free_symbols
    return len(syms) == 1 and arg.is_polynomial() and sympy.Poly(arg, *syms).degree() == 1 and \
        sympy.Poly(arg, *syms).LC() > 0


def _refuted(need: Need, why: str) -> DomainRelation:
    return DomainRelation("refuted", tuple(sorted(s.name for s in getattr(need.relation, "free_symbols", ()))),
                          f"{need.text}: {why}", "error", sources=list(need.sources), relation=need.relation)


def _condition(text: str, need: Need, dims: tuple) -> DomainRelation:
    return DomainRelation("condition", dims, text, sources=list(need.sources), relation=need.relation)


__all__ = ["build_domain", "InputDomain", "Need"]
