"""What the model's conditions say about its input dims, used to simplify the dims that flow on.

A model is valid only if the conditions its nodes need hold.  Each input dim starts with its
assumed range (``>= 1`` by default: an empty input is not a size anyone exports for; ``>= 0``
with ``assume_nonempty=False``) and any range the model declares; each condition of a node
that always runs (not a branch or a loop body, whose conditions hold only when it runs) then
narrows the set of values of the one dim it constrains (``domain.truth_set``, proved): bounds on
both sides and a step (``h % 4 == 0``).  Under them the dims that flow on are simplified
(``domain.settle_dim``): ``Min(64, seq)`` is ``seq`` once ``seq <= 64``, torch's truncating
``(frames - 1) // 4`` is the convolution's ``floor((frames - 1)/4)`` once ``frames >= 1``.

>>> from shapecheck.notation import Rel
>>> from shapecheck.dims import symbol
>>> f, s = symbol("frames"), symbol("seq")
>>> facts = Facts([f, s])
>>> facts.settle(sympy.Max(0, sympy.floor((f - 1) / 4)) + 1)
floor(frames/4 - 1/4) + 1
>>> facts.learn(Rel("<=", s, 64)), facts.settle(sympy.Min(64, s)), facts.implies(Rel("<", s, 100))
(True, seq, True)
"""
from __future__ import annotations

from itertools import count
from typing import TYPE_CHECKING, Any, Iterable

from ..domain.evaluate import SMALL_RANGE, Unsupported, holds
from ..domain.intset import DimSet, union
from ..domain.reduce import reduce_relation
from ..domain.rewrite import product_rule, rewritten
from ..domain.settle import settle_dim
from ..domain.single import truth_set
from ..dims import LIGHT, Name
from ..notation import Rel
from ..containers import is_container, rebuilt
from ..types import TensorType
from ..dims import is_symbolic, is_unknown

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


_GENERATIONS = count()


class Facts:
    """The set of values each dim may take under the conditions learned so far; ``settle`` applies them."""

    def __init__(self, inputs: Iterable[Any] = (), nonempty: bool = True,
                 declared: dict[Any, tuple[int, int | None]] | None = None) -> None:
        self.sets: dict[Any, DimSet] = {s: DimSet.interval(1 if nonempty else 0, None) for s in inputs}
        for s, (lo, hi) in (declared or {}).items():
            self.sets[s] = self.sets.get(s, DimSet.interval(0, None)).meet(DimSet.interval(lo, hi))
        self._bounds: dict[Any, tuple] = {}
        # equalities over several dims, as a product and what it equals (``domain.rewrite``)
        self.rules: list[tuple] = []
        self._settled: dict[Any, Any] = {}   # dim -> the dim settled under today's sets
        self._types: dict[int, tuple] = {}   # id of a type -> (the type, it settled)
        self._refresh()

    def snapshot(self) -> tuple:
        return dict(self.sets), dict(self._settled), list(self.rules)

    def restore(self, saved: tuple) -> None:
        self.sets, self._settled, self.rules = saved
        self._types = {}
        self._refresh()

    @property
    def active(self) -> bool:
        """Whether any dim is known to be more than a non-negative integer."""
        return bool(self._bounds) or bool(self.rules)

    def set_of(self, s: Any) -> DimSet:
        return self.sets.get(s, DimSet.interval(0, None))

    def bounds_of(self, syms: Iterable[Any]) -> dict:
        """``(lo, hi, step)`` of each dim: what ``settle_dim`` and ``reduce_relation`` read."""
        return {s: self._bounds.get(s, (0, None, 1)) for s in syms if _learnable(s)}

    def _refresh(self) -> None:
        # what names the state of the sets: a new number at every change (a restore too), never one used
        # before in this process, so what was settled under one state is never taken for another's
        self.generation = next(_GENERATIONS)
        out = {}
        for s, ds in self.sets.items():
            if ds.empty:
                continue
            shape = ds.shape()
            b = shape if shape is not None else (ds.lo, ds.hi, 1)
            if b != (0, None, 1):
                out[s] = b
        self._bounds = out

    def learn(self, relation: Any) -> bool:
        """Narrow the set of the one dim ``relation`` (a ``Rel`` or ``AnyOf``) constrains, where its
        set of values is proved; True if the set changed."""
        simple = _simple(relation)
        if simple is not None:
            s, got = simple
            cur = self.set_of(s)
        else:
            one = self._single(relation)
            if one is None:
                return self._learn_product(relation)
            rel, s = one
            cur = self.set_of(s)
            got = truth_set(rel, s, cur.lo if cur.lo is not None else 0, cur.hi)
            if got is None:
                return False
        new = cur.meet(got)
        if new == cur:
            return False
        self.sets[s] = new
        self._changed()
        return True

    def _changed(self) -> None:
        """What was settled under the old state is dropped, and the state gets a new number."""
        self._settled.clear()
        self._types.clear()
        self._refresh()

    def _learn_product(self, relation: Any) -> bool:
        """An equality over several dims kept as a rewrite of its product (``domain.rewrite``)."""
        syms = getattr(relation, "free_symbols", None)
        if not syms or not all(_learnable(s) for s in syms) or any(type(s) is Name for s in syms):
            return False
        rule = product_rule(relation)
        if rule is None or rule in self.rules:
            return False
        self.rules = [*self.rules, rule]
        self._changed()
        return True

    def _single(self, relation: Any) -> tuple[Any, Any] | None:
        """``(the relation made smaller, its one dim)`` when it constrains one learnable dim."""
        if relation is None or not hasattr(relation, "free_symbols"):
            return None
        syms = relation.free_symbols
        if not syms or not all(_learnable(s) for s in syms) or any(type(s) is Name for s in syms):
            return None
        if len(syms) > 1:
            relation = reduce_relation(relation, self.bounds_of(syms))
            if isinstance(relation, bool):
                return None
            syms = relation.free_symbols
            if len(syms) != 1:
                return None
        return relation, next(iter(syms))

    def implies(self, relation: Any) -> bool:
        """True when the sets prove ``relation`` (a ``Rel`` or an ``AnyOf``): a condition that adds
        nothing to the ones they came from.

        >>> from shapecheck.notation import Rel
        >>> from shapecheck.dims import symbol
        >>> f = symbol("frames")
        >>> facts = Facts([f], nonempty=False)
        >>> facts.implies(Rel("!=", sympy.floor((f - 1) / 4) + 1, 0)), facts.learn(Rel(">=", f, 1))
        (False, True)
        >>> facts.implies(Rel("!=", sympy.floor((f - 1) / 4) + 1, 0)), facts.implies(Rel(">=", f, 2))
        (True, False)
        """
        if relation is None or not hasattr(relation, "free_symbols"):
            return False
        simple = _simple(relation)
        if simple is not None:
            cur = self.set_of(simple[0])
            return cur.meet(simple[1]) == cur
        syms = relation.free_symbols
        if not self._bounds or not syms or not all(_learnable(s) for s in syms) or any(type(s) is Name for s in syms):
            return False   # a light check's names are compared, never computed with
        reduced = relation if len(syms) == 1 else reduce_relation(relation, self.bounds_of(syms))
        if isinstance(reduced, bool):
            return reduced
        syms = reduced.free_symbols
        if len(syms) != 1:
            return False
        (s,) = syms
        cur = self.set_of(s)
        if _fails_somewhere(reduced, s, cur):
            return False   # a value the dim may take breaks it: no proof needed (a new condition, mostly)
        lo = cur.lo if cur.lo is not None else 0
        short = cur.hi is not None and cur.hi - lo <= SMALL_RANGE   # every value tried: milliseconds
        got = truth_set(reduced, s, lo, cur.hi if short else None)
        if got is None and reduced is relation:   # one dim, no proved set: the bounds may still decide it
            return reduce_relation(relation, self.bounds_of(syms)) is True
        return got is not None and cur.meet(got) == cur

    def settle(self, d: Any) -> Any:
        """``d`` simplified under the sets (``domain.settle_dim``)."""
        if not self.active or type(d) is int or not is_symbolic(d) or d.is_Symbol or type(d) in LIGHT:
            return d   # a light check's sum of products has no Min, Max or floor to settle
        done = self._settled.get(d)
        if done is None:
            done = rewritten(d, self.rules) if self.rules else d
            if self._bounds and is_symbolic(done) and done.has(sympy.Min, sympy.Max, sympy.floor, sympy.ceiling):
                done = settle_dim(done, self.bounds_of(done.free_symbols))
            self._settled[d] = done
        return done

    def settle_type(self, t: TensorType) -> TensorType:
        """``t`` with its dims and symbolic value settled (the same object when nothing changes).
        Types are shared by many tensors and never changed: each is settled once per state of the
        sets (remembered by identity, with the type itself kept so that its id is not reused)."""
        if not self.active:
            return t
        hit = self._types.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        out = self._settle_type(t)
        self._types[id(t)] = (t, out)
        return out

    def _settle_type(self, t: TensorType) -> TensorType:
        if is_container(t):
            return rebuilt(t, self._settle_type, self.settle)
        shape = None if t.shape is None else tuple(self.settle(x) for x in t.shape)
        sym = None if t.sym is None else tuple(self.settle(x) if not isinstance(x, bool) else x for x in t.sym)
        bounds = None if t.bounds is None else tuple(self.settle(x) for x in t.bounds)
        if shape == t.shape and sym == t.sym and bounds == t.bounds:
            return t
        return TensorType(t.dtype, shape, t.value, sym, bounds)


def _simple(relation: Any) -> tuple[Any, DimSet] | None:
    """``(dim, its set)`` for a relation between one dim and an integer (``seq != 0``, ``N >= 4``),
    read without sympy (a light check has none)."""
    if type(relation) is not Rel:
        return None
    op, a, b = relation.op, relation.lhs, relation.rhs
    if type(a) is int and type(b) is not int:
        op, a, b = _MIRROR[op], b, a
    if type(b) is not int or not getattr(a, "is_Symbol", False) or not _learnable(a):
        return None
    below, above = DimSet.interval(0, b - 1), DimSet.interval(b + 1, None)
    sets = {"==": DimSet.interval(b, b), "<=": DimSet.interval(0, b), "<": below, ">=": DimSet.interval(b, None),
            ">": above, "!=": union([(0, b - 1, 1), (b + 1, None, 1)])}
    return a, sets[op].meet(DimSet.interval(0, None))


_MIRROR = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _learnable(s: Any) -> bool:
    """A dim whose values the conditions may narrow: a non-negative integer symbol, not an unknown."""
    return getattr(s, "is_integer", False) and getattr(s, "is_nonnegative", False) and not is_unknown(s)


def _fails_somewhere(relation: Any, s: Any, values: DimSet, count: int = 64) -> bool:
    """Whether ``relation`` is false at one of the ``count`` smallest values of ``values`` (a
    counterexample, found exactly, so ``implies`` need not try to prove it); False when none is found
    or one cannot be evaluated."""
    try:
        f = holds(relation, (s,))
        return any(not f((x,)) for x in values.first(count))
    except (ZeroDivisionError, OverflowError, ValueError, TypeError, Unsupported):
        return False


__all__ = ["Facts"]

