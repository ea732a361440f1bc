"""The model check: one forward pass over a frontend's ``ModelGraph``.

* ``forward``: the pass itself (``check_graph``): each node by its spec, control flow, or the
  frontend's per-node inference;
* ``node``: one node's spec, bound inputs, own unknowns and constant folding;
* ``control_flow``: the one place that knows ``If``, ``Loop`` and ``Scan``;
* ``declarations``: declared types compared with inferred ones;
* ``reports``: ``ModelReport``, ``NodeReport``, ``DeclarationReport``;
* ``check``: the entry points (``check_model``, ``annotate``, ``load_graph``) and the light-check policy.
"""
from .check import annotate, check_model, light_check, load_graph, no_gc_pauses
from .forward import check_graph
from .reports import DeclarationReport, ModelReport, NodeReport

__all__ = ["check_model", "annotate", "load_graph", "light_check", "no_gc_pauses", "check_graph", "ModelReport",
           "NodeReport", "DeclarationReport"]
