"""Shared helpers of the property suite (not a test module)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import settings

F = TypeVar("F", bound=Callable[..., Any])

#: ``max_examples`` of the active profile relative to the ``ci`` profile's 60.
SCALE = max(settings().max_examples / 60, 0.1)


def examples(n: int) -> Callable[[F], F]:
    """``@examples(n)``: n examples under the ci profile, scaled with the active profile."""
    return settings(max_examples=max(1, round(n * SCALE)))
