"""The solver: a query (input types, attributes) + its spec -> a ``Result``.

Every constraint ends as proved, refuted, conditional (with the residual relation in
the user's symbols), unchecked (needs run-time index values) or skipped.  When every dim is
an ``int`` the constraints run on plain integers; sympy is used only where symbols are.

Unknown dims and ranks are *unified* with what the constraints require (``updates``
of unknown rank gets the shape C7 asks for), and a symbol used as a slice bound
(ScatterND's ``k``) is solved from the rank equations when one value fits.

One job per module: ``query`` (inputs, attributes, environment), ``unify`` (bindings),
``solve`` (classifying each rule), ``contradiction`` (conditions that cannot all hold),
``outputs``, ``explain`` (values and fixes of refuted rules), ``cache`` (each query solved once up to
a renaming of its dim symbols).

>>> from shapecheck.registry import default_registry
>>> spec = default_registry().resolve("ScatterND", 18)
>>> r = solve(spec, {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"})
>>> r.status, str(r.outputs["output"])
('valid', 'float[N,C]')
"""
from .contradiction import contradiction_of, equalities
from .outputs import output_slots
from .query import prepare_attrs, prepare_inputs, spec_env
from .solve import solve

__all__ = ["solve", "prepare_inputs", "prepare_attrs", "spec_env", "output_slots", "equalities", "contradiction_of"]
