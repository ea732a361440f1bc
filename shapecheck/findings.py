"""Engine-level findings: the ids shapecheck reports that no spec file defines.

Spec constraints (``C7``) and warnings (``W1``) carry their text in the spec files; the
findings below come from the engine itself (an attribute the spec does not declare, an op
the model's opset lacks, conditions that contradict each other, a declaration that
disagrees with inference, a model that cannot be read).  Each is registered once here, with
a title and help text, and every renderer (SARIF rules, JUnit, GitHub titles) reads them
from this table.

>>> ENGINE["A1"].title
'unknown attribute'
>>> engine_id("Scatter+second")    # a model-level contradiction names the nodes it joins
'contradiction'
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineFinding:
    """One engine finding: its id, a short title, help text, and its default severity."""

    id: str
    title: str
    help: str
    level: str = "error"   # error | warning | note


UNKNOWN_ATTRIBUTE = "A1"
ATTRIBUTE_TYPE = "A2"
DEPRECATED = "deprecated"
OPSET = "opset"
CONTRADICTION = "contradiction"
DECLARATION_CONTRADICTS = "declaration-contradicts"
DECLARATION_CONDITION = "declaration-condition"
DECLARATION_REFINES = "declaration-refines"
CONDITION = "condition"
RUNTIME_CHECK = "runtime-check"
UNREADABLE = "unreadable"
OPTIONS = "options"
OUTPUT = "output"
ONNX_INFERENCE = "onnx-inference"
DOMAIN = "domain"
OVERFLOW = "overflow"
CONTROL_FLOW = "control-flow"
FUNCTION_CALL = "function-call"
PINNED = "pinned"
DECLARED_RANGE = "declared-range"
OUTSIDE_DOMAIN = "outside-domain"
SSA, TOPOLOGICAL, DEFINED, TENSOR_DATA, NEGATIVE_DIM = "G1", "G2", "G3", "G4", "G5"
ELEMENT_TYPE, INITIALIZER_INPUT = "G6", "G7"

_ALL = (
    EngineFinding(UNKNOWN_ATTRIBUTE, "unknown attribute",
                  "The node has an attribute its operator version does not declare. Runtimes reject "
                  "it; remove the attribute or use the operator version that introduced it."),
    EngineFinding(ATTRIBUTE_TYPE, "attribute of the wrong type",
                  "An attribute's value does not have the type the operator version declares "
                  "(int, float, string, ints)."),
    EngineFinding(DEPRECATED, "deprecated operator",
                  "The operator is deprecated at the model's opset; onnx.checker and onnxruntime reject "
                  "it. Use its replacement, named in the fix."),
    EngineFinding(OPSET, "operator missing at the model's opset",
                  "The model's opset_import for the node's domain is older than the operator's first "
                  "version. Raise the opset_import or use another operator."),
    EngineFinding(CONTRADICTION, "no input meets the model's conditions",
                  "A condition a node needs never holds for the sizes the model's other conditions allow "
                  "(N == 4 at one node and N == 5 at another; h == floor(h/2) where h >= 1), so no input "
                  "makes the model valid."),
    EngineFinding(DECLARATION_CONTRADICTS, "declaration contradicts inference",
                  "A declared type (graph output, value_info, IR port) has a different element type, "
                  "rank or concrete dim than inference gives. An error for graph outputs, a warning "
                  "for value_info; both fail under --strict.", "warning"),
    EngineFinding(DECLARATION_CONDITION, "declaration holds only under a condition",
                  "A declared dim differs from the inferred one and is equal to it only if a relation "
                  "holds: a declared symbol (M declared, N inferred: the model is valid only if they are "
                  "equal), a note; a graph output declared with a number where inference has a dynamic "
                  "dim (float[batch,7,4] for float[batch,seq,4]: the export's size), a warning.", "note"),
    EngineFinding(DECLARATION_REFINES, "declaration fills in what inference left unknown",
                  "Inference left a dim or rank unknown and the declaration gives it; the declared value "
                  "is used and recorded as an assumption.", "note"),
    EngineFinding(CONDITION, "valid only under a condition",
                  "The model is valid only if a relation between its symbolic dims holds (N == M, "
                  "seq >= 4). shapecheck states it rather than assume it; --strict fails on it.", "note"),
    EngineFinding(PINNED, "a dynamic dim pinned to fixed sizes",
                  "The model's inputs declare a dim dynamic, but the graph runs only at one size of it (or a "
                  "few): a constant fixes it, such as a weight multiplying that axis, a hard-coded reshape "
                  "target or a fixed-length table. onnxruntime fails the model at every other size. Re-export "
                  "with the axis dynamic, or declare the dim static at the size the graph needs."),
    EngineFinding(DECLARED_RANGE, "declared range wider than the graph allows",
                  "The exporter recorded a range for an input dim (torch's range_constraints, from "
                  "Dim(min, max)), but the graph is valid only on part of it: at the sizes left out it "
                  "fails. Narrow the declared range, or change the graph (a larger table, a dynamic axis)."),
    EngineFinding(OUTSIDE_DOMAIN, "sizes outside the input domain",
                  "The model was checked at sizes given for its input dims (--dims), and they are outside "
                  "the input domain it has without them: a relation the domain needs fails there. The "
                  "nodes invalid at those sizes follow from it; the fix is a size inside the domain, or a "
                  "change where the relation comes from (the constants named)."),
    EngineFinding(RUNTIME_CHECK, "checked at run time",
                  "A constraint reads tensor values (index values) that are known only at run time: "
                  "shapecheck did not prove it, the runtime checks it when the model runs.", "note"),
    EngineFinding(ONNX_INFERENCE, "onnx's inference refuses the node",
                  "A node without a spec of its own was refused by onnx's per-node shape inference (its "
                  "message is quoted); onnx.checker and onnxruntime refuse it too."),
    EngineFinding(DOMAIN, "domain not declared",
                  "A node's domain is missing from the model's opset_import, so no runtime can tell which "
                  "version of the operator it is. Add an opset_import entry for the domain."),
    EngineFinding(OVERFLOW, "output dim overflows int64",
                  "A concrete output dim the node computes is larger than 2^63 - 1, the largest dim an ONNX "
                  "model can hold (int64): onnx's inference refuses it and no runtime can allocate it. The "
                  "dim is left unknown, and never written to an annotated model."),
    EngineFinding(CONTROL_FLOW, "subgraph does not fit its node",
                  "A Loop or Scan whose body does not fit the node: more loop state variables than body "
                  "outputs, a body with another number of inputs than the node passes, num_scan_inputs "
                  "missing or out of range. onnx's inference and onnxruntime refuse the model."),
    EngineFinding(FUNCTION_CALL, "call does not fit its function",
                  "A call of a model-local function has more inputs than the function declares, or another "
                  "number of outputs: onnx's inference and onnxruntime refuse it. Its body is not checked."),
    EngineFinding(SSA, "tensor produced twice",
                  "A tensor is produced by more than one node (or is also a graph input or initializer): "
                  "an ONNX graph assigns each tensor once."),
    EngineFinding(TOPOLOGICAL, "node out of order or in a cycle",
                  "A node reads a tensor that only a later node produces (or the nodes form a cycle): "
                  "ONNX graphs are topologically sorted."),
    EngineFinding(DEFINED, "undefined input",
                  "A node reads a tensor that nothing in its scope or an outer scope defines."),
    EngineFinding(TENSOR_DATA, "tensor data does not fit its dims",
                  "An initializer's raw bytes or typed values do not match its dims and element type."),
    EngineFinding(NEGATIVE_DIM, "negative dim",
                  "A declared type has a negative dim_value; it is read as unknown.", "warning"),
    EngineFinding(ELEMENT_TYPE, "tensor without an element type",
                  "A graph input has no type or the element type UNDEFINED (0), or an initializer has the data "
                  "type UNDEFINED: onnxruntime refuses the model (\"Invalid tensor data type 0\", \"Model input "
                  "does not have type information\")."),
    EngineFinding(INITIALIZER_INPUT, "initializer does not match its graph input",
                  "An initializer gives a graph input its default value, but its element type, rank or a "
                  "concrete dim differs from the input's declared type: onnxruntime refuses the model "
                  "(\"Shape of initializer does not match\")."),
    EngineFinding(UNREADABLE, "unreadable model",
                  "The model could not be read or checked: no such file, not a model, truncated, a missing "
                  ".bin, a malformed graph. No node was checked; the run exits with 2."),
    EngineFinding(OPTIONS, "options that do not fit the model",
                  "An option names what the model does not have: --dims a dim that no input of the model "
                  "declares (a misspelt name, or a model whose inputs name their dims otherwise). No node was "
                  "checked; the run exits with 2."),
    EngineFinding(OUTPUT, "an output that cannot be written",
                  "--output names a file that cannot be written: in a folder that does not exist, the model "
                  "itself, or a place where the model's external data would replace a file shapecheck did not "
                  "write. Nothing was written; the run exits with 2."),
)

ENGINE: dict[str, EngineFinding] = {f.id: f for f in _ALL}
# the declaration statuses of ``model.DeclarationReport`` -> their finding ids
DECLARATION = {"contradicts": DECLARATION_CONTRADICTS, "condition": DECLARATION_CONDITION,
               "refines": DECLARATION_REFINES}


def engine_id(constraint: str) -> str:
    """The engine finding of a ``Finding.constraint`` that is not a spec's rule id.

    A model-level contradiction's constraint joins the node names (``first+second``).
    """
    return constraint if constraint in ENGINE else CONTRADICTION


def is_engine(constraint: str) -> bool:
    """True for ids that the engine issues (A1, deprecated, ...), False for a spec's C7 or W1."""
    return constraint in ENGINE


def is_cause(constraint: str) -> bool:
    """True for a model finding that explains the node findings of the same report (sizes given outside
    the input domain): reports show it before them (``causes_first``)."""
    return constraint == OUTSIDE_DOMAIN


def causes_first(violations: list) -> tuple[list, list]:
    """A report's model findings as (those shown before the node findings, those shown after them)."""
    causes = [f for f in violations if is_cause(f.constraint)]
    return causes, [f for f in violations if not is_cause(f.constraint)]


def states_a_rule(constraint: str) -> bool:
    """True when the finding's ``rule`` is a constraint that "does not hold" (not an engine sentence)."""
    return constraint not in (DEPRECATED, UNKNOWN_ATTRIBUTE, ATTRIBUTE_TYPE, PINNED, CONTRADICTION, DECLARED_RANGE,
                              OUTSIDE_DOMAIN)
