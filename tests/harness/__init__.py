"""Shared test machinery, one module per job: ``runtime`` (the one runtime harness: a one-node model
in onnxruntime or onnx.reference against ``shapecheck.execute`` and the solver), ``node_cases``
(ONNX's backend node tests, a family's cases and their one check), ``models`` (building small
models), ``corpora`` (the model corpora), ``fresh`` and ``fresh_server`` (reports from fresh
processes), ``wholegraph`` (whole-graph exactness against onnxruntime's runs), ``findings_classes``
(the runtime findings' classes), ``queries`` (odd queries a spec must survive), ``module_map``
(docs/design.md's module map, from the packages' faces)."""
