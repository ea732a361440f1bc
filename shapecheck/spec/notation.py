"""The constraint notation: text -> expression tree, by a recursive-descent parser.

The notation reads like the operator documents: ``rank(data)``,
``data.shape[k:]``, ``indices.shape[-1]``, ``++`` for shape concatenation,
arithmetic on dims, chained comparisons, ``in`` for sets and ranges, and a
quantifier ``all(expr for d in range(r) if d != axis)``.  Nothing is ever
passed to Python's ``eval``; an unknown token is a parse error with its column.

>>> parse("updates.shape == indices.shape[:-1] ++ data.shape[k:]").kind
'compare'
>>> str(parse("rank(data) >= 1"))
'rank(data) >= 1'
"""
from __future__ import annotations

import re
from typing import Iterator
from dataclasses import dataclass, field

__all__ = ["Node", "NotationError", "parse", "names_in", "substitute", "unparse"]


class NotationError(ValueError):
    """A parse error, with the column it was found at."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


@dataclass(frozen=True)
class Node:
    """One node of an expression tree.

    kinds: num, str, name, attr(obj).value, index(obj, subs...), slice(lo, hi),
    ellipsis, call.value(args...), comp.value(elt, iter, cond), unary.value(x),
    binop.value(l, r), concat(parts...), compare.value=(ops)(operands...),
    and(xs...), or(xs...), not(x), ifelse(then, cond, else), list(items...), set(items...).
    """

    kind: str
    value: object = None
    children: tuple = ()
    pos: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return unparse(self)


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>\d+)
  | (?P<str>"[^"]*"|'[^']*')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.\.|\+\+|==|!=|<=|>=|//|[-+*%<>()\[\]{},:.])
""", re.X)

_KEYWORDS = {"and", "or", "not", "in", "if", "else", "for", "True", "False"}
MAX_NESTING = 40        # brackets, parentheses, unary minus and not, nested in one another
MAX_DEPTH = 120         # levels of an expression tree (a long chain a + b + c + ... is deep too)
MAX_EXPANDED = 20_000   # nodes of a rule once its let names are replaced
MAX_INT = (1 << 63) - 1  # integer literals are int64, as ONNX's dims and attributes
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise NotationError(f"unexpected character {text[pos]!r}", pos)
        kind = m.lastgroup
        if kind != "ws":
            tok = m.group()
            if kind == "name" and tok in _KEYWORDS:
                kind = "kw"
            out.append((kind, tok, pos))
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.depth = 0

    def nest(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise NotationError(f"the expression nests more than {MAX_NESTING} levels deep "
                                "(parentheses, brackets, unary - or not)", pos)

    # -- token helpers
    def peek(self, off: int = 0) -> tuple[str, str, int]:
        return self.toks[min(self.i + off, len(self.toks) - 1)]

    def at(self, tok: str) -> bool:
        k, t, _ = self.peek()
        return t == tok and k in ("op", "kw")

    def take(self) -> tuple[str, str, int]:
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, tok: str) -> int:
        k, t, p = self.peek()
        if t != tok:
            found = "end of text" if k == "end" else repr(t)
            raise NotationError(f"expected {tok!r}, found {found}", p)
        self.i += 1
        return p

    # -- grammar
    def parse(self) -> Node:
        n = self.expr()
        k, t, p = self.peek()
        if k != "end":
            raise NotationError(f"unexpected {t!r} after a complete expression", p)
        return n

    def expr(self) -> Node:
        self.nest(self.peek()[2])
        try:
            return self._expr()
        finally:
            self.depth -= 1

    def _expr(self) -> Node:
        n = self.or_expr()
        if self.at("if"):
            p = self.take()[2]
            cond = self.or_expr()
            self.expect("else")
            other = self.expr()
            return Node("ifelse", None, (n, cond, other), p)
        return n

    def or_expr(self) -> Node:
        xs = [self.and_expr()]
        while self.at("or"):
            self.take()
            xs.append(self.and_expr())
        return xs[0] if len(xs) == 1 else Node("or", None, tuple(xs), xs[0].pos)

    def and_expr(self) -> Node:
        xs = [self.not_expr()]
        while self.at("and"):
            self.take()
            xs.append(self.not_expr())
        return xs[0] if len(xs) == 1 else Node("and", None, tuple(xs), xs[0].pos)

    def not_expr(self) -> Node:
        if self.at("not"):
            p = self.take()[2]
            self.nest(p)
            try:
                return Node("not", None, (self.not_expr(),), p)
            finally:
                self.depth -= 1
        return self.comparison()

    def comparison(self) -> Node:
        first = self.concat()
        ops, operands = [], [first]
        while True:
            k, t, p = self.peek()
            if k == "op" and t in _COMPARE:
                self.take()
                ops.append(t)
            elif self.at("in"):
                self.take()
                ops.append("in")
            elif self.at("not") and self.peek(1)[1] == "in":
                self.take()
                self.take()
                ops.append("not in")
            else:
                break
            operands.append(self.concat())
        if not ops:
            return first
        return Node("compare", tuple(ops), tuple(operands), first.pos)

    def concat(self) -> Node:
        xs = [self.arith()]
        while self.at("++"):
            self.take()
            xs.append(self.arith())
        return xs[0] if len(xs) == 1 else Node("concat", None, tuple(xs), xs[0].pos)

    def arith(self) -> Node:
        n = self.term()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.take()[1]
            n = Node("binop", op, (n, self.term()), n.pos)
        return n

    def term(self) -> Node:
        n = self.unary()
        while self.peek()[1] in ("*", "//", "%") and self.peek()[0] == "op":
            op = self.take()[1]
            n = Node("binop", op, (n, self.unary()), n.pos)
        return n

    def unary(self) -> Node:
        if self.at("-"):
            p = self.take()[2]
            self.nest(p)
            try:
                return Node("unary", "-", (self.unary(),), p)
            finally:
                self.depth -= 1
        return self.postfix()

    def postfix(self) -> Node:
        n = self.atom()
        while True:
            if self.at("."):
                self.take()
                k, t, p = self.take()
                if k != "name":
                    raise NotationError(f"expected a name after '.', found {t!r}", p)
                n = Node("attr", t, (n,), n.pos)
            elif self.at("["):
                self.take()
                subs = [self.subscript()]
                while self.at(","):
                    self.take()
                    subs.append(self.subscript())
                self.expect("]")
                n = Node("index", None, (n, *subs), n.pos)
            elif self.at("("):
                if n.kind != "name":
                    raise NotationError("only named functions can be called", self.peek()[2])
                self.take()
                n = self.call(n)
            else:
                return n

    def subscript(self) -> Node:
        p = self.peek()[2]
        if self.at("..."):
            self.take()
            return Node("ellipsis", None, (), p)
        lo = None if self.at(":") else self.expr()
        if not self.at(":"):
            if lo is None:
                raise NotationError("empty subscript", p)
            return lo
        self.take()
        hi = None if (self.at("]") or self.at(",")) else self.expr()
        return Node("slice", None, (lo, hi), p)

    def call(self, fn: Node) -> Node:
        args: list[Node] = []
        if not self.at(")"):
            first = self.expr()
            if self.at("for"):
                self.take()
                k, var, p = self.take()
                if k != "name":
                    raise NotationError(f"expected a loop variable after 'for', found {var!r}", p)
                self.expect("in")
                it = self.or_expr()
                cond = None
                if self.at("if"):
                    self.take()
                    cond = self.or_expr()
                self.expect(")")
                comp = Node("comp", var, (first, it, cond), first.pos)
                return Node("call", fn.value, (comp,), fn.pos)
            args.append(first)
            while self.at(","):
                self.take()
                args.append(self.expr())
        self.expect(")")
        return Node("call", fn.value, tuple(args), fn.pos)

    def atom(self) -> Node:
        k, t, p = self.take()
        if k == "num":
            if len(t) > 19 or int(t) > MAX_INT:
                raise NotationError(f"the integer {t[:20]}{'...' if len(t) > 20 else ''} is larger than int64 "
                                    f"allows ({MAX_INT})", p)
            return Node("num", int(t), (), p)
        if k == "str":
            return Node("str", t[1:-1], (), p)
        if k == "name":
            return Node("name", t, (), p)
        if k == "kw" and t in ("True", "False"):
            return Node("bool", t == "True", (), p)
        if t == "(":
            n = self.expr()
            self.expect(")")
            return n
        if t in ("[", "{"):
            close = "]" if t == "[" else "}"
            items = []
            if not self.at(close):
                items.append(self.expr())
                while self.at(","):
                    self.take()
                    items.append(self.expr())
            self.expect(close)
            return Node("list" if t == "[" else "set", None, tuple(items), p)
        found = "end of text" if k == "end" else repr(t)
        raise NotationError(f"expected a value, found {found}", p)


def parse(text: str) -> Node:
    """Parse one expression of the notation; raises NotationError with a column."""
    tree = _Parser(text).parse()
    depth, deepest = tree_depth(tree)
    if depth > MAX_DEPTH:
        raise NotationError(f"the expression is {depth} levels deep, more than the {MAX_DEPTH} shapecheck "
                            "evaluates; split it with let names", deepest.pos)
    return tree


def tree_depth(tree: Node) -> tuple[int, Node]:
    """(levels of ``tree``, its deepest node), without recursion."""
    best, deepest = 0, tree
    stack = [(tree, 1)]
    while stack:
        n, d = stack.pop()
        if d > best:
            best, deepest = d, n
        stack.extend((c, d + 1) for c in n.children if isinstance(c, Node))
    return best, deepest


def walk(tree: Node | None) -> Iterator[Node]:
    """Every node of a tree, parents before their children."""
    if isinstance(tree, Node):
        yield tree
        for c in tree.children:
            yield from walk(c)


def names_in(node: Node | None, bound: frozenset = frozenset()) -> set[str]:
    """Free names of an expression (loop variables excluded); function names are not included."""
    if node is None:
        return set()
    if node.kind == "name":
        return set() if node.value in bound else {node.value}
    if node.kind == "comp":
        elt, it, cond = node.children
        inner = bound | {node.value}
        return names_in(it, bound) | names_in(elt, inner) | names_in(cond, inner)
    out: set[str] = set()
    for c in node.children:
        if isinstance(c, Node):
            out |= names_in(c, bound)
    return out


def substitute(node: Node | None, mapping: dict[str, Node], bound: frozenset = frozenset()) -> Node | None:
    """Replace free names by trees (used to state a rule without the spec's ``let`` names).

    Names inside the trees are replaced too, each once (memoised); a name that reaches itself
    is a ``NotationError``, and so is a result larger than ``MAX_EXPANDED`` nodes or deeper
    than ``MAX_DEPTH`` levels (lets that double: ``a1 = a0 + a0``, ``a2 = a1 + a1``, ...).

    >>> str(substitute(parse("k <= r"), {"k": parse("indices.shape[-1]"), "r": parse("rank(data)")}))
    'indices.shape[-1] <= rank(data)'
    """
    if node is None:
        return None
    memo: dict[tuple, tuple[Node, int, int]] = {}
    free: dict[str, set[str]] = {}
    active: list[str] = []

    def name(n: Node, b: frozenset) -> tuple[Node, int, int]:
        if n.value not in free:
            free[n.value] = names_in(mapping[n.value])
        key = (n.value, b & free[n.value])
        if n.value in active:
            raise NotationError(f"{n.value} refers to itself: " + " -> ".join(active[active.index(n.value):] + [n.value]),
                                n.pos)
        if key not in memo:
            active.append(n.value)
            memo[key] = go(mapping[n.value], b)
            active.pop()
        return memo[key]

    def go(n: Node, b: frozenset) -> tuple[Node, int, int]:
        """(the tree, its size, its depth)."""
        if n.kind == "name" and n.value in mapping and n.value not in b:
            out = name(n, b)
        else:
            if n.kind == "comp":  # the loop variable is bound in the element and the condition, not the iterable
                inner = b | {n.value}
                parts = [go(c, inner if i != 1 else b) if c is not None else None for i, c in enumerate(n.children)]
            else:
                parts = [go(c, b) if isinstance(c, Node) else c for c in n.children]
            trees = [p[0] if isinstance(p, tuple) else p for p in parts]
            subs = [p for p in parts if isinstance(p, tuple)]
            out = (Node(n.kind, n.value, tuple(trees), n.pos), 1 + sum(p[1] for p in subs),
                   1 + max((p[2] for p in subs), default=0))
        if out[1] > MAX_EXPANDED or out[2] > MAX_DEPTH:
            raise NotationError(f"with its let names replaced the expression has more than "
                                f"{MAX_EXPANDED if out[1] > MAX_EXPANDED else MAX_DEPTH} "
                                f"{'nodes' if out[1] > MAX_EXPANDED else 'levels'}; shapecheck stops there", n.pos)
        return out
    return go(node, bound)[0]


_PREC = {"ifelse": 0, "or": 1, "and": 2, "not": 3, "compare": 4, "concat": 5, "binop+": 6, "binop-": 6,
         "binop*": 7, "binop//": 7, "binop%": 7, "unary": 8}


def _prec(n: Node) -> int:
    if n.kind == "binop":
        return _PREC["binop" + n.value]
    return _PREC.get(n.kind, 9)


def unparse(n: Node | None) -> str:
    """Canonical text of a tree (used in messages and for matching constraints by meaning)."""
    if n is None:
        return ""
    k = n.kind

    def wrap(c: Node, p: int) -> str:
        s = unparse(c)
        return f"({s})" if _prec(c) < p else s

    if k == "num":
        return str(n.value)
    if k == "str":
        return f'"{n.value}"'
    if k == "bool":
        return str(n.value)
    if k == "name":
        return n.value
    if k == "ellipsis":
        return "..."
    if k == "attr":
        return f"{wrap(n.children[0], 9)}.{n.value}"
    if k == "index":
        return f"{wrap(n.children[0], 9)}[{', '.join(unparse(c) for c in n.children[1:])}]"
    if k == "slice":
        return f"{unparse(n.children[0])}:{unparse(n.children[1])}"
    if k == "call":
        return f"{n.value}({', '.join(unparse(c) for c in n.children)})"
    if k == "comp":
        elt, it, cond = n.children
        s = f"{unparse(elt)} for {n.value} in {unparse(it)}"
        return s + (f" if {unparse(cond)}" if cond is not None else "")
    if k == "unary":
        return f"-{wrap(n.children[0], 8)}"
    if k == "binop":
        p = _prec(n)
        return f"{wrap(n.children[0], p)} {n.value} {wrap(n.children[1], p + 1)}"
    if k == "concat":
        return " ++ ".join(wrap(c, 6) for c in n.children)
    if k == "compare":
        s = wrap(n.children[0], 5)
        for op, c in zip(n.value, n.children[1:]):
            s += f" {op} {wrap(c, 5)}"
        return s
    if k in ("and", "or"):
        p = _PREC[k]
        return f" {k} ".join(wrap(c, p + 1) for c in n.children)
    if k == "not":
        return f"not {wrap(n.children[0], 3)}"
    if k == "ifelse":
        a, c, b = n.children
        return f"{wrap(a, 1)} if {wrap(c, 1)} else {unparse(b)}"
    if k == "list":
        return "[" + ", ".join(unparse(c) for c in n.children) + "]"
    if k == "set":
        return "{" + ", ".join(unparse(c) for c in n.children) + "}"
    raise ValueError(f"unknown node kind {k}")
