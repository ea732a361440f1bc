"""How the forward pass walks a Loop, Scan or SequenceMap body: bound as its first iteration sees it,
then -- when that is no fixpoint -- with the sequences it grows as hypotheses (``induction``), then
for any iteration (``control_flow.bind``).  Each later walk starts from the state saved before the
first, so a report never keeps what an abandoned walk found.
"""
from __future__ import annotations

from typing import Any, Callable

from ..frontends.graph import ModelNode
from .control_flow import bind, binds, induction, induction_holds, is_fixpoint

__all__ = ["RegionWalk"]


class RegionWalk:
    """The region half of ``forward.ForwardPass`` (its state: ``env``, ``entered``, the report...)."""

    graph: Any
    env: dict
    origin: dict
    entered: set
    owner_index: dict | None
    report: Any
    assumptions: dict
    relations: dict
    refinements: set
    sources: dict
    scoped: set
    invalid: dict
    invalid_nodes: list
    float_sizes: list
    coverage: dict
    unknowns: Any
    skipped: int
    dead: int
    facts: Any
    names: Any
    walk: Callable[[int, int], None]

    def next_region(self, scope: str) -> str | None:
        """The outermost scope around a node not entered yet whose inputs its owner binds."""
        chain = []
        while scope and scope not in self.entered:
            chain.append(scope)
            scope = scope.rpartition("/")[0]
        for s in reversed(chain):
            if binds(self.graph, s):
                return s
            self.entered.add(s)
        return None

    def region(self, i: int, scope: str) -> int:
        """Check a Loop/Scan body from node ``i`` up to its owner (see ``control_flow``); the
        owner's index, where the walk goes on."""
        owner = self.graph.regions[scope][0]
        if self.owner_index is None:
            self.owner_index = {id(n): k for k, n in enumerate(self.graph.nodes)}
        end = self.owner_index[id(owner)]
        self.iterate(scope, owner, lambda: self.walk(i, end))
        return end

    def iterate(self, scope: str, owner: ModelNode, walk: Callable[[], None]) -> None:
        """Bind the body ``scope`` as its first iteration sees it and ``walk`` it; if it is no fixpoint,
        again with the sequences it grows as hypotheses (``induction``), then for any iteration."""
        saved = self.snapshot()
        self.bind(scope, exact=True)
        walk()
        if is_fixpoint(owner, self.env):
            return
        for tried in induction(self.graph, scope, self.env) + [{}]:
            self.restore(saved)
            self.bind(scope, exact=False, guesses=tried)
            walk()
            if not tried or induction_holds(owner, self.env, tried):
                return

    def bind(self, scope: str, exact: bool, guesses: dict | None = None) -> None:
        self.entered.add(scope)
        for name, t in {**bind(self.graph, scope, self.env, exact), **(guesses or {})}.items():
            self.env[name], self.origin[name] = t, "owner input"

    def snapshot(self) -> tuple:
        """Everything a walk changes but the types (a later walk binds and writes those again)."""
        return (len(self.report.nodes), len(self.report.declarations), {k: dict(v) for k, v in self.assumptions.items()},
                dict(self.relations), set(self.refinements), {k: list(v) for k, v in self.sources.items()},
                set(self.scoped), dict(self.invalid), len(self.invalid_nodes), len(self.float_sizes),
                {k: dict(v) for k, v in self.coverage.items()}, self.unknowns.snapshot(), self.skipped, self.dead,
                set(self.entered), self.facts.snapshot(), dict(self.names.bound))

    def restore(self, saved: tuple) -> None:
        (n_nodes, n_decls, self.assumptions, self.relations, self.refinements, self.sources, self.scoped, self.invalid,
         n_invalid, n_float, self.coverage, unknowns, self.skipped, self.dead, self.entered, facts,
         self.names.bound) = saved
        self.facts.restore(facts)
        del self.report.nodes[n_nodes:], self.report.declarations[n_decls:]
        del self.invalid_nodes[n_invalid:], self.float_sizes[n_float:]
        self.unknowns.restore(unknowns)

    def bind_bodies(self, node: ModelNode) -> None:
        """Bind the inputs of ``node``'s bodies that have no nodes (not walked as a region): here, where its owner is."""
        for attr in node.branch_inputs:
            scope = f"{node.name}/{attr}"
            if scope not in self.entered and binds(self.graph, scope):
                self.iterate(scope, node, lambda: None)
