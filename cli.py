#!/usr/bin/env python3
"""Thin entry point, the same as the ``shapecheck`` console script."""
import sys

from shapecheck.cli import main

if __name__ == "__main__":
    sys.exit(main())
