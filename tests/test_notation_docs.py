"""The notation's function reference (docs/notation-functions.md) is generated from the docstrings and current."""
from pathlib import Path

from shapecheck.functions.reference import reference, signature
from shapecheck.functions import FUNCTIONS, LIBRARIES, notation_name

ROOT = Path(__file__).resolve().parent.parent


def test_every_notation_function_has_a_docstring():
    undocumented = sorted(name for name, fn in FUNCTIONS.items() if not (fn.__doc__ or "").strip())
    assert undocumented == [], f"notation functions without a docstring: {undocumented}"


def test_every_library_function_is_in_the_reference():
    text = reference()
    for lib in LIBRARIES:
        for fn in lib.NOTATION:
            assert f"### `{signature(fn)}`" in text, notation_name(fn)
    assert len(FUNCTIONS) == sum(len(lib.NOTATION) for lib in LIBRARIES)   # no name defined twice


def test_function_reference_is_up_to_date():
    path = ROOT / "docs" / "notation-functions.md"
    assert path.exists() and path.read_text(encoding="utf-8") == reference(), \
        "docs/notation-functions.md is out of date; regenerate it with: " \
        "python -m shapecheck.functions.reference > docs/notation-functions.md"
