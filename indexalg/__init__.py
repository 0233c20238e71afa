"""indexalg: an exact, fast algebra for the integer index expressions of ML compilers.

``import indexalg`` imports only the standard library; sympy, z3, torch and triton are
imported inside the functions that use them.
"""

from __future__ import annotations

from typing import Any

from indexalg.analysis.context import clear_contexts
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
from indexalg.parse import parse
from indexalg.printing import text as _text  # noqa: F401  (installs str() of nodes)
from indexalg.prove import Proof, prove
from indexalg.ranges import Ranges, RangesLike, as_ranges, clear_parsed_bounds

# The function names shadow their (cheap, pure-Python) implementation modules on purpose.
from indexalg.simplify import simplify

__version__ = "0.1.0"


def bounds(e: Expr | str, ranges: RangesLike = None, *, exact: bool = False) -> tuple[Any, Any]:
    """Inclusive ``(lo, hi)`` of ``e`` on ``ranges``: ints, symbolic Exprs over size symbols,
    or None for an unbounded side; ``exact=True`` asks Z3 for the tightest bounds."""
    return Analyzer(ranges).bounds(e, exact=exact)


def clear_caches() -> None:
    """Forget every memo the library keeps between calls (analysis contexts with their
    interval and simplification tables, parsed range bounds).  Results do not change;
    the next calls are cold.  The tables are bounded anyway; this returns their memory now."""

    clear_contexts()
    clear_parsed_bounds()


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
