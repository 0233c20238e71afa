"""The library's errors: every failure a user can cause is one of these, with a message
that names what was wrong."""

from __future__ import annotations

__all__ = [
    "IndexAlgError",
    "ExprTypeError",
    "InvalidOperationError",
    "DivisionByZeroError",
    "UnboundSymbolError",
    "ParseError",
    "RangeError",
    "RewriteLimitError",
    "InteropError",
    "RuleError",
    "DepthError",
    "LimitError",
]


class IndexAlgError(Exception):
    """Base class of every error indexalg raises on purpose."""


class ExprTypeError(IndexAlgError, TypeError):
    """An operand of the wrong kind: a boolean where an integer belongs, a float, ..."""


class InvalidOperationError(IndexAlgError, ValueError):
    """An operation that has no value: ModularIndexing with a divisor or modulus < 1, ..."""


class DivisionByZeroError(InvalidOperationError, ZeroDivisionError):
    """A division or remainder by zero."""


class UnboundSymbolError(IndexAlgError, LookupError):
    """Evaluation met a symbol the environment gives no value."""

    def __init__(self, name: str) -> None:
        super().__init__(f"symbol {name!r} has no value in the environment")
        self.name = name


class ParseError(IndexAlgError, ValueError):
    """Text that is not an expression; ``column`` is 1-based."""

    def __init__(self, message: str, text: str, column: int) -> None:
        self.message = message
        self.text = text
        self.column = column
        caret = " " * (column - 1) + "^"
        super().__init__(f"column {column}: {message}\n  {text}\n  {caret}")

    def one_line(self) -> str:
        return f"column {self.column}: {self.message}"


class RangeError(IndexAlgError, ValueError):
    """A malformed or empty range specification."""


class RewriteLimitError(IndexAlgError, RuntimeError):
    """The rewriter exceeded its step limit (a runaway rule set)."""


class InteropError(IndexAlgError, ValueError):
    """An object from another library (sympy, torch, z3) that indexalg cannot represent."""


class RuleError(IndexAlgError, ValueError):
    """A malformed rewrite rule (a pattern variable only on the right, a non-claim condition)."""


class LimitError(IndexAlgError, ValueError):
    """An input beyond one of the library's documented size limits (docs/semantics.md)."""


class DepthError(LimitError):
    """An expression nested deeper than ``indexalg.MAX_DEPTH`` (a leaf has depth 1)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"expression nested deeper than {limit}")
        self.limit = limit
