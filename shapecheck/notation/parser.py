"""The constraint notation: text -> expression tree (``syntax.Node``), by a recursive-descent parser.

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

from .syntax import MAX_DEPTH, Node, NotationError, tree_depth

__all__ = ["parse", "MAX_NESTING", "MAX_INT"]


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>\d+)
  | (?P<str>"[^"]*"|'[^']*')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\.\.\.|\+\+|==|!=|<=|>=|//|[-+*%<>()\[\]{},:.])
""", re.X)

_KEYWORDS = {"and", "or", "not", "in", "if", "else", "for", "True", "False"}

MAX_NESTING = 40        # brackets, parentheses, unary minus and not, nested in one another

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
        return self.joined("or", self.and_expr)

    def and_expr(self) -> Node:
        return self.joined("and", self.not_expr)

    def joined(self, keyword: str, operand) -> Node:
        """``operand (keyword operand)*`` as one ``keyword`` node (or the lone operand)."""
        xs = [operand()]
        while self.at(keyword):
            self.take()
            xs.append(operand())
        return xs[0] if len(xs) == 1 else Node(keyword, None, tuple(xs), xs[0].pos)

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
