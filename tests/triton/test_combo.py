"""indexalg_triton.combo: foreach-style pointwise kernels of different sizes fused into one
launch, each part with its own sizes and masks, verified in the interpreter."""

from __future__ import annotations

import itertools
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
    Case(
        "many small", tuple((n,) for n in range(1, 21)), 16, sum(-(-n // 16) for n in range(1, 21))
    ),
]


def _inputs(shapes: tuple[tuple[int, ...], ...]) -> list[dict[str, Any]]:
    import torch

    return [
        {"a": torch.randn(s), "b": torch.randn(s), "out": torch.full(s, float("nan"))}
        for s in shapes
    ]


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
    assert "    if pid < 1:\n" in combo.source and "    else:\n" in combo.source
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


# --- mixed sizes, 2-D members, program order, the bound launch (issue 14) -------------------


def _tensors_for(specs: list[Any]) -> list[dict[str, Any]]:
    import torch

    gen = torch.Generator().manual_seed(0)
    out = []
    for s in specs:
        d: dict[str, Any] = {}
        for b in s.buffers:
            sizes = [int(x.payload) for x in b.view.sizes]
            strides = [int(x.payload) for x in b.view.strides]
            t = torch.empty_strided(sizes, strides)
            d[b.name] = (
                t.fill_(float("nan")) if b.output else t.copy_(torch.randn(sizes, generator=gen))
            )
        out.append(d)
    return out


def _channels_last_copy_spec(name: str, n: int, c: int, h: int, w: int) -> Any:
    """``out = x.contiguous() * 2`` for a channels_last ``x`` (N, C, H, W)."""
    from indexalg_triton.layout import View
    from indexalg_triton.spec import SpecBuilder

    out_view = View.of([n, c, h, w])
    in_view = View.of([n, c, h, w], [h * w * c, 1, w * c, c])
    b = SpecBuilder(name, loops=[(v, s) for v, s in zip(out_view.loop_names(), (n, c, h, w))])
    b.buffer("x", in_view)
    b.buffer("out", out_view, output=True)
    b.store("out", out_view.index(), b.op("mul", b.load("x", in_view.index()), 2.0))
    return b.build()


def _reference(spec: Any, ts: dict[str, Any]) -> Any:
    if "x" in ts:  # the channels_last copy
        return ts["x"].contiguous() * 2.0
    a = ts["a"].t() if ts["a"].shape != ts["b"].shape or spec.name.startswith("tr") else ts["a"]
    return a + ts["b"] * (0.5 if spec.name.startswith("tr") else 1.0)


MIXED = [(1,), (7,), (3000,), (1000,), (5, 9), (129,), (2, 3, 4), (4097,)]


def test_mixed_sizes_get_their_own_blocks() -> None:
    import torch

    from indexalg_triton.combo import MIN_XBLOCK

    specs = [foreach_add_spec(f"m{i}", s) for i, s in enumerate(MIXED)]
    combo = combine(specs, name="combo_mixed")
    blocks = [dict(p.blocks)["XBLOCK"] for p in combo.parts]
    assert blocks == [MIN_XBLOCK, MIN_XBLOCK, 1024, 1024, 64, 256, MIN_XBLOCK, 1024]
    assert [p.programs for p in combo.parts] == [1, 1, 3, 1, 1, 1, 1, 5]
    # the largest blocks first, then as given; the ranges tile [0, grid)
    assert combo.order == (2, 3, 7, 5, 4, 0, 1, 6)
    ranges = sorted((p.start, p.end) for p in combo.parts)
    assert ranges[0][0] == 0 and ranges[-1][1] == combo.grid == 14
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    ts = _tensors_for(specs)
    launch_combo(combo, ts)
    for s, t in zip(specs, ts):
        assert torch.equal(t["out"], t["a"] + t["b"]), s.name


def test_binary_search_dispatch_reaches_every_part() -> None:
    """13 parts: nested ``if pid < start`` of depth 4, every part's outputs written."""
    import torch

    shapes = [(n,) for n in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377)]
    specs = [foreach_add_spec(f"d{i}", s) for i, s in enumerate(shapes)]
    combo = combine(specs, name="combo_bsearch", max_xblock=64)
    ifs = [line for line in combo.source.splitlines() if line.lstrip().startswith("if pid <")]
    assert len(ifs) == len(specs) - 1
    assert max(len(line) - len(line.lstrip()) for line in ifs) // 4 == 4  # depth ceil(log2 13)
    assert "&" not in "\n".join(ifs)  # one comparison per level, no range tests
    ts = _tensors_for(specs)
    launch_combo(combo, ts)
    for t in ts:
        assert torch.equal(t["out"], t["a"] + t["b"])


def test_two_d_members_keep_their_tiling() -> None:
    """A transpose and a channels_last copy the planner tiles 2-D, beside 1-D members of odd
    sizes: each keeps its (x, y) tiles inside the combo kernel."""
    import torch

    from indexalg_triton.combo import transpose_add_spec

    specs = [
        transpose_add_spec("tr0", 100, 96, alpha=0.5),
        foreach_add_spec("f1", (1,)),
        _channels_last_copy_spec("cl2", 1, 96, 9, 11),
        foreach_add_spec("f3", (333,)),
        transpose_add_spec("tr4", 37, 150, alpha=0.5),
    ]
    combo = combine(specs, name="combo_2d")
    two_d = [i for i, p in enumerate(combo.parts) if "YBLOCK" in dict(p.blocks)]
    assert 0 in two_d and 2 in two_d, [p.source.tiling for p in combo.parts]
    p0 = combo.parts[0]
    assert dict(p0.blocks) == {"XBLOCK": 64, "YBLOCK": 64}
    assert p0.programs == 2 * 2  # 96 / 64 -> 2 x tiles, 100 / 64 -> 2 y tiles
    assert "xoffset = (pid % " in p0.source.body and "yoffset = (pid // " in p0.source.body
    assert f"combo_2d_p0(p0_a, p0_b, p0_out, {p0.start}, 64, 64)" in combo.source
    ts = _tensors_for(specs)
    launch_combo(combo, ts)
    for s, t in zip(specs, ts):
        ref = _reference(s, t)
        assert torch.allclose(t["out"], ref, rtol=1e-6, atol=0), s.name


def test_per_part_configs_and_one_xblock_for_all() -> None:
    import torch

    from indexalg_triton.codegen import Config

    specs = [foreach_add_spec("c0", (300,)), foreach_add_spec("c1", (17,))]
    combo = combine(
        specs,
        name="combo_cfg",
        configs=[Config.of(4, structured=False, flat=True, XBLOCK=64), None],
    )
    assert [dict(p.blocks)["XBLOCK"] for p in combo.parts] == [64, 32]
    same = combine(specs, name="combo_same", xblock=128)
    assert [dict(p.blocks)["XBLOCK"] for p in same.parts] == [128, 128]
    for c in (combo, same):
        ts = _tensors_for(specs)
        launch_combo(c, ts)
        assert all(torch.equal(t["out"], t["a"] + t["b"]) for t in ts)
    with pytest.raises(InvalidOperationError, match="2 specs, 1 configs"):
        combine(specs, configs=[None])


def test_bound_launch_in_the_interpreter() -> None:
    """``bind`` once, call many times: the interpreter has no compiled kernel, so every call
    takes the JIT path (and the outputs are right each time)."""
    import torch

    specs = [foreach_add_spec(f"b{i}", s) for i, s in enumerate([(3,), (70,), (2, 5)])]
    combo = combine(specs, name="combo_bound")
    ts = _tensors_for(specs)
    launch = combo.bind(ts)
    for _ in range(2):
        for t in ts:
            t["out"].fill_(float("nan"))
        launch()
        assert all(torch.equal(t["out"], t["a"] + t["b"]) for t in ts)
    assert not launch.fast
    assert len(launch.args) == 9 and launch.grid == (combo.grid,)


class _FakeCompiled:
    """What Triton's JIT returns on a GPU, as far as the direct launch path reads it."""

    function = "fn-handle"
    packed_metadata = ("meta",)

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def run(self, *args: Any) -> None:
        self.calls.append(args)


@dataclass
class _Param:
    is_constexpr: bool


class _FakeKernel:
    def __init__(self, n: int, constexpr: bool = False) -> None:
        self.params = [_Param(constexpr)] * n
        self.compiled = _FakeCompiled()
        self.jit_calls = 0

    def __getitem__(self, grid: Any) -> Any:
        def launch(*args: Any, **meta: Any) -> _FakeCompiled:
            self.jit_calls += 1
            return self.compiled

        return launch


def _fake_direct_path(monkeypatch: pytest.MonkeyPatch, constexpr: bool = False) -> Any:
    import torch

    from indexalg_triton import runtime
    from indexalg_triton.runtime import bind_kernel

    monkeypatch.setattr(runtime, "_stream_getter", lambda: lambda device: 1234 + device)
    xs = [torch.zeros(4), torch.zeros(8)]
    kernel = _FakeKernel(2, constexpr)
    bound = bind_kernel("fake", kernel, (5,), [("p0_x", xs[0]), ("p1_x", xs[1])], {"num_warps": 4})
    return bound, kernel, xs


def test_bound_launch_takes_the_compiled_launcher(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first (JIT) call, calls go straight to ``CompiledKernel.run`` with the grid,
    the current stream, the handles, no hooks, and the data pointers as ints."""
    from indexalg_triton.debug import debug_printing

    bound, kernel, xs = _fake_direct_path(monkeypatch)
    bound()
    assert kernel.jit_calls == 1 and bound.fast
    bound()
    bound()
    assert kernel.jit_calls == 1
    ptrs = tuple(x.data_ptr() for x in xs)
    # the stream of the tensors' device (-1: these are CPU tensors standing in)
    assert (
        kernel.compiled.calls
        == [(5, 1, 1, 1233, "fn-handle", ("meta",), None, None, None, *ptrs)] * 2
    )
    assert all(type(v) is int for v in kernel.compiled.calls[0][-2:])
    import io

    with debug_printing(stream=io.StringIO()):  # the printer needs the central path
        bound()
    assert kernel.jit_calls == 2 and len(kernel.compiled.calls) == 2


def test_bound_launch_keeps_the_jit_path_for_constexpr_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bound, kernel, _ = _fake_direct_path(monkeypatch, constexpr=True)
    bound()
    bound()
    assert not bound.fast and kernel.jit_calls == 2 and not kernel.compiled.calls


def test_bound_launch_yields_to_launch_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    from triton import knobs

    bound, kernel, _ = _fake_direct_path(monkeypatch)
    bound()
    hook = knobs.runtime.launch_enter_hook
    if hasattr(hook, "add"):
        seen: list[Any] = []
        hook.add(seen.append)
        try:
            bound()
        finally:
            hook.remove(seen.append)
    else:  # pragma: no cover - Triton versions with a plain hook attribute
        monkeypatch.setattr(knobs.runtime, "launch_enter_hook", lambda *a: None)
        bound()
    assert kernel.jit_calls == 2 and not kernel.compiled.calls


def test_launch_combo_takes_the_direct_path_when_the_specialisation_matches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``launch_combo`` per call: after the first (JIT) launch, tensors of the same dtypes
    and pointer alignment go to the compiled launcher with their own pointers; a dtype or
    an alignment the kernel was not compiled for goes through the JIT again."""
    import torch

    from indexalg_triton import runtime

    specs = [foreach_add_spec("q0", (4,)), foreach_add_spec("q1", (8,))]
    combo = combine(specs, name="combo_direct")
    kernel = _FakeKernel(6)
    monkeypatch.setattr(runtime, "compile_source", lambda *a, **k: kernel)
    monkeypatch.setattr(runtime, "_stream_getter", lambda: lambda device: 7)

    def tensors(dtype: Any = torch.float32, offset: int = 0) -> list[dict[str, Any]]:
        return [
            {n: torch.zeros(s + offset, dtype=dtype)[offset:] for n in ("a", "b", "out")}
            for s in (4, 8)
        ]

    first = tensors()
    launch_combo(combo, first)
    assert kernel.jit_calls == 1 and combo._direct and not kernel.compiled.calls
    for ts in (first, tensors()):
        launch_combo(combo, ts)
        ptrs = tuple(t[n].data_ptr() for t in ts for n in ("a", "b", "out"))
        assert kernel.compiled.calls[-1] == (
            combo.grid,
            1,
            1,
            7,
            "fn-handle",
            ("meta",),
            None,
            None,
            None,
            *ptrs,
        )
    assert kernel.jit_calls == 1 and len(kernel.compiled.calls) == 2
    launch_combo(combo, tensors(offset=1))  # pointers 4 bytes past 16-byte alignment
    assert kernel.jit_calls == 2
    launch_combo(combo, tensors(torch.float64))  # another dtype
    assert kernel.jit_calls == 3 and len(kernel.compiled.calls) == 2
    with pytest.raises(InvalidOperationError, match="no tensor for 'out'"):
        launch_combo(combo, [{"a": 1, "b": 2}, {}])


SEED_SCRIPT = r"""
import hashlib
from indexalg_triton.combo import combine, foreach_add_spec, transpose_add_spec
specs = [foreach_add_spec(f"f{i}", s) for i, s in enumerate([(1,), (7,), (3000,), (5, 9), (129,)])]
specs += [transpose_add_spec("t5", 100, 96), transpose_add_spec("t6", 37, 150)]
print(hashlib.sha256(combine(specs, name="seeded").source.encode()).hexdigest())
"""


def test_combo_source_is_identical_across_hash_seeds() -> None:
    import os
    import subprocess
    import sys

    outs = []
    for seed in ("0", "977"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        res = subprocess.run(
            [sys.executable, "-c", SEED_SCRIPT], capture_output=True, text=True, env=env, check=True
        )
        outs.append(res.stdout)
    assert outs[0] == outs[1] and len(outs[0].strip()) == 64
