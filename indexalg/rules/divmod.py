"""DIVMOD: nested divisions and remainders fold into one.

Each rule's math is in its comment; divisors come from the lhs, so definedness of the lhs
gives non-zero divisors and ModularIndexing's d, m >= 1.
"""

from __future__ import annotations

from indexalg.expr import CeilDiv, FloorDiv, Mod, ModularIndexing
from indexalg.rules.base import Rule, RuleSet, divides, le, ne, pos, wilds

x, y, z, d, m, d2, m2 = wilds("x y z d m d2 m2")

DIVMOD = RuleSet(
    "DIVMOD",
    [
        # x != 0 wherever the lhs is defined
        Rule("floordiv_self", FloorDiv(x, x), 1),
        Rule("mod_self", Mod(x, x), 0),
        # x >= 1 wherever the lhs is defined: (x // 1) mod x == 0
        Rule("modular_indexing_self", ModularIndexing(x, 1, x), 0),
        # floor(floor(x/y)/z) == floor(x/(y*z)) for any y != 0 when z > 0
        # (not for z < 0: Inductor's FloorDiv(FloorDiv(n, 2), -3) -> n // -6 is wrong at n = 7).
        Rule(
            "floordiv_of_floordiv",
            FloorDiv(FloorDiv(x, y), z),
            FloorDiv(x, y * z),
            when=pos(z),
        ),
        # ceil(ceil(x/y)/z) == ceil(x/(y*z)) for any y != 0 when z > 0: the mirror image
        # (ceil(v) == -floor(-v)) of floordiv_of_floordiv.
        Rule(
            "ceildiv_of_ceildiv",
            CeilDiv(CeilDiv(x, y), z),
            CeilDiv(x, y * z),
            when=pos(z),
        ),
        # x mod y ≡ x (mod z) when z | y, and a remainder depends only on the class.
        Rule("mod_of_mod", Mod(Mod(x, y), z), Mod(x, z), when=divides(z, y)),
        # ((x//d) % m // d2) % m2 == (x//(d*d2)) % m2 when d2*m2 | m: the outer digits lie
        # inside the inner ones.  Covers Inductor's ModularIndexing(ModularIndexing(x,1,a),1,b)
        # for any base and divisor.
        Rule(
            "modular_indexing_nested",
            ModularIndexing(ModularIndexing(x, d, m), d2, m2),
            ModularIndexing(x, d * d2, m2),
            when=divides(d2 * m2, m),
        ),
        # ... and when d2 | m with m/d2 <= m2 the outer remainder keeps all of m/d2 digits.
        Rule(
            "modular_indexing_nested_short",
            ModularIndexing(ModularIndexing(x, d, m), d2, m2),
            ModularIndexing(x, d * d2, FloorDiv(m, d2)),
            when=divides(d2, m) & le(FloorDiv(m, d2), m2),
        ),
        # ((x//d) % m) // z == (x//(d*z)) % (m/z) when z > 0 divides m (div-of-mod absorption).
        Rule(
            "floordiv_of_modular_indexing",
            FloorDiv(ModularIndexing(x, d, m), z),
            ModularIndexing(x, d * z, FloorDiv(m, z)),
            when=pos(z) & divides(z, m),
        ),
        # (x//d) mod m == (x mod (d*m)) // d for d, m >= 1: with d > 1 the outer digits read
        # the low d*m of x directly, one division fewer (TVM's x % 63 % 60 // 12 for
        # ModularIndexing(ModularIndexing(x, 3, 21), 4, 5)); after the two rules above.
        Rule(
            "modular_indexing_nested_low",
            ModularIndexing(ModularIndexing(x, d, m), d2, m2),
            ModularIndexing(ModularIndexing(x, 1, d * m), d * d2, m2),
            when=ne(d, 1) & ne(d2, 1),
        ),
        # ... and ((x mod (d*m)) // d) // z == (x mod (d*m)) // (d*z) for z > 0.
        Rule(
            "floordiv_of_modular_indexing_low",
            FloorDiv(ModularIndexing(x, d, m), z),
            FloorDiv(ModularIndexing(x, 1, d * m), d * z),
            when=pos(z) & ne(d, 1),
        ),
    ],
)
