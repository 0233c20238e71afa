"""The library's resource limits, in one place.

Z3 is always run under a resource limit (``rlimit``: a deterministic count of solver
steps, unlike a wall-clock timeout) and answers "unknown" when it runs out.
"""

from __future__ import annotations

__all__ = ["DEFAULT_RLIMIT", "RULE_RLIMIT"]

#: Z3's resource limit for one prover or bounds query.
DEFAULT_RLIMIT = 2_000_000

#: Z3's resource limit for one rule's verification query (``indexalg verify-rules``):
#: rules are small and many, so each gets less.
RULE_RLIMIT = 1_000_000
