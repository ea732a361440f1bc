"""The notation: the language that specs write rules in, from text to closures over values.

A rule is text (``updates.shape == indices.shape[:-1] ++ data.shape[k:]``), parsed into a tree
and compiled into a closure ``env -> value``; the value kinds it computes with are ints, sympy
dims, shapes, element types, tensors (``TensorVal``), sequences, optionals and maps
(``ContainerVal``), an ``Unknown`` that says why it is not known,
and truth: ``True``, ``False`` or a ``Cond`` (true under relations between dims).

One job per module: ``parser`` (text -> ``Node``), ``syntax`` (walking, substituting and printing
trees), ``compile`` (a tree -> a closure, a table from node kind to compiler), ``analysis`` (what
the solver learns from a rule once), ``operators`` (arithmetic, subscripts, the fields ``.value``,
``.rank``, ``.dtype``), ``compare`` (dims and relations), ``compare_other`` (shapes, arrays, sets,
floats), ``probe`` (witnesses that a relation is open), ``lattice`` (the value kinds: ``Unknown``,
``TensorVal``, ``ContainerVal``, ``NeedInt``, ``EvalError``), ``relations`` (``Rel``, ``AnyOf``, disjunctions made
shorter only where proved), ``logic`` (``Cond`` and the three-valued ``and_``, ``or_``, ``not_``).

The functions a rule calls are not the language's: they are the library's (``shapecheck.functions``),
which fills ``compile.FUNCTIONS``.  Consumers import from this face, never from a module's re-exports.
"""
from .compare import compare_dims, make_rel
from .compile import FIELDS, SPECIAL_FORMS, Fn, compile_expr, fresh_shape
from .lattice import (NO_VALUE, UNKNOWN, ContainerVal, EvalError, NeedInt, TensorVal, Unknown, UnknownDType,
                      UnknownRank, UnknownShape, as_val, lazy, lookup)
from .relations import PYOP, AnyOf, Rel
from .logic import Cond, and_, as_cond, not_, or_
from .operators import arith, value_of
from .parser import parse
from .syntax import Node, NotationError, names_in, substitute, unparse, walk

__all__ = ["parse", "Node", "NotationError", "names_in", "substitute", "unparse", "walk", "compile_expr",
           "fresh_shape", "Fn", "FIELDS", "SPECIAL_FORMS", "Unknown", "UnknownShape", "UnknownRank", "UnknownDType",
           "UNKNOWN", "NO_VALUE", "TensorVal", "ContainerVal", "as_val", "NeedInt", "EvalError", "lookup", "lazy", "Cond", "Rel", "AnyOf", "PYOP",
           "and_", "or_", "not_", "as_cond", "compare_dims", "make_rel", "arith", "value_of"]
