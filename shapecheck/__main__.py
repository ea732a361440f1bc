"""``python -m shapecheck``: the same entry point as the ``shapecheck`` script."""
from .cli import entry

entry()
