"""Shared test machinery: the model corpora, fresh-process reports, the runtime harnesses."""
