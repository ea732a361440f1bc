"""Every model of the test corpora, and copies of them with their input dims bound to sizes.

>>> any(p.endswith("kv_cache.onnx") for p in corpus_models())
True
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def corpus_models() -> list[str]:
    """The shipped examples and every model under ``tests/fixtures`` (ONNX files, and OpenVINO IR
    with its weights beside it), found by walking: a new corpus is included without a list."""
    found = sorted(FIXTURES.rglob("*.onnx")) + sorted(p for p in FIXTURES.rglob("*.xml") if p.with_suffix(".bin").exists())
    found += sorted((ROOT / "examples").glob("*.onnx"))
    return [str(p) for p in found]


def input_dim_names(model) -> list[str]:
    """The dim names a model's graph inputs declare, in order of first use."""
    names: list[str] = []
    for i in model.graph.input:
        if i.type.HasField("tensor_type"):
            for d in i.type.tensor_type.shape.dim:
                if d.dim_param and d.dim_param not in names:
                    names.append(d.dim_param)
    return names


def bound_copy(path: str, out_dir: Path, sizes: dict[str, int] | None = None) -> str | None:
    """A copy of an ONNX model whose input dim names are bound to sizes (``sizes``, else 2, 3, 4, 2,
    ... in order of first use); None when the model has no named input dim or is not ONNX."""
    if not path.endswith(".onnx"):
        return None
    import onnx
    m = onnx.load(path, load_external_data=False)
    names = input_dim_names(m)
    if not names:
        return None
    sizes = sizes or {n: 2 + k % 3 for k, n in enumerate(names)}
    for i in m.graph.input:
        if i.type.HasField("tensor_type"):
            for d in i.type.tensor_type.shape.dim:
                if d.dim_param in sizes:
                    d.dim_value = sizes[d.dim_param]
    out = out_dir / f"{Path(path).parent.name}__{Path(path).stem}__bound.onnx"
    onnx.save(m, str(out))
    return str(out)
