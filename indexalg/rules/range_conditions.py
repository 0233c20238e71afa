"""RANGES: rules whose conditions the range analysis proves (intervals, symbolic bounds).

With ``0 <= x < s0`` these turn ``ModularIndexing(x, 1, 2*s0)`` into ``x`` and
``x // (s0 + 1)`` into ``0`` (Inductor misses both), and ``Min(1, CeilDiv(XBLOCK, 64))``
into ``1`` for ``XBLOCK >= 1``.
"""

from __future__ import annotations

from indexalg.expr import CeilDiv, FloorDiv, Max, Min, Mod, ModularIndexing
from indexalg.rules.base import Rule, RuleSet, le, lt, nonneg, pos, wilds

x, y, d, m = wilds("x y d m")

RANGES = RuleSet(
    "RANGES",
    [
        # 0 <= x < y  =>  x mod y == x
        Rule("mod_below_modulus", Mod(x, y), x, when=nonneg(x) & lt(x, y)),
        # 0 <= x < d*m  =>  0 <= x//d < m  =>  (x//d) mod m == x//d
        Rule(
            "modular_indexing_below_modulus",
            ModularIndexing(x, d, m),
            FloorDiv(x, d),
            when=nonneg(x) & lt(x, d * m),
        ),
        # 0 <= x < y  =>  x // y == 0
        Rule("floordiv_below_divisor", FloorDiv(x, y), 0, when=nonneg(x) & lt(x, y)),
        # -y <= x < 0  =>  x // y == -1
        Rule("floordiv_small_negative", FloorDiv(x, y), -1, when=lt(x, 0) & le(-y, x)),
        # 0 < x <= y  =>  ceil(x / y) == 1
        Rule("ceildiv_small", CeilDiv(x, y), 1, when=pos(x) & le(x, y)),
        # -y < x <= 0 with y > 0  =>  -1 < x/y <= 0  =>  ceil(x / y) == 0
        Rule("ceildiv_small_nonpositive", CeilDiv(x, y), 0, when=pos(y) & le(x, 0) & lt(-y, x)),
        # x in {0, 1} and y > 0  =>  ceil(x / y) == x  (TVM's x % 2 for CeilDiv(x % 2, 2))
        Rule("ceildiv_of_bit", CeilDiv(x, y), x, when=pos(y) & nonneg(x) & le(x, 1)),
        Rule("min_of_ordered", Min(x, y), x, when=le(x, y)),
        Rule("max_of_ordered", Max(x, y), y, when=le(x, y)),
    ],
)
