"""CLAIMS: negations of comparisons, read as the opposite comparison (integers are totally
ordered, so ``not (a < b)`` is ``b <= a``)."""

from __future__ import annotations

from indexalg.expr import Eq, Le, Lt, Ne, Not
from indexalg.rules.base import Rule, RuleSet, wilds

x, y = wilds("x y")

CLAIMS = RuleSet(
    "CLAIMS",
    [
        # not (x < y)  <=>  y <= x, and the other three
        Rule("not_lt", Not(Lt(x, y)), Le(y, x)),
        Rule("not_le", Not(Le(x, y)), Lt(y, x)),
        Rule("not_eq", Not(Eq(x, y)), Ne(x, y)),
        Rule("not_ne", Not(Ne(x, y)), Eq(x, y)),
    ],
)
