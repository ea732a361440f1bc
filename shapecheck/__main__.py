"""``python -m shapecheck``: the same entry point as the ``shapecheck`` script."""
import sys

from .cli import main

sys.exit(main())
