"""The library's resource limits, in one place.

Z3 is always run under a resource limit (``rlimit``: a deterministic count of solver
steps, unlike a wall-clock timeout) and answers "unknown" when it runs out.

The simplifier's rewrite steps are limited too, so that a rule set that does not terminate
raises :class:`~indexalg.errors.RewriteLimitError` instead of running forever.  By default the
limit grows with the input: :func:`step_limit_for` (a valid 10,000-term sum needs about one
step per term).  ``simplify(..., step_limit=N)`` (``indexalg simplify --step-limit N``) sets a
fixed limit instead.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_RLIMIT",
    "RULE_RLIMIT",
    "STEP_LIMIT_BASE",
    "STEP_LIMIT_PER_NODE",
    "step_limit_for",
]

#: Z3's resource limit for one prover or bounds query.
DEFAULT_RLIMIT = 2_000_000

#: Z3's resource limit for one rule's verification query (``indexalg verify-rules``):
#: rules are small and many, so each gets less.
RULE_RLIMIT = 1_000_000

#: The default rewrite-step limit of one simplification, before the allowance per node.
STEP_LIMIT_BASE = 10_000

#: The default limit's allowance per distinct node of the input.
STEP_LIMIT_PER_NODE = 10


def step_limit_for(nodes: int) -> int:
    """The default rewrite-step limit for an input of ``nodes`` distinct nodes."""
    return STEP_LIMIT_BASE + STEP_LIMIT_PER_NODE * nodes
