"""Element types, dims and tensor types: parsing and printing in ONNX's text syntax."""
from __future__ import annotations

import numpy as np
import pytest
import sympy

from shapecheck import TensorType, UsageError, parse_type
from shapecheck.types import as_tensor_type, canonical_dtype, numpy_dtype, tensor_type_of
from shapecheck.dims import dim_str, expr_str, is_unknown, parse_dim, symbol, unknown_dim


def test_symbolic_and_concrete_dims():
    t = parse_type("float[N,4]")
    assert t.dtype == "float"
    assert t.rank == 2
    n, four = t.shape
    assert n == symbol("N") and n.is_integer and n.is_nonnegative
    assert type(four) is int and four == 4
    assert str(t) == "float[N,4]"
    assert not t.is_static and parse_type("float[2,4]").is_static


def test_same_symbol_is_one_object():
    a, b = parse_type("float[N]"), parse_type("int64[N,N]")
    assert a.shape[0] is b.shape[0] is b.shape[1]


def test_unknown_dims_are_fresh_and_print_as_question_mark():
    t = parse_type("float[?,?]", "data")
    d0, d1 = t.shape
    assert is_unknown(d0) and is_unknown(d1) and d0 != d1
    assert str(t) == "float[?,?]"
    # their labels name where they stand, for conditions
    assert expr_str(d1) == "data.shape[1]"


def test_unknown_rank_and_unknown_dtype():
    t = parse_type("float")
    assert t.shape is None and t.rank is None and str(t) == "float"
    u = parse_type("?[M,C]")
    assert u.dtype is None and str(u) == "?[M,C]"
    s = parse_type("int64[]")
    assert s.shape == () and s.rank == 0 and str(s) == "int64[]"


@pytest.mark.parametrize("text,printed", [
    ("2*M+1", "2*M+1"),
    ("M + 1", "M+1"),
    ("2 * (M + 1)", "2*M+2"),
    ("N-1", "N-1"),
    ("3*4", "12"),
    ("N//2", "floor(N/2)"),
])
def test_dim_expressions(text, printed):
    d = parse_dim(text)
    assert dim_str(d) == printed


def test_dim_expression_values():
    d = parse_dim("2*M+1")
    assert d == 2 * symbol("M") + 1
    assert d.subs(symbol("M"), 3) == 7
    assert parse_dim("3*4") == 12 and type(parse_dim("3*4")) is int
    assert str(parse_type("float[2*M+1,N]")) == "float[2*M+1,N]"


@pytest.mark.parametrize("name,canon", [
    ("float32", "float"), ("float64", "double"), ("float16", "float16"), ("fp16", "float16"),
    ("half", "float16"), ("bf16", "bfloat16"), ("int64", "int64"), ("i32", "int32"),
    ("u8", "uint8"), ("bool", "bool"), ("boolean", "bool"), ("FLOAT", "float"), ("FP32", "float"),
    ("str", "string"),
])
def test_numpy_and_openvino_names(name, canon):
    assert canonical_dtype(name) == canon
    assert parse_type(f"{name}[N]").dtype == canon


def test_numpy_dtypes_for_every_element_type():
    assert numpy_dtype("float") == np.float32
    assert numpy_dtype("double") == np.float64
    assert numpy_dtype("string") == np.dtype(object)
    assert numpy_dtype("bfloat16").name == "bfloat16"


def test_constants():
    t = parse_type("int64[2,1] = [[0],[3]]")
    assert t.shape == (2, 1) and t.dtype == "int64"
    assert t.value.dtype == np.int64 and t.value.tolist() == [[0], [3]]
    assert str(t) == "int64[2,1] = [[0], [3]]"
    # shape taken from the value when not written
    u = parse_type("int64 = [1, 2, 3]")
    assert u.shape == (3,)
    # a scalar
    s = parse_type("int64[] = 5")
    assert s.shape == () and int(s.value) == 5
    # symbolic dims in a constant's type are replaced by the value's (concrete) shape
    v = parse_type("int64[K,1] = [[0],[1],[2]]")
    assert v.shape == (3, 1)
    f = parse_type("float32[2] = [1.5, 2]")
    assert f.value.dtype == np.float32 and f.dtype == "float"


def test_constant_round_trips_through_str():
    t = parse_type("int32[2,2] = [[1,-2],[3,4]]")
    back = parse_type(str(t))
    assert back.shape == t.shape and back.dtype == t.dtype and (back.value == t.value).all()


def test_large_constants_print_a_summary():
    t = parse_type("int64[20] = " + str(list(range(20))))
    assert str(t) == "int64[20] = <20 values, min 0 max 19>"


@pytest.mark.parametrize("text,words", [
    ("flot[N,4]", "unknown element type 'flot'"),
    ("float[N,4", "expected ELEMTYPE[DIM,...]"),
    ("float[-1]", "dims cannot be negative"),
    ("float[N$]", "bad dimension"),
    ("float[2*]", "ends early"),
    ("float[(N]", "missing ')'"),
    ("float[N M]", "bad dimension"),
    ("int64[2] = [1,", "bad constant value"),
    ("int64[3] = [1, 2]", "the value has shape [2], not ['3']"),
    ("? = [1]", "needs an element type"),
    ("int64[2] = [1, 'a']", "bad constant value"),
    ("", "bad tensor type"),
    ("[2,3]", "bad tensor type"),
])
def test_bad_type_strings(text, words):
    with pytest.raises(UsageError) as exc:
        parse_type(text, "data")
    msg = str(exc.value)
    assert words in msg
    if text:
        assert repr(text) in msg or text in msg


def test_bad_type_names_the_input():
    with pytest.raises(UsageError, match="for updates"):
        parse_type("flot[2]", "updates")


def test_arrays_and_tensor_types():
    arr = np.zeros((2, 3), np.float32)
    t = tensor_type_of(arr)
    assert t.dtype == "float" and t.shape == (2, 3) and t.is_static
    assert as_tensor_type(arr) .shape == (2, 3)
    assert as_tensor_type(t) is t
    assert as_tensor_type(np.array(["a"])).dtype == "string"
    with pytest.raises(UsageError, match="expected a type string"):
        as_tensor_type(3.5, "data")


def test_dim_str():
    assert dim_str(4) == "4"
    assert dim_str(np.int64(4)) == "4"
    assert dim_str(2 * symbol("N")) == "2*N"
    assert dim_str(unknown_dim("x")) == "?"
    assert dim_str(symbol("N") + unknown_dim("x")) == "?"


def test_signature_distinguishes_values():
    a = parse_type("int64[2] = [0, 1]")
    b = parse_type("int64[2] = [0, 2]")
    c = parse_type("int64[2]")
    assert a.signature() != b.signature() != c.signature()
    assert a.signature() == parse_type("int64[2] = [0,1]").signature()
    assert isinstance(TensorType("float", (sympy.Integer(2),)).shape[0], sympy.Integer)


@pytest.mark.parametrize("text", ["(N", "(N+1", "((2)", "N+", "*N", ")"])
def test_bad_dims_raise_usage_errors_not_crashes(text):
    with pytest.raises(UsageError, match="bad dimension"):
        parse_dim(text)
