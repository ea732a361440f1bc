"""The constraint notation: parser precedence, chained comparisons, ++, slices, ellipsis,
comprehensions, unparse round-trips, errors with columns, and no eval ever."""
from __future__ import annotations

import builtins
import textwrap

import pytest

from shapecheck.errors import SpecError
from shapecheck.notation import Cond, compile_expr, parse, Node, NotationError, names_in, unparse
from shapecheck.registry import default_registry, load_files, spec_files, specs_dir
from shapecheck.dims import symbol


def N(kind, value=None, *children):
    return Node(kind, value, tuple(children))


def name(x):
    return N("name", x)


def num(x):
    return N("num", x)


# ---------------------------------------------------------------- precedence

def test_multiplication_binds_tighter_than_addition():
    assert parse("a + b * c") == N("binop", "+", name("a"), N("binop", "*", name("b"), name("c")))
    assert parse("a * b + c") == N("binop", "+", N("binop", "*", name("a"), name("b")), name("c"))


def test_subtraction_is_left_associative():
    assert parse("a - b - c") == N("binop", "-", N("binop", "-", name("a"), name("b")), name("c"))
    assert compile_expr(parse("10 - 4 - 3"))({}) == 3
    assert compile_expr(parse("20 // 3 // 2"))({}) == 3
    assert compile_expr(parse("2 + 3 * 4 - 6 // 4 % 5"))({}) == 2 + 3 * 4 - 6 // 4 % 5


def test_unary_minus():
    assert parse("-a * b") == N("binop", "*", N("unary", "-", name("a")), name("b"))
    assert parse("- -a") == N("unary", "-", N("unary", "-", name("a")))
    assert compile_expr(parse("-2 * 3 + -1"))({}) == -7


def test_parentheses_override():
    assert compile_expr(parse("(1 + 2) * 3"))({}) == 9


def test_concat_binds_looser_than_arithmetic_and_tighter_than_comparison():
    t = parse("u == a ++ b + c")
    assert t.kind == "compare" and t.value == ("==",)
    concat = t.children[1]
    assert concat.kind == "concat"
    assert concat.children[1] == N("binop", "+", name("b"), name("c"))


def test_boolean_precedence():
    assert parse("a or b and c") == N("or", None, name("a"), N("and", None, name("b"), name("c")))
    assert parse("not a and b") == N("and", None, N("not", None, name("a")), name("b"))
    assert parse("not a == b").kind == "not"  # not applies to the comparison


def test_if_else_is_lowest():
    t = parse("a + 1 if a < 0 else a")
    assert t.kind == "ifelse"
    then, cond, other = t.children
    assert then.kind == "binop" and cond.kind == "compare" and other == name("a")
    f = compile_expr(t)
    assert f({"a": -3}) == -2 and f({"a": 4}) == 4


# ---------------------------------------------------------------- comparisons

def test_chained_comparison_means_both():
    t = parse("0 <= x <= s - 1")
    assert t.kind == "compare" and t.value == ("<=", "<=") and len(t.children) == 3
    f = compile_expr(t)
    assert f({"x": 0, "s": 3}) is True
    assert f({"x": 2, "s": 3}) is True
    assert f({"x": 3, "s": 3}) is False
    assert f({"x": -1, "s": 3}) is False   # Python semantics, not (0 <= x) <= s - 1


def test_chained_comparison_symbolic_gives_both_relations():
    v = compile_expr(parse("0 <= x <= s - 1"))({"x": 3, "s": symbol("S")})
    assert isinstance(v, Cond)
    assert v.texts() == ["S >= 4"]


def test_in_and_not_in():
    assert parse("x not in S").value == ("not in",)
    f = compile_expr(parse('r in {"none", "add"}'))
    assert f({"r": "add"}) is True and f({"r": "mul"}) is False
    g = compile_expr(parse('r not in {"none", "add"}'))
    assert g({"r": "mul"}) is True
    assert compile_expr(parse("3 in range(1, 4)"))({}) is True
    assert compile_expr(parse("4 in range(1, 4)"))({}) is False


# ---------------------------------------------------------------- shapes

def test_slices_and_concat_on_shapes():
    env = {"s": (2, 3, 4, 5), "k": 1}
    assert compile_expr(parse("s[:-1]"))(env) == (2, 3, 4)
    assert compile_expr(parse("s[k:]"))(env) == (3, 4, 5)
    assert compile_expr(parse("s[1:3]"))(env) == (3, 4)
    assert compile_expr(parse("s[:]"))(env) == (2, 3, 4, 5)
    assert compile_expr(parse("s[-1]"))(env) == 5
    assert compile_expr(parse("s[:1] ++ s[2:] ++ [7]"))(env) == (2, 4, 5, 7)
    t = parse("s[:-1]").children[1]
    assert t.kind == "slice" and t.children[0] is None


def test_ellipsis_subscript_on_values():
    t = parse("indices[..., j]")
    assert t.kind == "index" and t.children[1].kind == "ellipsis"
    from shapecheck.notation import TensorVal
    from shapecheck.types import parse_type
    idx = TensorVal("indices", parse_type("int64[2,2] = [[1,2],[3,4]]"))
    assert compile_expr(t)({"indices": idx, "j": 1}).tolist() == [2, 4]


def test_comprehension():
    t = parse("all(s[d] <= t[d] for d in range(r) if d != a)")
    assert t.kind == "call" and t.value == "all"
    comp = t.children[0]
    assert comp.kind == "comp" and comp.value == "d"
    assert names_in(t) == {"s", "t", "r", "a"}  # d is bound
    f = compile_expr(t)
    assert f({"s": (5, 9), "t": (5, 3), "r": 2, "a": 1}) is True   # dim 1 is skipped
    assert f({"s": (5, 9), "t": (5, 3), "r": 2, "a": 0}) is False
    assert compile_expr(parse("any(x == 2 for x in [1, 2, 3])"))({}) is True


def test_comprehension_symbolic_collects_conditions():
    v = compile_expr(parse("all(s[d] <= t[d] for d in range(2))"))({"s": (symbol("M"), symbol("K")),
                                                                    "t": (symbol("N"), symbol("C"))})
    assert isinstance(v, Cond) and v.texts() == ["M <= N", "K <= C"]


def test_strings_numbers_bools_lists():
    assert parse('"add"') == N("str", "add")
    assert parse("'add'") == N("str", "add")
    assert parse("42") == num(42)
    assert parse("True").value is True
    assert compile_expr(parse("[1, 2] ++ [3]"))({}) == (1, 2, 3)


# ---------------------------------------------------------------- unparse

ROUND_TRIP = [
    "a + b * c",
    "(a + b) * c",
    "a - (b - c)",
    "-(a + b)",
    "a or b and c",
    "(a or b) and c",
    "not (a and b)",
    "0 <= x <= s - 1",
    'reduction in {"none", "add"}',
    "updates.shape == indices.shape[:-1] ++ data.shape[k:]",
    "all(-data.shape[j] <= indices[..., j] <= data.shape[j] - 1 for j in range(k))",
    "axis + r if axis < 0 else axis",
    "x not in S",
    "(a ++ b)[1:]",
    "rank(axis) <= 1 and prod(axis.shape) == 1",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_unparse_round_trip(text):
    tree = parse(text)
    out = unparse(tree)
    assert parse(out) == tree
    assert unparse(parse(out)) == out


def test_unparse_keeps_needed_parentheses():
    assert unparse(parse("(a + b) * c")) == "(a + b) * c"
    assert unparse(parse("a - (b - c)")) == "a - (b - c)"
    assert unparse(parse("(a or b) and c")) == "(a or b) and c"
    assert unparse(parse("((a))")) == "a"


def test_every_shipped_rule_round_trips():
    reg = default_registry()
    n = 0
    for spec in reg:
        texts = [r.rule for r in spec.constraints + spec.warnings] + [t for t, _ in spec.lets.values()]
        for text in texts:
            tree = parse(text)
            assert parse(unparse(tree)) == tree, text
            n += 1
    assert n > 100


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("text,column,words", [
    ("rank(data) >= ", 14, "expected a value, found end of text"),
    ("a $ b", 2, "unexpected character '$'"),
    ("(a + b", 6, "expected ')'"),
    ("a b", 2, "unexpected 'b' after a complete expression"),
    ("s[]", 2, "expected a value"),
    ("f(x for 1 in y)", 8, "expected a loop variable"),
    ("a.1", 2, "expected a name after '.'"),
    ("s[0](x)", 4, "only named functions can be called"),
    ('x == "abc', 5, "unexpected character"),
    ("a if b", 6, "expected 'else'"),
])
def test_parse_errors_have_columns(text, column, words):
    with pytest.raises(NotationError) as exc:
        parse(text)
    assert words in str(exc.value)
    assert exc.value.column == column


def test_notation_error_is_a_value_error():
    assert issubclass(NotationError, ValueError)


# ---------------------------------------------------------------- no eval

SPEC_TEMPLATE = textwrap.dedent('''\
    op = "EvalProbe"
    domain = "ai.onnx"
    version = 1

    [semantics]
    kind = "scatter_nd"

    [types]
    T = ["float"]

    [[inputs]]
    name = "data"
    type = "T"

    [[outputs]]
    name = "output"
    type = "dtype(data)"
    shape = "data.shape"

    [[constraints]]
    id = "C1"
    rule = {rule}
    message = "probe"
''')


@pytest.mark.parametrize("rule,words", [
    ("'__import__(\"os\")'", "unknown function __import__()"),
    ("'eval(\"1\")'", "unknown function eval()"),
    ("'os.system(\"true\")'", "only named functions can be called"),
    ("'data.__class__ == 1'", "unknown field .__class__"),
    ("'data.foo == 1'", "unknown field .foo"),
    ("'__builtins__ == 1'", "unknown name(s) __builtins__"),
])
def test_code_in_rules_never_runs(tmp_path, rule, words):
    f = tmp_path / "probe.toml"
    f.write_text(SPEC_TEMPLATE.format(rule=rule))
    with pytest.raises(SpecError) as exc:
        load_files([f])
    assert words in str(exc.value)
    assert f"{f}:" in str(exc.value)


def test_loading_and_solving_never_call_eval_or_exec(monkeypatch):
    # importing a module may eval code it generates (namedtuples, dataclasses): the modules first, unguarded
    import numpy  # noqa: F401
    import sympy  # noqa: F401
    import shapecheck.kernels  # noqa: F401
    import shapecheck.solver  # noqa: F401
    calls = []

    def guard(orig):
        def f(source, *a, **k):
            # the import system execs code objects; only source text would be an eval of spec text
            if isinstance(source, (str, bytes)):
                calls.append(source)
            return orig(source, *a, **k)
        return f
    monkeypatch.setattr(builtins, "eval", guard(builtins.eval))
    monkeypatch.setattr(builtins, "exec", guard(builtins.exec))
    specs = load_files(spec_files(specs_dir()))
    assert len(specs) >= len(spec_files(specs_dir()))   # a [family] file holds several specs
    from shapecheck.solver import solve
    for spec in specs:
        for ex in spec.examples:
            solve(spec, ex.inputs, ex.attrs)
        solve(spec, {i.name: (["float[N,C]"] if i.variadic else "float[N,C]") if i.name != "axis" else "int64[]"
                     for i in spec.inputs})
    assert calls == []



def test_an_equal_tree_gets_the_closure_compiled_first_and_a_literal_of_another_type_does_not():
    # specs repeat their trees (an op's versions share constraints): one closure serves them all
    a, b = parse("x.shape[0] + 1 <= y.rank"), parse("x.shape[0] + 1 <= y.rank")
    assert a is not b and compile_expr(a) is compile_expr(b)
    one, one_f = Node("list", None, (Node("num", 1),)), Node("list", None, (Node("num", 1.0),))
    assert one == one_f   # Node's own equality has 1 == 1.0
    f, g = compile_expr(one), compile_expr(one_f)
    assert f is not g
    assert type(f({})[0]) is int and type(g({})[0]) is float


def test_the_versions_of_an_op_share_the_closures_of_the_constraints_they_share():
    reg = default_registry()
    old, new = reg.get("Gather-11"), reg.get("Gather-13")
    shared = {r.expanded for r in old.constraints} & {r.expanded for r in new.constraints}   # lets replaced
    assert shared
    by_text = {r.expanded: r.fn for r in old.constraints}
    assert all(r.fn is by_text[r.expanded] for r in new.constraints if r.expanded in shared)
