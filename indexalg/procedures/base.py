"""What a named procedure is: a transformation that is not a single rewrite."""

from __future__ import annotations

import sys
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


def _module_doc(module: str) -> str:
    """The docstring of the module named ``module`` ("" where it has none: the modules of the
    optional compiled build keep no docstrings, and a module compiled with mypyc cannot read
    its own ``__doc__``)."""
    m = sys.modules.get(module)
    return (m.__doc__ if m is not None else None) or ""
