"""Sets of integers as the input domain states them: intervals, points, residue classes.

A ``DimSet`` is the set of values of one dim that satisfy the model's conditions on it: a union
of arithmetic progressions ``{start, start + step, ...}`` up to ``end`` (``None``: unbounded).
What matters is which simple relations describe it (``relations``): bounds, an equality, a
finite choice of values, or a divisibility.

>>> DimSet.interval(1, 64).text("seq"), DimSet.interval(4, None).text("h")
('1 <= seq <= 64', 'h >= 4')
>>> DimSet.progression(32, None, 32).text("h"), DimSet.points([1, 16]).text("seq")
('h % 32 == 0 and h >= 32', 'seq in {1, 16}')
>>> DimSet.interval(1, 64).meet(DimSet.interval(8, None)).text("s"), DimSet.interval(3, 2).empty
('8 <= s <= 64', True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

MAX_POINTS = 8           # a finite set larger than this is stated by its bounds and step, if it has them
Piece = tuple            # (start, end or None, step): {start, start + step, ...} up to end


@dataclass(frozen=True)
class DimSet:
    pieces: tuple        # disjoint progressions in increasing order

    @staticmethod
    def interval(lo: int, hi: Optional[int]) -> "DimSet":
        return DimSet(()) if hi is not None and hi < lo else DimSet(((lo, hi, 1),))

    @staticmethod
    def progression(start: int, end: Optional[int], step: int) -> "DimSet":
        if end is not None:
            if end < start:
                return DimSet(())
            end = start + (end - start) // step * step
        return DimSet(((start, end, step if end != start else 1),))

    @staticmethod
    def points(values) -> "DimSet":
        return DimSet(tuple((v, v, 1) for v in sorted(set(values))))

    @property
    def empty(self) -> bool:
        return not self.pieces

    @property
    def lo(self) -> Optional[int]:
        return self.pieces[0][0] if self.pieces else None

    @property
    def hi(self) -> Optional[int]:
        """The largest value, or None when the set is unbounded (or empty).  The pieces are in the
        order of their starts, and interleaved progressions (``floor(h/4) % 2 == 0``: h = 8k .. 8k + 3)
        need not end in that order: the largest is the greatest end, not the last piece's.

        >>> DimSet(((48, 1024, 8), (49, 1017, 8))).hi, DimSet(((0, None, 2), (1, 9, 2))).hi, DimSet(((0, 1, 2),)).hi
        (1024, None, 0)
        """
        if not self.pieces or any(p[1] is None for p in self.pieces):
            return None
        return max(start + (end - start) // step * step for start, end, step in self.pieces)   # each one's last member

    @property
    def finite(self) -> bool:
        return all(p[1] is not None for p in self.pieces)

    def values(self, limit: int = 1 << 16) -> Optional[list[int]]:
        """Every value, when the set is finite and has at most ``limit`` of them."""
        if not self.finite or sum((e - s) // st + 1 for s, e, st in self.pieces) > limit:
            return None
        return [v for s, e, st in self.pieces for v in range(s, e + 1, st)]

    def first(self, n: int) -> list[int]:
        """The ``n`` smallest values (fewer when the set has fewer).

        >>> DimSet.progression(4, None, 3).first(3), DimSet.interval(1, 2).first(5)
        ([4, 7, 10], [1, 2])
        """
        out: list[int] = []
        for s, e, st in self.pieces:
            stop = s + st * (n - len(out)) if e is None else min(e + 1, s + st * (n - len(out)))
            out.extend(range(s, stop, st))
            if len(out) >= n:
                break
        return out

    def __contains__(self, x: int) -> bool:
        return any(x >= s and (e is None or x <= e) and (x - s) % st == 0 for s, e, st in self.pieces)

    def meet(self, other: "DimSet") -> "DimSet":
        """The intersection: piece by piece, each piece of one set against the pieces of the other whose
        ranges reach it (a sweep where each set's ranges follow one another, as a bounded residue class's
        hundreds of pieces do; every pair otherwise)."""
        a, b = self.pieces, other.pieces
        if not (_in_sequence(a) and _in_sequence(b)):
            return _normal([p for x in a for y in b if (p := _meet(x, y)) is not None])
        out, first = [], 0
        for x in a:
            while first < len(b) and b[first][1] is not None and b[first][1] < x[0]:
                first += 1          # b's pieces that end before x starts meet no later piece of a either
            j = first
            while j < len(b) and (x[1] is None or b[j][0] <= x[1]):
                p = _meet(x, b[j])
                if p is not None:
                    out.append(p)
                j += 1
        return _normal(out)

    def shape(self) -> Optional[tuple]:
        """``(lo, hi, step)`` when the set is one progression, else None."""
        if len(self.pieces) == 1:
            return self.pieces[0]
        vals = self.values(MAX_POINTS)
        if vals is not None and len(vals) > 1:
            steps = {b - a for a, b in zip(vals, vals[1:])}
            if len(steps) == 1:
                return vals[0], vals[-1], steps.pop()
        return None

    def text(self, name: str) -> str:
        """The set as relations over ``name`` (``1 <= seq <= 64``, ``seq == 16``, ``h % 32 == 0``)."""
        if self.empty:
            return "false"
        vals = self.values(MAX_POINTS)
        if vals is not None and len(vals) == 1:
            return f"{name} == {vals[0]}"
        shape = self.shape()
        if shape is None and vals is None:
            periodic = self.periodic()
            if periodic is not None:
                return _periodic_text(name, *periodic)
        if shape is None or (vals is not None and shape[2] != 1):
            return f"{name} in {{{', '.join(map(str, vals))}}}" if vals is not None else \
                " or ".join(DimSet((p,)).text(name) for p in self.pieces)
        lo, hi, step = shape
        parts = []
        if step != 1:
            parts.append(f"{name} % {step} == {lo % step}")
        if hi is None:
            parts.append(f"{name} >= {lo}")
        else:
            parts.append(f"{lo} <= {name} <= {hi}" if lo != hi else f"{name} == {lo}")
        return " and ".join(parts)


    def periodic(self) -> Optional[tuple]:
        """``(period, first residue, block length, lo, hi)`` when the set is every value from ``lo`` to
        ``hi`` whose remainder modulo the period lies in one block of consecutive remainders
        (``ceil(h/8) % 4 == 0`` is the block 25..32 of every 32); None otherwise."""
        ps = self.pieces
        if len(ps) < 2:
            return None
        if all(p[2] == ps[0][2] > 1 for p in ps):            # progressions of one step, one per remainder
            period = ps[0][2]
            lo = min(p[0] for p in ps)
            ends = {p[1] is None for p in ps}
            if len(ends) != 1:
                return None
            hi = None if True in ends else max(p[1] for p in ps)
            rems = sorted({p[0] % period for p in ps})
        elif all(p[2] == 1 for p in ps) and len(ps) >= 3 and all(p[1] is not None for p in ps):   # translates
            period = ps[1][0] - ps[0][0]
            width = ps[0][1] - ps[0][0]
            if period <= width + 1 or any(b[0] - a[0] != period for a, b in zip(ps, ps[1:])) or \
                    any(p[1] - p[0] != width for p in ps[:-1]) or ps[-1][1] - ps[-1][0] > width:
                return None
            lo, hi = ps[0][0], ps[-1][1]
            rems = sorted({(ps[0][0] + k) % period for k in range(width + 1)})
        else:
            return None
        block = _block(rems, period)
        if block is None:
            return None
        first, length = block
        # the structure was read off the pieces; both ends are compared value by value
        edges = list(range(max(0, lo - period), lo + 4 * period))
        if hi is not None:
            edges += range(max(0, hi - 4 * period), hi + period)
        if any((x in self) != _in_block(x, period, first, length, lo, hi) for x in edges):
            return None
        return period, first, length, lo, hi


def _block(rems: list[int], period: int) -> Optional[tuple[int, int]]:
    """``(first, length)`` when the remainders are one cyclic run of consecutive ones."""
    have = set(rems)
    starts = [r for r in rems if (r - 1) % period not in have]
    if len(starts) != 1:
        return None
    return starts[0], len(rems)


def _in_block(x: int, period: int, first: int, length: int, lo: int, hi: Optional[int]) -> bool:
    return x >= lo and (hi is None or x <= hi) and (x - first) % period < length


def _periodic_text(name: str, period: int, first: int, length: int, lo: int, hi: Optional[int]) -> str:
    """``h % 4 == 0``, ``ceil(h/8) % 4 == 0``, ``floor(h/8) % 4 == 1``, else ``(h - 25) % 32 < 8``; with bounds."""
    if length == 1:
        head = f"{name} % {period} == {first % period}"
    elif period % length == 0 and first % length == 1 % length:
        head = f"ceil({name}/{length}) % {period // length} == {((first - 1) // length + 1) % (period // length)}"
    elif period % length == 0 and first % length == 0:
        head = f"floor({name}/{length}) % {period // length} == {(first // length) % (period // length)}"
    else:
        head = f"({name} - {first}) % {period} < {length}"
    return head + (f" and {name} >= {lo}" if hi is None else f" and {lo} <= {name} <= {hi}")


def _in_sequence(pieces: tuple) -> bool:
    """Whether each piece's range ends before the next one's starts (ranges sorted and apart)."""
    return all(p[1] is not None and p[1] < q[0] for p, q in zip(pieces, pieces[1:]))


def _meet(a: Piece, b: Piece) -> Optional[Piece]:
    (s1, e1, t1), (s2, e2, t2) = a, b
    # x = s1 (mod t1) and x = s2 (mod t2): a progression of step lcm(t1, t2), if any
    g = math.gcd(t1, t2)
    if (s2 - s1) % g:
        return None
    step = t1 * t2 // g
    x = s1
    for _ in range(t2 // g):          # the first value of a's progression in b's class
        if (x - s2) % t2 == 0:
            break
        x += t1
    lo = max(s1, s2)
    start = x + max(0, -(-(lo - x) // step)) * step
    ends = [e for e in (e1, e2) if e is not None]
    end = min(ends) if ends else None
    if end is not None and start > end:
        return None
    if end is not None:
        end = start + (end - start) // step * step
    return (start, end, step if end != start else 1)


def _normal(pieces: list) -> DimSet:
    """Sorted, with equally spaced points made progressions (``_point_runs``) and single points and
    touching intervals merged."""
    pieces = sorted(_point_runs(pieces), key=_order)
    out: list = []
    for p in pieces:
        if out and out[-1][2] == 1 and p[2] == 1 and out[-1][1] is not None and p[0] <= out[-1][1] + 1:
            s, e, _ = out[-1]
            out[-1] = (s, None if p[1] is None else max(e, p[1]), 1)
        else:
            out.append(p)
    return DimSet(tuple(out))


def _point_runs(pieces: list) -> list:
    """The single points among ``pieces`` as progressions where three or more are equally spaced, a
    point left alone where the run after it is longer: ``{1, 2, 4, 6, ..., 1024}`` (every value a
    bounded range admits, tried one by one) is ``{1}`` and ``2..1024`` by 2, not 512 points.

    >>> [p for p in _point_runs([(v, v, 1) for v in (1, 2, 4, 6, 8, 9)])]
    [(1, 1, 1), (2, 8, 2), (9, 9, 1)]
    """
    points = sorted({p[0] for p in pieces if p[1] == p[0]})
    if len(points) < 3:
        return pieces
    out = [p for p in pieces if p[1] != p[0]]
    n = len(points)

    def run(i: int) -> int:
        j = i + 1
        while j + 1 < n and points[j + 1] - points[j] == points[i + 1] - points[i]:
            j += 1
        return j - i + 1 if i + 1 < n else 1

    i = 0
    while i < n:
        length = run(i)
        if length >= 3 and not (i + 1 < n and run(i + 1) > length):
            out.append((points[i], points[i + length - 1], points[i + 1] - points[i]))
            i += length
        else:
            out.append((points[i], points[i], 1))
            i += 1
    return out


def _order(p: Piece) -> tuple:
    return (p[0], p[2], math.inf if p[1] is None else p[1])


def union(pieces: list) -> DimSet:
    """The union of progressions (each ``(start, end, step)``), merged where they touch and where
    progressions of one step interleave into one of a smaller step.

    >>> union([(4, None, 4), (6, None, 4)]).text("h"), union([(1, 9, 4), (3, 11, 4), (2, 10, 4), (4, 12, 4)]).text("n")
    ('h % 2 == 0 and h >= 4', '1 <= n <= 12')
    """
    pieces = [p if p[1] is None or p[1] != p[0] else (p[0], p[1], 1) for p in pieces if p[1] is None or p[1] >= p[0]]
    while True:
        merged = _interleave(pieces)
        if merged is None:
            return _normal(pieces)
        pieces = merged


def _interleave(pieces: list) -> list | None:
    """One merge of progressions of a step ``P`` whose starts are ``s, s + g, ..., s + P - g`` and
    whose ends agree into the progression of step ``g`` from ``s``; None when none merges."""
    by_step: dict[int, list] = {}
    for p in pieces:
        if p[2] > 1:
            by_step.setdefault(p[2], []).append(p)
    for step, group in by_step.items():
        group.sort(key=_order)
        for k in range(len(group), 1, -1):
            if step % k:
                continue
            g = step // k
            for i in range(len(group) - k + 1):
                run = group[i:i + k]
                s0 = run[0][0]
                if [p[0] for p in run] != [s0 + j * g for j in range(k)]:
                    continue
                ends = [p[1] for p in run]
                if all(e is None for e in ends):
                    end = None
                elif None in ends:
                    continue
                else:
                    end = max(ends)
                    if any(end - e >= step for e in ends) or sorted(ends) != [end - (k - 1 - j) * g for j in range(k)]:
                        continue
                rest = [p for p in pieces if p not in run]
                return rest + [(s0, end, g)]
    return None


__all__ = ["DimSet", "union", "MAX_POINTS"]
