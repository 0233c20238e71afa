"""The rule tables.  Rule sets are named values that compose: ``CANONICAL + DIVMOD``.

``ALL`` is the default set of :func:`indexalg.simplify`; every rule in it is proven sound
by ``indexalg verify-rules`` in CI.
"""

from __future__ import annotations

from indexalg.rules.base import (
    Rule,
    RuleSet,
    congruent,
    consts,
    divides,
    le,
    lt,
    ne,
    nonneg,
    pos,
    wilds,
)
from indexalg.rules.canonical import CANONICAL
from indexalg.rules.claims import CLAIMS
from indexalg.rules.divmod import DIVMOD
from indexalg.rules.range_conditions import RANGES

ALL = CANONICAL + DIVMOD + RANGES + CLAIMS

__all__ = [
    "ALL",
    "CANONICAL",
    "CLAIMS",
    "DIVMOD",
    "RANGES",
    "Rule",
    "RuleSet",
    "congruent",
    "consts",
    "divides",
    "le",
    "lt",
    "ne",
    "nonneg",
    "pos",
    "wilds",
]
