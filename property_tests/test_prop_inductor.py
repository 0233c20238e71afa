"""PyTorch Inductor's ``simplify_with_ranges`` as a differential oracle.

Both simplifiers run on the same expression and ranges (Inductor's ``0 <= v < size`` form);
both results are evaluated at the same in-range points.  indexalg must be right everywhere;
Inductor's wrong answers are its own bugs, counted (``--hypothesis-show-statistics``) and
not failures here.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given
from prop_support import examples

from indexalg.expr import Expr
from indexalg.simplify import simplify
from indexalg.testing.fuzz import expr_cases
from indexalg.testing.oracles import compare_with_inductor

pytest.importorskip("torch")

Case = tuple[Expr, dict[str, Any], list[dict[str, int]]]


@examples(40)
@given(expr_cases(sizes=("s0",), max_leaves=8))
def test_indexalg_is_right_where_inductor_is_compared(case: Case) -> None:
    e, r, points = case
    report = compare_with_inductor(e, simplify(e, r), r, points)
    assert not report.ours_wrong, (str(e), r, report.ours_wrong[:3])
    if report.inductor is None:
        event(f"inductor not compared: {report.reason.split(':')[0]}")
    elif report.inductor_wrong:
        event("inductor wrong")
    else:
        event("inductor right")


def test_inductor_oracle_sees_inductor_known_fault() -> None:
    # ANCHORS.md: Inductor folds FloorDiv(FloorDiv(n, 2), -3) to n // -6, wrong at n = 7.
    from indexalg.parse import parse

    e = parse("FloorDiv(FloorDiv(n, 2), -3)")
    r = {"n": 16}
    points = [{"n": v} for v in range(16)]
    report = compare_with_inductor(e, simplify(e, r), r, points)
    assert report.inductor is not None, report.reason
    assert not report.ours_wrong
    assert {"n": 7} in report.inductor_wrong
