"""The simplifier: ``simplify(e, ranges)`` never changes a value on the ranges.

The package owns the whole of it: the fixpoint driver (:mod:`~indexalg.simplify.driver`),
the rebuilding of a node whose operands changed (:mod:`~indexalg.simplify.rebuild`), and the
entry points with the result memo (:mod:`~indexalg.simplify.entry`: the memo is read in one
place, :func:`~indexalg.simplify.entry.run`).  The rules (``rules/``) and the named
procedures (``procedures/``) are pure functions of an expression and an analysis context.
"""

from __future__ import annotations

from indexalg.simplify.driver import DEFAULT_STEP_LIMIT, Simplifier, SimplifyResult
from indexalg.simplify.entry import MAX_RESULTS, RESULTS, simplify, simplify_in, simplify_result

__all__ = [
    "simplify",
    "simplify_result",
    "simplify_in",
    "SimplifyResult",
    "Simplifier",
    "DEFAULT_STEP_LIMIT",
    "MAX_RESULTS",
    "RESULTS",
]
