"""Range analysis: numeric and symbolic interval bounds, congruences, claim decisions.

The modules, bottom to top (each imports only those before it): ``infinity`` (exact
±infinity), ``context`` (ranges, caches, query state), ``witness`` (concrete in-range
points that refute a claim before it is proven), ``interval``, ``symbolic``,
``congruence``, ``decide`` (claims), ``refine`` (narrowing by a condition), ``where``
(registers Where's handlers into the interval and symbolic tables), ``bounds``.
"""

from __future__ import annotations

from indexalg.analysis import where as _where  # noqa: F401  (completes the tables)
from indexalg.analysis.bounds import bounds
from indexalg.analysis.congruence import congruence
from indexalg.analysis.context import Context, context_for
from indexalg.analysis.decide import decide, decide_in

__all__ = ["bounds", "congruence", "decide", "decide_in", "Context", "context_for"]
