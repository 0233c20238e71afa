"""Shared helpers of the property suite (not a test module)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, given, settings

from indexalg.expr import Expr
from indexalg.testing.fuzz import expr_cases

F = TypeVar("F", bound=Callable[..., Any])

#: ``max_examples`` of the active profile relative to the ``ci`` profile's 60.
SCALE = max(settings().max_examples / 60, 0.1)


def examples(n: int) -> Callable[[F], F]:
    """``@examples(n)``: n examples under the ci profile, scaled with the active profile."""
    return settings(max_examples=max(1, round(n * SCALE)))


def fixed_cases(count: int) -> list[tuple[Expr, dict[str, object]]]:
    """``count`` generated expressions with ranges, the same on every run (derandomized,
    whatever the active profile)."""
    out: list[tuple[Expr, dict[str, object]]] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(expr_cases())
    def gather(case: tuple[Expr, dict[str, object], object]) -> None:
        e, r, _ = case
        out.append((e, r))

    gather()
    return out[:count]
