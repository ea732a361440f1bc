"""The one table of what an op's ONNX node test cases need beyond the common check
(``tests/harness/node_cases.py``: ``check_node_case``), and the cases no family runs, with why.

A quirk is looked up by op, then by family; an op in neither gets ``Quirk()``: values within
1e-4 (1e-2 for 2-byte floats; the kernels compute statistics and sums in float64), the inferred
types checked dim by dim.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Quirk:
    valued: tuple[str, ...] = ()            # inputs the solver is given with their values (a constant's)
    small_ints_valued: bool = False         # ... and every integer input of rank <= 1 (axes, repeats, a shape)
    tol: tuple[float, float] | None = (1e-4, 1e-4)     # (rtol, atol) for floats; None: values exactly
    tol16: tuple[float, float] = (1e-2, 1e-2)          # (rtol, atol) for 2-byte floats
    equal_nan: bool = False
    concrete: Any = False                   # every inferred dim is an int (a bool, or a function of the feeds)
    random: Callable[[dict], bool] | None = None       # values drawn at random (only dtype, shape and range agree)
    values_in: tuple | None = None          # the range of random values
    needs: str | None = None                # a module the kernel needs that shapecheck does not depend on:
    #                                         without it only the solver's types are checked
    through_model: bool = False             # types from checking the case's model (a body walked), not one solve


EXACT = dict(tol=None, concrete=True)
# the inputs that give sizes (starts, a split, K, pads, scales, depth, bounds), as a constant in a graph
CUT = ("starts", "ends", "axes", "steps", "split", "K", "k", "axis")
SIZES = ("pads", "scales", "sizes", "depth", "axes", "roi", "constant_value", "min", "max")
LINALG = dict(tol=(1e-5, 1e-6), tol16=(1e-5, 1e-6), concrete=True)


def _training(feeds: dict) -> bool:
    """Dropout draws its mask when it trains with a ratio above 0."""
    return "training_mode" in feeds and bool(feeds["training_mode"]) and float(feeds.get("ratio", 0.5)) > 0


def _int_range(feeds: dict) -> bool:
    """Range's output is concrete for integer bounds (a float one makes its length a floor of a quotient)."""
    return next(iter(feeds.values())).dtype.kind in "iu"


FAMILIES: dict[str, Quirk] = {
    "elementwise": Quirk(tol=(1e-5, 1e-5), tol16=(1e-3, 1e-3), equal_nan=True, concrete=True),
    "scatter": Quirk(tol=(1e-6, 1e-7), tol16=(1e-6, 1e-7), concrete=True),
    "slicing": Quirk(valued=CUT, **EXACT),
    "layout": Quirk(small_ints_valued=True, tol=None),
    "constant": Quirk(small_ints_valued=True, tol=None),
}

OPS: dict[str, Quirk] = {
    **dict.fromkeys(("MatMul", "Gemm", "Softmax", "LogSoftmax"), Quirk(**LINALG)),
    "Dropout": Quirk(random=_training, **LINALG),
    **dict.fromkeys(("TopK", "ArgMax", "ArgMin", "CumSum", "Trilu", "ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin",
                     "ReduceMean"), Quirk(valued=CUT, **EXACT)),
    "NonZero": Quirk(tol=None),                                    # its count is a fresh dim
    **dict.fromkeys(("Pad", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Einsum", "OneHot", "Clip"),
                    Quirk(valued=SIZES, tol16=(1e-4, 1e-4), concrete=True)),
    **dict.fromkeys(("Concat", "Gather", "GatherElements", "GatherND", "Shape", "Size"), Quirk(concrete=True)),
    **dict.fromkeys(("Expand", "Reshape"), Quirk(valued=("shape",), concrete=True)),
    "Range": Quirk(valued=("start", "limit", "delta"), concrete=_int_range),
    "TensorScatter": Quirk(valued=("write_indices",), concrete=True),
    "Bernoulli": Quirk(random=lambda feeds: True, values_in=(0.0, 1.0), concrete=True),
    **dict.fromkeys(("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"), Quirk(valued=("axes",))),
    "Compress": Quirk(valued=("condition",)),
    "ImageDecoder": Quirk(needs="PIL", tol=None),
    **dict.fromkeys(("DFT", "STFT", "MelWeightMatrix", "HannWindow", "HammingWindow", "BlackmanWindow", "AffineGrid"),
                    Quirk(valued=("dft_length", "axis", "frame_step", "frame_length", "size", "num_mel_bins",
                                  "dft_length", "sample_rate"), tol=(1e-4, 1e-4), concrete=True)),
    "SequenceMap": Quirk(through_model=True),                      # its outputs are its body's
    # ops whose family quirk is not theirs: values within the common tolerance
    **dict.fromkeys(("ReverseSequence", "EyeLike"), Quirk()),
}

# a case whose expected values are an erratum: onnxruntime's are compared instead (and must differ)
ORT_INSTEAD = {
    "test_maxunpool_export_with_output_shape": "onnxruntime indexes the output_shape tensor; the test "
                                               "indexes the default output and copies it (spec note, CP8)",
}


def quirk_of(op: str, family: str) -> Quirk:
    """The quirk of ``op``'s cases: its own, its family's, or none."""
    return OPS.get(op) or FAMILIES.get(family) or Quirk()


def _later(version: str, what: str) -> str:
    return f"{version} adds {what}, which no spec of the op takes yet"


# case name -> why no family runs it through infer and execute
SKIP: dict[str, str] = {
}
