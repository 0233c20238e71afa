"""Range analysis: numeric and symbolic interval bounds, congruences, claim decisions."""

from __future__ import annotations

from indexalg.analysis.bounds import bounds
from indexalg.analysis.congruence import congruence
from indexalg.analysis.context import Context, context_for
from indexalg.analysis.decide import decide, decide_in

__all__ = ["bounds", "congruence", "decide", "decide_in", "Context", "context_for"]
