"""Checks of a spec's notation texts at load time, each error naming the file and line.

A text is parsed once (``parse_text``); its names must be inputs, attributes, lets or type
sets, its functions the library's, its fields a tensor's; lets must not reach themselves.
"""
from __future__ import annotations

from functools import lru_cache

from ..notation import FIELDS, SPECIAL_FORMS, parse, Node, NotationError, names_in, walk
from ..functions import FUNCTIONS
from .source import FileCtx

MAX_LET_CHAIN = 32         # lets defined through lets defined through lets ...


@lru_cache(maxsize=None)   # keyed by the text: its tree depends on nothing else
def parse_text(text: str) -> Node:
    """A notation text's tree, once per text: family members and ``extends`` chains repeat
    the same rules many times, and trees are immutable."""
    return parse(text)


def parse_located(ctx: FileCtx, text: str, line: int, what: str) -> Node:
    try:
        return parse_text(text)
    except NotationError as exc:
        raise ctx.err(f"{what}: {exc} at column {exc.column + 1} of `{_excerpt(text.strip(), exc.column)}`",
                      line) from None


def _excerpt(text: str, column: int, width: int = 80) -> str:
    """``text`` as it fits in a message: around ``column`` when it is long."""
    if len(text) <= width:
        return text
    lo = max(0, min(column - width // 2, len(text) - width))
    return ("..." if lo else "") + text[lo:lo + width] + ("..." if lo + width < len(text) else "")


def check_names(ctx: FileCtx, tree: Node, known: set[str], line: int, what: str) -> None:
    missing = names_in(tree) - known
    if missing:
        raise ctx.err(f"{what}: unknown name(s) {', '.join(sorted(missing))}; known are inputs, attributes, "
                      f"lets and type sets: {', '.join(sorted(known))}", line)
    for fn in (n.value for n in walk(tree) if n.kind == "call"):
        if fn not in FUNCTIONS and fn not in SPECIAL_FORMS:
            raise ctx.err(f"{what}: unknown function {fn}(); the notation has "
                          f"{', '.join(sorted(set(FUNCTIONS) | SPECIAL_FORMS))}", line)
    for n in walk(tree):
        if n.kind == "attr" and n.value not in FIELDS:
            raise ctx.err(f"{what}: unknown field .{n.value}; a tensor has {', '.join(sorted(FIELDS))}", line)


def check_lets(ctx: FileCtx, trees: dict[str, Node]) -> None:
    """A let that reaches itself through others, or a chain of lets too long to evaluate, is an error."""
    deps = {name: sorted(names_in(t) & set(trees)) for name, t in trees.items()}
    depth: dict[str, int] = {}
    for root in trees:
        stack, path = [(root, iter(deps[root]))], [root]
        while stack:
            name, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                depth[name] = 1 + max((depth[d] for d in deps[name]), default=0)
                if depth[name] > MAX_LET_CHAIN:
                    raise ctx.err(f"let {name} is defined through a chain of more than {MAX_LET_CHAIN} lets; "
                                  "shapecheck evaluates at most that many", ctx.find_key(name))
                continue
            if nxt in path:
                cycle = " -> ".join(path[path.index(nxt):] + [nxt])
                raise ctx.err(f"let {nxt} refers to itself ({cycle}); a let must be defined without itself",
                              ctx.find_key(nxt))
            if nxt not in depth:
                stack.append((nxt, iter(deps[nxt])))
                path.append(nxt)
