"""onnx's ``ModelProto``, parsed without importing onnx where this process has not yet.

``import onnx`` imports numpy and onnx's C++ extension, which costs more (0.15 to 0.3 s) than
checking a small model.  Parsing a model needs only onnx's generated protobuf module,
``onnx/onnx_ml_pb2.py``, which imports nothing but protobuf.  ``model_proto()`` loads that
file as the module ``onnx.onnx_ml_pb2``, the name onnx itself gives it, so that an ``import
onnx`` later in the process finds it and uses the same classes: a model parsed here *is* an
``onnx.ModelProto``.  Once onnx is imported, it is onnx's class that is returned.  Only the
CLI parses so (``load_model(..., bare=True)``), in its own process: there, the one trace of
it is that the ``onnx`` package has no ``onnx_ml_pb2`` attribute (``sys.modules`` has the module).

>>> import onnx
>>> model_proto() is onnx.ModelProto
True
"""
from __future__ import annotations

import importlib.util
import os
import sys
from importlib.machinery import PathFinder
from typing import Any

# the extensions onnx.load reads as another format than protobuf (onnx.serialization); a
# file with any other extension is protobuf to onnx.load, and so here
OTHER_FORMATS = frozenset({".txtpb", ".textproto", ".prototxt", ".pbtxt", ".json", ".onnxjson", ".onnxtxt",
                           ".onnxtext"})
_PB2 = "onnx.onnx_ml_pb2"


def model_proto() -> Any:
    """The class ``onnx.ModelProto``, without importing onnx if it is not imported yet."""
    onnx = sys.modules.get("onnx")
    if onnx is not None and hasattr(onnx, "ModelProto"):
        return onnx.ModelProto
    pb2 = sys.modules.get(_PB2) or _load_pb2()
    if pb2 is None:
        import onnx
        return onnx.ModelProto
    return pb2.ModelProto


def is_model_proto(obj: Any) -> bool:
    """``isinstance(obj, onnx.ModelProto)``, answered without importing onnx (before either
    module is imported, nothing is a ModelProto).

    >>> import onnx
    >>> is_model_proto(onnx.ModelProto()), is_model_proto("model.onnx")
    (True, False)
    """
    pb2 = sys.modules.get(_PB2)
    return pb2 is not None and isinstance(obj, pb2.ModelProto)


def _load_pb2() -> Any:
    """onnx's generated protobuf module, loaded from its file under onnx's own name (None when
    the installed onnx has no such file: the caller then imports onnx)."""
    found = PathFinder.find_spec("onnx")   # locates the package without running its __init__
    locations = list(found.submodule_search_locations or []) if found is not None else []
    path = next((os.path.join(d, "onnx_ml_pb2.py") for d in locations
                 if os.path.isfile(os.path.join(d, "onnx_ml_pb2.py"))), None)
    if path is None:
        return None
    spec = importlib.util.spec_from_file_location(_PB2, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[_PB2] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        del sys.modules[_PB2]
        return None
    return module


def is_protobuf_file(path: str | os.PathLike) -> bool:
    """Whether ``onnx.load`` reads this file as protobuf (by its extension, as onnx decides).

    >>> is_protobuf_file("m.onnx"), is_protobuf_file("m.bin"), is_protobuf_file("m.textproto")
    (True, True, False)
    """
    return os.path.splitext(os.fspath(path))[1] not in OTHER_FORMATS


def parse_model(data: bytes) -> Any:
    """A ``ModelProto`` from serialized bytes, as ``onnx.load`` parses them (protobuf's
    ``DecodeError`` when they do not parse, or leave bytes over)."""
    from google.protobuf.message import DecodeError
    model = model_proto()()
    used = model.ParseFromString(data)
    if used is not None and used != len(data):
        raise DecodeError(f"Protobuf decoding consumed too few bytes: {used} out of {len(data)}")
    return model


__all__ = ["model_proto", "is_model_proto", "parse_model", "is_protobuf_file", "OTHER_FORMATS"]
