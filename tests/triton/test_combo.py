"""indexalg_triton.combo: foreach-style pointwise kernels of different sizes fused into one
launch, each part with its own sizes and masks, verified in the interpreter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from indexalg.errors import InvalidOperationError
from indexalg_triton.combo import combine, foreach_add_spec, launch_combo
from indexalg_triton.runtime import device

pytestmark = pytest.mark.skipif(device() != "cpu", reason="interpreter tests (a GPU is present)")


@dataclass(frozen=True)
class Case:
    name: str
    shapes: tuple[tuple[int, ...], ...]
    xblock: int | None
    programs: int  # the combo grid: sum of ceil(numel / XBLOCK)


CASES = [
    Case("one part", ((7,),), None, 1),
    Case("sizes around the block", ((127,), (128,), (129,), (1,)), 128, 1 + 1 + 2 + 1),
    Case("2-D and 3-D parts", ((5, 7), (3, 4, 5), (300,)), None, 3),
    Case("many small", tuple((n,) for n in range(1, 21)), 16, sum(-(-n // 16) for n in range(1, 21))),
]


def _inputs(shapes: tuple[tuple[int, ...], ...]) -> list[dict[str, Any]]:
    import torch

    return [{"a": torch.randn(s), "b": torch.randn(s), "out": torch.full(s, float("nan"))}
            for s in shapes]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_combo_matches_foreach_add(case: Case) -> None:
    import torch

    specs = [foreach_add_spec(f"fe{i}", s, alpha=0.5) for i, s in enumerate(case.shapes)]
    combo = combine(specs, name="combo_test", xblock=case.xblock)
    assert combo.grid == case.programs
    ts = _inputs(case.shapes)
    launch_combo(combo, ts)
    refs = torch._foreach_add([t["a"] for t in ts], [t["b"] for t in ts], alpha=0.5)
    for t, r in zip(ts, refs):
        assert torch.allclose(t["out"], r, rtol=1e-6, atol=0), "a part differs or is unwritten"


def test_each_part_has_its_own_ranges_and_masks() -> None:
    specs = [foreach_add_spec("fa", (100,)), foreach_add_spec("fb", (256,))]
    combo = combine(specs, name="combo_masks", xblock=128)
    p0, p1 = (p.source.body for p in combo.parts)
    assert "xnumel = 100" in p0 and "xmask = xindex < xnumel" in p0
    assert "xnumel = 256" in p1 and "xmask" not in p1  # 256 is a multiple of 128
    assert [(p.start, p.end) for p in combo.parts] == [(0, 1), (1, 3)]
    assert "    if pid < 1:" in combo.source
    assert "    if (pid >= 1) & (pid < 3):" in combo.source
    assert combo.arg_names == ("p0_a", "p0_b", "p0_out", "p1_a", "p1_b", "p1_out")


def test_one_launch_instead_of_many() -> None:
    """The launch count: 1 for the combo against one per tensor."""
    from indexalg_triton import runtime

    calls: list[str] = []
    real = runtime.run_kernel

    def counting(name: str, *args: Any) -> None:
        calls.append(name)
        real(name, *args)

    shapes = tuple((n,) for n in (3, 9, 17, 33))
    combo = combine([foreach_add_spec(f"c{i}", s) for i, s in enumerate(shapes)], name="cnt")
    runtime.run_kernel = counting  # type: ignore[assignment]
    try:
        launch_combo(combo, _inputs(shapes))
    finally:
        runtime.run_kernel = real  # type: ignore[assignment]
    assert calls == ["cnt"]


def test_bad_input() -> None:
    from indexalg_triton.workloads import get

    with pytest.raises(InvalidOperationError, match="at least one"):
        combine([])
    with pytest.raises(InvalidOperationError, match="pointwise kernels only"):
        combine([get("row_sum").spec("small")])
    combo = combine([foreach_add_spec("x", (4,))], name="bad_args")
    with pytest.raises(InvalidOperationError, match="1 parts, got 2"):
        launch_combo(combo, _inputs(((4,), (4,))))
    with pytest.raises(InvalidOperationError, match="no tensor for 'out'"):
        launch_combo(combo, [{"a": 1, "b": 2}])
