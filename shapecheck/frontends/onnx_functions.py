"""Model-local functions (``ModelProto.functions``): each call is checked through the function's body.

onnxscript-based exporters write whole blocks (an attention layer, a rotary embedding) as
functions.  A call site is replaced by the body's nodes, with

* the formal inputs and outputs renamed to the call's actual tensors (an omitted optional input
  stays omitted), every other tensor of the body prefixed with the call's name, so that two calls
  never share a tensor and the caller's types flow in and out;
* attribute references (``ref_attr_name``) resolved to the call's attributes, or to the
  function's defaults;
* the body's nodes named ``<call>/<body node>``, at the function's own opsets.

A function that calls itself, directly or not, is refused: ONNX functions cannot recurse.

>>> import onnx
>>> from onnx import helper
>>> fn = helper.make_function("local", "Double", ["x"], ["y"], [helper.make_node("Add", ["x", "x"], ["y"])],
...                           [helper.make_opsetid("", 18)])
>>> call = helper.make_node("Double", ["a"], ["b"], name="d0", domain="local")
>>> [(n.name, list(n.input), list(n.output)) for n in inline(call, fn)]
[('d0/Add_0', ['a', 'a'], ['b'])]
"""
from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..registry import normalize_domain

MAX_DEPTH = 32   # nested calls; deeper is refused rather than unrolled


class Functions:
    """The model's local functions by ``(domain, name)``."""

    def __init__(self, model: Any):
        self.by_key = {(normalize_domain(f.domain), f.name): f for f in model.functions}

    def called(self, node: Any) -> Any:
        """The function ``node`` calls, or None for an operator."""
        return self.by_key.get((normalize_domain(node.domain), node.op_type)) if self.by_key else None

    def opsets(self, fn: Any, model_opsets: dict[str, int]) -> dict[str, int]:
        """The opsets a body's nodes run at: the function's own, else the model's."""
        return {**model_opsets, **{normalize_domain(o.domain): int(o.version) for o in fn.opset_import}}


def inline(call: Any, fn: Any) -> list:
    """Copies of ``fn``'s body nodes, renamed for the call site ``call`` (see the module doc)."""
    import onnx
    prefix = call.name or call.op_type
    names: dict[str, str] = {}
    for formal, actual in zip(fn.input, call.input):
        names[formal] = actual
    for formal in list(fn.input)[len(call.input):]:
        names[formal] = ""
    for formal, actual in zip(fn.output, call.output):
        names[formal] = actual
    attrs = {a.name: a for a in call.attribute}
    defaults = {a.name: a for a in getattr(fn, "attribute_proto", [])}
    out = []
    for k, body in enumerate(fn.node):
        n = onnx.NodeProto()
        n.CopyFrom(body)
        n.name = f"{prefix}/{body.name or f'{body.op_type}_{k}'}"
        _rename_node(n, names, prefix)
        _resolve_refs(n, attrs, defaults)
        out.append(n)
    return out


def _renamed(name: str, names: dict[str, str], prefix: str) -> str:
    if not name:
        return name
    return names[name] if name in names else f"{prefix}/{name}"


def _rename_node(n: Any, names: dict[str, str], prefix: str) -> None:
    n.input[:] = [_renamed(x, names, prefix) for x in n.input]
    n.output[:] = [_renamed(x, names, prefix) for x in n.output]
    for a in n.attribute:
        for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
            _rename_graph(g, names, prefix)


def _rename_graph(g: Any, names: dict[str, str], prefix: str) -> None:
    """Rename every tensor of a subgraph the same way: its own names get the prefix too."""
    for coll in (g.input, g.output, g.value_info):
        for v in coll:
            v.name = _renamed(v.name, names, prefix)
    for t in g.initializer:
        t.name = _renamed(t.name, names, prefix)
    for n in g.node:
        _rename_node(n, names, prefix)


def _resolve_refs(n: Any, attrs: dict, defaults: dict) -> None:
    """Attributes that name one of the function's attributes take the call's value (or the default)."""
    resolved = []
    for a in n.attribute:
        r = type(a)()
        if a.ref_attr_name:
            given = attrs.get(a.ref_attr_name) or defaults.get(a.ref_attr_name)
            if given is None:
                continue   # not given and no default: the attribute is absent, as in a direct call
            r.CopyFrom(given)
            r.name = a.name
        else:
            r.CopyFrom(a)
        resolved.append(r)
    del n.attribute[:]
    n.attribute.extend(resolved)


def call_mismatch(call: Any, fn: Any) -> str | None:
    """Why a call does not fit its function (more inputs than the function declares, another number
    of outputs), or None.  onnx's inference and onnxruntime refuse such a call ("output index 1 is
    out of range; node has 1 outputs"); trailing inputs may be left out.

    >>> from onnx import helper
    >>> fn = helper.make_function("local", "F", ["x"], ["y1", "y2"], [], [helper.make_opsetid("", 18)])
    >>> call_mismatch(helper.make_node("F", ["a"], ["b"], domain="local"), fn)
    'the call has 1 output, the function local:F declares 2'
    """
    return arity_mismatch(len(call.input), len(call.output), len(fn.input), len(fn.output), f"{fn.domain}:{fn.name}")


def arity_mismatch(n_in: int, n_out: int, fn_in: int, fn_out: int, function: str) -> str | None:
    """``call_mismatch`` from the counts: a call with ``n_in`` inputs and ``n_out`` outputs of a function
    (``domain:name``) that declares ``fn_in`` and ``fn_out``."""
    if n_in > fn_in:
        return f"the call has {n_in} inputs, the function {function} declares {fn_in}"
    if n_out != fn_out:
        return f"the call has {n_out} output{'' if n_out == 1 else 's'}, the function {function} declares {fn_out}"
    return None


def check_depth(stack: list, fn: Any) -> None:
    """Refuse a call that recurses or nests deeper than ``MAX_DEPTH``."""
    key = (fn.domain, fn.name)
    if key in stack:
        chain = " -> ".join(f"{d}:{name}" for d, name in [*stack, key])
        raise UsageError(f"model-local function {fn.domain}:{fn.name} calls itself ({chain}); ONNX functions "
                         "cannot recurse")
    if len(stack) >= MAX_DEPTH:
        raise UsageError(f"model-local functions nest deeper than {MAX_DEPTH} calls at {fn.domain}:{fn.name}")
