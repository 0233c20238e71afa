"""indexalg: an exact, fast algebra for the integer index expressions of ML compilers.

``import indexalg`` imports only the standard library; sympy, z3, torch and triton are
imported inside the functions that use them.
"""

from __future__ import annotations

from indexalg.errors import (
    DivisionByZeroError,
    ExprTypeError,
    IndexAlgError,
    InteropError,
    InvalidOperationError,
    ParseError,
    RangeError,
    RewriteLimitError,
    UnboundSymbolError,
)
from indexalg.evaluate import evaluate
from indexalg.expr import (
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

__version__ = "0.1.0"

__all__ = [
    "Add",
    "And",
    "BoolConst",
    "CeilDiv",
    "CleanDiv",
    "DivisionByZeroError",
    "Eq",
    "Expr",
    "ExprTypeError",
    "FloorDiv",
    "IndexAlgError",
    "Integer",
    "InteropError",
    "InvalidOperationError",
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
