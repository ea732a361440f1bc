#!/usr/bin/env python3
"""Thin entry point, the same as the ``shapecheck`` console script."""
from shapecheck.cli import entry

if __name__ == "__main__":
    entry()
