"""indexalg: an exact, fast algebra for the integer index expressions of ML compilers.

``import indexalg`` imports only the standard library; sympy, z3, torch and triton are
imported inside the functions that use them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, overload

from indexalg.analyzer import Analyzer
from indexalg.errors import (
    DepthError,
    DivisionByZeroError,
    ExprTypeError,
    IndexAlgError,
    InteropError,
    InvalidOperationError,
    LimitError,
    ParseError,
    RangeError,
    RewriteLimitError,
    UnboundSymbolError,
)
from indexalg.evaluate import evaluate
from indexalg.expr import (
    MAX_DEPTH,
    Add,
    And,
    BoolConst,
    CeilDiv,
    CleanDiv,
    Eq,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Lt,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    Ne,
    Not,
    Or,
    Symbol,
    Where,
    as_expr,
    false,
    symbols,
    true,
)
from indexalg.limits import DEFAULT_RLIMIT
from indexalg.memo import clear_all
from indexalg.parse import parse
from indexalg.printing import text as _text  # noqa: F401  (installs str() of nodes)
from indexalg.procedures import Procedure
from indexalg.prove import TIERS, Proof
from indexalg.ranges import Ranges, RangesLike, as_ranges
from indexalg.rules.base import Rule, RuleSet
from indexalg.simplify import DEFAULT_STEP_LIMIT, SimplifyResult
from indexalg.simplify.entry import expression as _expression
from indexalg.simplify.entry import recorded as _recorded
from indexalg.simplify.entry import run as _run

__version__ = "0.1.0"

# The module-level queries are thin wrappers: simplify over the simplifier's entry point
# (what Analyzer.simplify calls too), the others over a fresh Analyzer (the facade); their
# names shadow their implementation modules on purpose.


@overload
def simplify(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    stats: Literal[False] = False,
    explain: Literal[False] = False,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> Expr: ...


@overload
def simplify(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    stats: bool = False,
    explain: bool = False,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> Expr | SimplifyResult: ...


def simplify(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    stats: bool = False,
    explain: bool = False,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> Expr | SimplifyResult:
    """The simplest form of ``e`` found, equal to ``e`` at every point of ``ranges`` where
    ``e`` is defined (an :class:`Expr`).  ``rules`` replaces the default rule set,
    ``procedures`` the named procedures; :func:`simplify_result` gives the statistics and
    the trace too (``stats=True`` / ``explain=True`` are its older spelling).  A repeated
    call is answered by the simplifier's result memo (read in one place,
    :func:`indexalg.simplify.entry.run`)."""
    # the ranges read once, first (a bad range is reported before a bad e)
    r = ranges if type(ranges) is Ranges else as_ranges(ranges)
    x = e if isinstance(e, Expr) else _expression(e)
    if stats or explain:
        return _recorded(
            _run(
                x, r, None, rules=rules, procedures=procedures, record=True, step_limit=step_limit
            )[1]
        )
    return _run(x, r, None, rules=rules, procedures=procedures, step_limit=step_limit)[0]


def simplify_result(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> SimplifyResult:
    """:func:`simplify` with its record: ``.expr``, the hits (``.stats``) and attempts per
    rule and procedure, and the rewrites in order (``.trace``)."""
    return Analyzer(ranges).simplify_result(
        e, rules=rules, procedures=procedures, step_limit=step_limit
    )


def bounds(e: Expr | str, ranges: RangesLike = None, *, exact: bool = False) -> tuple[Any, Any]:
    """Inclusive ``(lo, hi)`` of ``e`` on ``ranges``: ints, symbolic Exprs over size symbols,
    or None for an unbounded side; ``exact=True`` asks Z3 for the tightest bounds."""
    return Analyzer(ranges).bounds(e, exact=exact)


def prove(
    claim: Expr | str,
    ranges: RangesLike = None,
    *,
    rlimit: int = DEFAULT_RLIMIT,
    tiers: Iterable[str] = TIERS,
) -> Proof:
    """Decide ``claim`` at every point of ``ranges``: a :class:`Proof` whose ``.status`` is
    "proved", "disproved" (with a checked ``.counterexample``), "unknown" or "vacuous" (the
    ranges admit no point).  See :mod:`indexalg.prove` for the tiers."""
    return Analyzer(ranges).prove(claim, rlimit=rlimit, tiers=tiers)


def clear_caches() -> None:
    """Forget every memo the library keeps between calls: every
    :class:`indexalg.memo.Memo` (analysis contexts with their tables, the simplification
    and bounds results, parsed texts, range specs and bounds, ...:
    ``indexalg.memo.registered()`` lists them).  Results do not change; the next calls are
    cold.  The tables are bounded anyway; this returns their memory now."""
    clear_all()


def from_sympy(s: Any) -> Expr:
    """An indexalg expression from a sympy (or torch.utils._sympy) expression."""
    from indexalg.interop.sympy import from_sympy as _from

    return _from(s)


def to_sympy(e: Expr, flavor: str = "sympy", **options: Any) -> Any:
    """A sympy expression: ``flavor="sympy"`` (floor, Mod, Piecewise) or ``"torch"``
    (torch.utils._sympy.functions: FloorDiv, ModularIndexing, PythonMod, ...)."""
    from indexalg.interop.sympy import to_sympy as _to

    return _to(e, flavor, **options)


__all__ = [
    "Analyzer",
    "Proof",
    "Ranges",
    "as_ranges",
    "bounds",
    "clear_caches",
    "from_sympy",
    "prove",
    "simplify",
    "simplify_result",
    "to_sympy",
    "Add",
    "And",
    "BoolConst",
    "CeilDiv",
    "CleanDiv",
    "DepthError",
    "DivisionByZeroError",
    "Eq",
    "Expr",
    "ExprTypeError",
    "FloorDiv",
    "IndexAlgError",
    "Integer",
    "InteropError",
    "InvalidOperationError",
    "LimitError",
    "MAX_DEPTH",
    "Le",
    "Lt",
    "Max",
    "Min",
    "Mod",
    "ModularIndexing",
    "Mul",
    "Ne",
    "Not",
    "Or",
    "ParseError",
    "RangeError",
    "RewriteLimitError",
    "Symbol",
    "UnboundSymbolError",
    "Where",
    "as_expr",
    "evaluate",
    "false",
    "parse",
    "symbols",
    "true",
    "__version__",
]
