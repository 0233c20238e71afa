"""The rule format: rewrite rules as data.

A :class:`Rule` is ``Rule(name, lhs, rhs, when=...)``.  ``lhs`` and ``rhs`` are ordinary
expressions over pattern variables: :func:`wilds` match any integer expression, :func:`consts`
match only integer literals.  Arithmetic on constants in ``rhs`` (``c1*c2``, ``c1 // c2``)
folds when the rule fires, because constructors fold literals.

``when`` is a claim in a small closed language, built from these and nothing else:

* comparisons of pattern expressions (``c1 > 0``, ``lt(x, c1)``, ``nonneg(x)``, ``pos(c)``),
* ``divides(a, b)`` (a ≠ 0 and b % a == 0),
* ``congruent(x, r, m)`` (x % m == r),
* ``And`` / ``Or`` / ``Not`` of those (``&``, ``|``, ``~``).

The rewrite engine decides a ``when`` claim after substitution with literal folding, the
interval analysis and the congruence analysis under the caller's ranges; it fires a rule only
when the claim is *proven* true.  The Z3 verifier reads the same rule: it proves that for
all integer values of the pattern variables, ``when`` and ``lhs`` being defined imply that
``rhs`` is defined and equal to ``lhs``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator

from indexalg.errors import RuleError
from indexalg.expr import (
    And,
    Eq,
    Expr,
    Le,
    Lt,
    Mod,
    Ne,
    Wild,
    as_expr,
    true,
    wild,
)

__all__ = [
    "Rule",
    "RuleSet",
    "wilds",
    "consts",
    "divides",
    "nonneg",
    "pos",
    "lt",
    "le",
    "ne",
    "congruent",
    "pattern_vars",
]


def wilds(names: str) -> tuple[Expr, ...]:
    """Pattern variables that match any integer expression: ``x, y = wilds("x y")``."""
    return tuple(wild(n) for n in names.replace(",", " ").split())


def consts(names: str) -> tuple[Expr, ...]:
    """Pattern variables that match integer literals only: ``c1, c2 = consts("c1 c2")``."""
    return tuple(wild(n, const=True) for n in names.replace(",", " ").split())


# --- the condition language ---------------------------------------------------------------


def divides(a: Expr | int, b: Expr | int) -> Expr:
    """``a | b``: a ≠ 0 and b is a multiple of a."""
    return And.make(Ne.make(a, 0), Eq.make(Mod.make(b, a), 0))


def nonneg(x: Expr | int) -> Expr:
    """``0 <= x``."""
    return Le.make(0, x)


def pos(x: Expr | int) -> Expr:
    """``0 < x``."""
    return Lt.make(0, x)


def lt(a: Expr | int, b: Expr | int) -> Expr:
    """``a < b``."""
    return Lt.make(a, b)


def le(a: Expr | int, b: Expr | int) -> Expr:
    """``a <= b``."""
    return Le.make(a, b)


def ne(a: Expr | int, b: Expr | int) -> Expr:
    """``a != b``."""
    return Ne.make(a, b)


def congruent(x: Expr | int, r: Expr | int, m: Expr | int) -> Expr:
    """``x % m == r`` (with m ≠ 0)."""
    return And.make(Ne.make(m, 0), Eq.make(Mod.make(x, m), r))


def pattern_vars(e: Expr) -> tuple[Expr, ...]:
    """The pattern variables of ``e``, in name order."""
    found = {n for n in e.walk() if type(n) is Wild}
    return tuple(sorted(found, key=lambda w: w.payload))


class Rule:
    """``lhs -> rhs`` wherever ``when`` is proven; ``origin`` is where it was defined."""

    __slots__ = ("name", "lhs", "rhs", "when", "origin")

    def __init__(
        self,
        name: str,
        lhs: Expr,
        rhs: Expr | int,
        when: Expr = true,
        origin: str = "",
    ) -> None:
        self.name = name
        self.lhs: Expr = as_expr(lhs)
        self.rhs: Expr = as_expr(rhs)
        self.when: Expr = when
        if not isinstance(when, Expr) or not when.is_bool:
            raise RuleError(f"rule {name}: `when` must be a claim, got {when}")
        if self.lhs.is_bool != self.rhs.is_bool:
            raise RuleError(f"rule {name}: lhs and rhs must be of the same kind")
        lhs_vars = set(pattern_vars(self.lhs))
        extra = [str(v) for v in pattern_vars(self.rhs) if v not in lhs_vars]
        extra += [str(v) for v in pattern_vars(when) if v not in lhs_vars]
        if extra:
            raise RuleError(
                f"rule {name}: pattern variables {', '.join(sorted(set(extra)))} "
                "appear in rhs/when but not in lhs"
            )
        if not origin:
            caller = inspect.currentframe()
            caller = caller.f_back if caller is not None else None
            if caller is not None:
                fname = caller.f_code.co_filename
                idx = fname.rfind("indexalg/")
                short = fname[idx:] if idx >= 0 else fname
                origin = f"{short}:{caller.f_lineno}"
        self.origin = origin

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, {self.lhs}, {self.rhs}, when={self.when})"

    def __str__(self) -> str:
        cond = "" if self.when is true else f"  if {self.when}"
        return f"{self.name}: {self.lhs} -> {self.rhs}{cond}"


class RuleSet:
    """A named, ordered collection of rules; ``A + B`` composes sets."""

    __slots__ = ("name", "rules")

    def __init__(self, name: str, rules: Iterable[Rule]) -> None:
        self.name = name
        self.rules: tuple[Rule, ...] = tuple(rules)
        seen: set[str] = set()
        for r in self.rules:
            if r.name in seen:
                raise RuleError(f"rule set {name}: duplicate rule name {r.name!r}")
            seen.add(r.name)

    def __add__(self, other: RuleSet) -> RuleSet:
        return RuleSet(f"{self.name} + {other.name}", self.rules + other.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def __repr__(self) -> str:
        return f"RuleSet({self.name!r}, {len(self.rules)} rules)"
