"""Kept for one release: spec loading moved to ``shapecheck.registry``; import it from there."""
from ..registry import *  # noqa: F401,F403
