"""Named procedures: transformations that are not single rewrites (STYLE.md rule 6).

Each is a function ``(node, ctx) -> Expr | None`` registered with the node classes it
applies to.  Each is checked by translation validation (Z3 on input and output) in tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from indexalg.analysis.context import Context
from indexalg.expr import Expr

__all__ = ["Procedure", "PROCEDURES"]


@dataclass(frozen=True)
class Procedure:
    """A named transformation applied to nodes of the given classes."""

    name: str
    applies_to: tuple[type[Expr], ...]
    fn: Callable[[Expr, Context], Expr | None]
    doc: str = ""


def _registry() -> tuple[Procedure, ...]:
    from indexalg.procedures.decide import DECIDE_PROCEDURES
    from indexalg.procedures.divsum import DIVSUM_PROCEDURES
    from indexalg.procedures.join import JOIN_PROCEDURES

    return DIVSUM_PROCEDURES + JOIN_PROCEDURES + DECIDE_PROCEDURES


PROCEDURES: tuple[Procedure, ...] = _registry()
