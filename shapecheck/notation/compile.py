"""Expression trees -> closures that evaluate over concrete or symbolic values.

One evaluator serves the solver and the executor.  Values are:

* dims: ``int`` (the fast path, never wrapped) or sympy expressions;
* shapes: tuples of dims, or ``UnknownShape`` when a rank is unknown;
* element types: ``str``; type sets: ``frozenset``; attribute values: ``int``/``str``;
* tensors: ``TensorVal`` (type + optional constant value); index values: ``numpy.ndarray``;
* truth: ``True``/``False``, or ``Cond`` -- true under stated relations, or undecidable here.

Anything not known evaluates to an ``Unknown`` that says why (static: unknown rank or
type; value: a tensor's contents, checkable only at run time).

The compiler is a table from a node's kind to the function that compiles it (``_COMPILERS``);
the operators' meaning is in ``compare.py`` and ``operators.py``.  The functions a rule calls are
the function library's (``shapecheck.functions``): it computes with this package's values, so it
stands above it, and fills ``FUNCTIONS`` when it is imported.

>>> from shapecheck.notation.parser import parse
>>> f = compile_expr(parse("a + 1 <= b"))
>>> f({"a": 2, "b": 3})
True
"""
from __future__ import annotations

from typing import Any, Callable, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..dims import Dim, unknown_dim
from .compare_other import compare
from .lattice import NO_VALUE, UNKNOWN, Env, EvalError, TensorVal, Unknown, UnknownShape, lookup
from .logic import Cond, and_, as_cond, not_, or_
from .syntax import Node, unparse
from .operators import _dtype, _rank, arith, show, subscript, value_of

Fn = Callable[[Env], Any]

# Functions handled by the compiler itself (they take a comprehension or short-circuit).
SPECIAL_FORMS = frozenset({"all", "any"})
# The functions a rule may call, by name: the function library (``shapecheck.functions``) fills
# this table when it is imported; the language itself defines none.
FUNCTIONS: dict[str, Callable] = {}
__all__ = ["compile_expr", "same_tree", "fresh_shape", "Fn", "FIELDS", "SPECIAL_FORMS", "FUNCTIONS"]


def compile_expr(node: Node) -> Fn:
    """Compile a tree into a closure ``env -> value``; names resolve through ``lookup``.

    A closure is a pure function of its tree, and the specs repeat their trees (an operator's
    versions share most constraints; names and fields recur everywhere): an equal tree gets the
    closure compiled first (60k compiled subtrees are 4k distinct ones when every spec is loaded).
    Equal means equal kinds, values *of the same type* and children: ``Node``'s own equality
    has ``1 == 1.0``.
    """
    hit = _COMPILED.get(node)
    if hit is not None and same_tree(hit[0], node):
        return hit[1]
    compiler = _COMPILERS.get(node.kind)
    if compiler is None:
        raise EvalError(f"cannot compile {node.kind}")
    fn = compiler(node)
    _COMPILED[node] = (node, fn)
    return fn


# tree -> (the tree compiled, its closure); bounded by the specs' distinct trees
_COMPILED: dict[Node, tuple[Node, Fn]] = {}


def same_tree(a: Node | None, b: Node | None) -> bool:
    """Whether two trees are the same, values compared with their types (``1`` is not ``1.0``).

    >>> from shapecheck.notation.parser import parse
    >>> same_tree(parse("a + 1"), parse("a + 1")), same_tree(parse("a + 1"), parse("a + 2"))
    (True, False)
    >>> Node("num", 1) == Node("num", 1.0), same_tree(Node("num", 1), Node("num", 1.0))
    (True, False)
    """
    if a is b:
        return True
    if a is None or b is None or a.kind != b.kind or type(a.value) is not type(b.value) or a.value != b.value:
        return False
    return len(a.children) == len(b.children) and all(
        same_tree(x, y) if isinstance(x, Node) or isinstance(y, Node) else x == y
        for x, y in zip(a.children, b.children))


def _literal(node: Node) -> Fn:
    v = node.value
    return lambda env: v


def _name(node: Node) -> Fn:
    name = node.value
    return lambda env: lookup(env, name)


def _shape_of(t):
    if isinstance(t, TensorVal):
        return UnknownShape(t.name) if t.shape is None else t.shape
    if isinstance(t, Unknown):
        return UnknownShape(None)
    raise EvalError(f"{show(t)} has no shape")


FIELDS: dict[str, Callable] = {"shape": _shape_of, "value": value_of, "dtype": _dtype, "rank": _rank}


def _attr(node: Node) -> Fn:
    obj = compile_expr(node.children[0])
    get = FIELDS.get(node.value)
    if get is None:
        raise EvalError(f"unknown field .{node.value}")
    return lambda env: get(obj(env))


def _index(node: Node) -> Fn:
    obj = compile_expr(node.children[0])
    subs = [_compile_sub(s) for s in node.children[1:]]
    return lambda env: subscript(obj(env), [s(env) for s in subs])


def _unary(node: Node) -> Fn:
    x = compile_expr(node.children[0])
    return lambda env: arith("-", 0, x(env))


def _binop(node: Node) -> Fn:
    a, b = (compile_expr(c) for c in node.children)
    op = node.value
    return lambda env: arith(op, a(env), b(env))


def _concat(node: Node) -> Fn:
    parts = [compile_expr(c) for c in node.children]

    def concat(env):
        out: tuple = ()
        for p in parts:
            v = p(env)
            if isinstance(v, Unknown):
                return UnknownShape(None) if v.reason == "static" else v
            if not isinstance(v, tuple):
                raise EvalError(f"'++' joins shapes, got {show(v)}")
            out += v
        return out
    return concat


def _compare(node: Node) -> Fn:
    ops = node.value
    xs = [compile_expr(c) for c in node.children]
    if len(ops) == 1:
        op = ops[0]
        a, b = xs
        return lambda env: compare(a(env), op, b(env))

    def chain(env):
        vals = [x(env) for x in xs]
        return and_(compare(vals[i], op, vals[i + 1]) for i, op in enumerate(ops))
    return chain


def _connective(node: Node) -> Fn:
    xs = [compile_expr(c) for c in node.children]
    stop, combine = (False, and_) if node.kind == "and" else (True, or_)

    def connective(env):  # short-circuits like Python's and/or
        out = []
        for x in xs:
            v = x(env)
            if v is stop:
                return stop
            out.append(v)
        return combine(out)
    return connective


def _not(node: Node) -> Fn:
    x = compile_expr(node.children[0])
    return lambda env: not_(x(env))


def _ifelse(node: Node) -> Fn:
    a, c, b = (compile_expr(n) for n in node.children)

    def ifelse(env):
        cv = c(env)
        if cv is True or cv is False or isinstance(cv, (bool, np.bool_)):
            return a(env) if cv else b(env)
        return UNKNOWN if as_cond(cv).opaque else NO_VALUE
    return ifelse


def _list(node: Node) -> Fn:
    xs = [compile_expr(c) for c in node.children]
    return lambda env: tuple(x(env) for x in xs)


def _set(node: Node) -> Fn:
    xs = [compile_expr(c) for c in node.children]
    return lambda env: frozenset(x(env) for x in xs)


def _compile_sub(n: Node) -> Fn:
    if n.kind == "ellipsis":
        return lambda env: Ellipsis
    if n.kind == "slice":
        lo = compile_expr(n.children[0]) if n.children[0] is not None else (lambda env: None)
        hi = compile_expr(n.children[1]) if n.children[1] is not None else (lambda env: None)

        def sl(env):
            a, b = lo(env), hi(env)
            if isinstance(a, Unknown) or isinstance(b, Unknown):
                return UnknownShape(None)
            return slice(a, b)
        return sl
    return compile_expr(n)


def _compile_call(node: Node) -> Fn:
    name = node.value
    if name in SPECIAL_FORMS:
        combine = and_ if name == "all" else or_
        if len(node.children) == 1 and node.children[0].kind == "comp":
            stop = False if name == "all" else True
            gen = _compile_comprehension(node.children[0], stop=stop)

            def quant(env):
                seq = gen(env)
                if seq is _STOPPED:
                    return stop                # all() met a False, any() a True: short-circuit
                return seq if isinstance(seq, Unknown) else combine(list(seq))
            return quant
        xs = [compile_expr(c) for c in node.children]
        return lambda env: combine([x(env) for x in xs])
    if name in _LAZY and len(node.children) == 2:
        return _LAZY[name](*(compile_expr(c) for c in node.children))
    fn = _guarded(name, FUNCTIONS[name])
    if len(node.children) == 1 and node.children[0].kind == "comp":
        seq = _compile_comprehension(node.children[0])
        return lambda env: fn(seq(env))
    args = [compile_expr(c) for c in node.children]
    if len(args) == 1:
        a0 = args[0]
        return lambda env: fn(a0(env))
    return lambda env: fn(*(a(env) for a in args))


def _otherwise(x: Fn, fallback: Fn) -> Fn:
    """``otherwise(x, fallback)`` evaluates ``fallback`` only where ``x`` is unknown: a fallback
    such as ``fresh_dims(n)`` makes new symbols, which a known ``x`` never needs."""
    def otherwise(env):
        v = x(env)
        return fallback(env) if isinstance(v, Unknown) else v
    return otherwise


# library functions whose arguments are evaluated only as needed (the library's own version
# documents them and serves direct calls)
_LAZY: dict[str, Callable[..., Fn]] = {"otherwise": _otherwise}


def _guarded(name: str, fn: Callable) -> Callable:
    """A library function whose failure on meaningless arguments (numpy's ValueError on a negative
    repeat, an index past the end) is an ``EvalError`` of the rule, never a crash of the solver."""
    def call(*args):
        try:
            return fn(*args)
        except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError, KeyError) as exc:
            raise EvalError(f"{name}(): {exc}") from None
    return call


_STOPPED = object()   # a quantifier's comprehension met its short-circuit value


def _compile_comprehension(comp: Node, stop: Any = None) -> Fn:
    """``f(x.value for x in inputs if ...)``: the generated values as a tuple, for any function.

    For ``all``/``any`` (``stop`` = False/True) an element equal to ``stop`` ends the loop
    (``_STOPPED``), and a filter that cannot be decided adds an opaque condition; for other
    functions an undecidable filter makes the whole value unknown.
    """
    var = comp.value
    elt = compile_expr(comp.children[0])
    it = compile_expr(comp.children[1])
    cond = compile_expr(comp.children[2]) if comp.children[2] is not None else None

    def gen(env):
        seq = it(env)
        if isinstance(seq, Unknown):
            return seq
        if seq is None:   # an absent attribute or input: nothing to range over
            raise EvalError(f"{unparse(comp.children[1])} is absent")
        out = []
        for v in seq:
            local = dict(env)
            local[var] = v
            if cond is not None:
                c = cond(local)
                if not isinstance(c, (bool, np.bool_)):
                    if stop is None:
                        return UNKNOWN
                    out.append(Cond((), (), True))
                    continue
                if not c:
                    continue
            r = elt(local)
            if stop is not None and r is stop:
                return _STOPPED
            out.append(r)
        return tuple(out)
    return gen


def fresh_shape(owner: str, rank: int) -> tuple[Dim, ...]:
    return tuple(unknown_dim(f"{owner}.shape[{i}]") for i in range(rank))


_COMPILERS: dict[str, Callable[[Node], Fn]] = {
    "num": _literal, "str": _literal, "bool": _literal, "name": _name, "attr": _attr, "index": _index,
    "unary": _unary, "binop": _binop, "concat": _concat, "compare": _compare, "and": _connective,
    "or": _connective, "not": _not, "ifelse": _ifelse, "list": _list, "set": _set, "call": _compile_call,
}
