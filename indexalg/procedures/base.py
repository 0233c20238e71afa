"""What a named procedure is: a transformation that is not a single rewrite."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from indexalg.analysis.context import Context
from indexalg.expr import Expr

__all__ = ["Procedure"]


@dataclass(frozen=True)
class Procedure:
    """A named transformation applied to nodes of the given classes."""

    name: str
    applies_to: tuple[type[Expr], ...]
    fn: Callable[[Expr, Context], Expr | None]
    doc: str = ""
