"""CANONICAL: one spelling per meaning.  Positive-modulus remainders become
ModularIndexing (Inductor's canonical form), trivial divisors disappear, CleanDiv is read as
the floor division it evaluates to."""

from __future__ import annotations

from indexalg.expr import CeilDiv, CleanDiv, FloorDiv, Mod, ModularIndexing
from indexalg.rules.base import Rule, RuleSet, pos, wilds

x, y, d, m = wilds("x y d m")

CANONICAL = RuleSet(
    "CANONICAL",
    [
        Rule("floordiv_by_one", FloorDiv(x, 1), x),
        Rule("floordiv_by_minus_one", FloorDiv(x, -1), -x),
        Rule("ceildiv_by_one", CeilDiv(x, 1), x),
        Rule("ceildiv_by_minus_one", CeilDiv(x, -1), -x),
        # CleanDiv evaluates as floor division; its divisibility assertion is only used
        # where proven, and floor division's own rules prove it where it holds.
        Rule("cleandiv_as_floordiv", CleanDiv(x, y), FloorDiv(x, y)),
        Rule("mod_by_one", Mod(x, 1), 0),
        Rule("mod_by_minus_one", Mod(x, -1), 0),
        # x % y == (x // 1) % y for y >= 1: one form for positive moduli.
        Rule("mod_as_modular_indexing", Mod(x, y), ModularIndexing(x, 1, y), when=pos(y)),
        Rule("modular_indexing_modulus_one", ModularIndexing(x, d, 1), 0),
        # (x // y) // d == x // (y*d) for y > 0, d >= 1.
        Rule(
            "modular_indexing_of_floordiv",
            ModularIndexing(FloorDiv(x, y), d, m),
            ModularIndexing(x, y * d, m),
            when=pos(y),
        ),
    ],
)
