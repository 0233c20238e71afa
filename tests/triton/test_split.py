"""Split reductions (two kernels over a workspace), the reduction model that chooses them,
the cache hints of loads, and the host-side descriptor kernels of bench.features_gpu, in
Triton's interpreter."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")
torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from indexalg.errors import InvalidOperationError  # noqa: E402
from indexalg_triton import from_torch  # noqa: E402
from indexalg_triton.codegen import Config, default_configs, generate  # noqa: E402
from indexalg_triton.codegen.split import split_specs, splittable  # noqa: E402
from indexalg_triton.layout import View  # noqa: E402
from indexalg_triton.planner import SM_COUNT, plan_reduction, split_factor  # noqa: E402
from indexalg_triton.runtime import verify  # noqa: E402
from indexalg_triton.spec import SpecBuilder  # noqa: E402


def col_mean(x):  # type: ignore[no-untyped-def]
    return x.float().mean(0)


def col_stats(x, w, b):  # type: ignore[no-untyped-def]
    """Two reductions, an outer load before them and one after."""
    return (x * w).amax(0) + (x * w).sum(0) * 0.5 + b


def row_sum(x):  # type: ignore[no-untyped-def]
    return x.sum(1)


def softmax_cols(x):  # type: ignore[no-untyped-def]
    return torch.softmax(x, 0)


def _gen() -> object:
    return torch.Generator().manual_seed(5)


CASES = [
    ("col_mean", col_mean, lambda: [torch.randn(48, 9, generator=_gen()).bfloat16()]),
    (
        "col_stats",
        col_stats,
        lambda: [
            torch.randn(64, 7, generator=_gen()),
            torch.randn(7, generator=_gen()),
            torch.randn(7, generator=_gen()),
        ],
    ),
    ("row_sum", row_sum, lambda: [torch.randn(3, 256, generator=_gen())]),
]


@pytest.mark.parametrize("name,fn,make", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize(
    "cfg",
    [
        Config.of(8, XBLOCK=64, RBLOCK=64, SPLIT=2),
        Config.of(4, XBLOCK=4, RBLOCK=4, SPLIT=4),
        Config.of(4, XBLOCK=8, RBLOCK=64, SPLIT=8),
    ],
    ids=lambda c: c.describe(),
)
def test_split_matches_eager(name: str, fn: object, make: object, cfg: Config) -> None:
    xs = make()  # type: ignore[operator]
    spec = from_torch(fn, *xs, name=name)  # type: ignore[arg-type]
    v = verify(name, fn, xs, spec, cfg)  # type: ignore[arg-type]
    assert v.ok, v.line()


def test_split_source_has_two_kernels_and_a_workspace() -> None:
    x = torch.randn(40, 9).bfloat16()
    spec = from_torch(col_mean, x, name="col_mean")
    src = generate(spec, Config.of(4, XBLOCK=16, RBLOCK=4, SPLIT=4))
    assert [s.kernel_name for s in src.stages] == ["col_mean_partial", "col_mean_combine"]
    assert [(w.name, w.dtype) for w in src.workspaces] == [("ws0", "float32")]
    assert "def col_mean_partial(in0, ws0," in src.source
    assert "def col_mean_combine(ws0, out0," in src.source
    assert src.tiling.startswith("split reduction r=40 into 4 chunks of 10")
    # the partial kernel reads rows s*10 + r0: its loops are (rsplit, x0)
    assert "load in0[9*r0 + 90*rsplit + x0]" in src.stages[0].source


def test_split_refusals() -> None:
    x = torch.randn(40, 9)
    soft = from_torch(softmax_cols, x, name="softmax_cols")
    assert "depends on a reduction" in (splittable(soft) or "")
    b = SpecBuilder("mv", loops=[("x1", 5)], reduction=("r0", 300))
    b.buffer("x", View.of([5, 300]))
    b.buffer("mean", View.of([5]), output=True)
    b.buffer("var", View.of([5]), output=True)
    m, v = b.multi("mean_var", b.load("x", "300*x1 + r0"))
    b.store("mean", "x1", m)
    b.store("var", "x1", v)
    assert splittable(b.build()) == "mean_var tmp1 is not a sum or max"
    ints = from_torch(lambda t: t.sum(0), torch.randint(0, 5, (40, 9)), name="isum")
    assert "not a float reduction" in (splittable(ints) or "")
    mean = from_torch(col_mean, x, name="col_mean")
    with pytest.raises(InvalidOperationError, match="does not divide"):
        generate(mean, Config.of(4, XBLOCK=16, RBLOCK=4, SPLIT=16))
    with pytest.raises(InvalidOperationError, match="softmax_cols cannot be split"):
        generate(soft, Config.of(4, XBLOCK=16, RBLOCK=4, SPLIT=2))
    with pytest.raises(AssertionError):
        split_specs(mean, 3)


def test_reduction_model() -> None:
    # col_mean (16384 x 16384 bf16): 256 programs of 64 columns -> split 8 ways
    p = plan_reduction(16384, 16384, contiguous=False, itemsize=2, splittable=True)
    assert p.configs[0] == (8, {"XBLOCK": 64, "RBLOCK": 128, "SPLIT": 8}), p
    assert "split 8 ways (chunks of 2048)" in p.reason
    # col_sum (32768 columns): 512 programs suffice; not splittable: never split
    assert not any(
        "SPLIT" in b
        for _, b in plan_reduction(
            32768, 8192, contiguous=False, itemsize=4, splittable=True
        ).configs
    )
    assert not any(
        "SPLIT" in b
        for _, b in plan_reduction(
            100, 16384, contiguous=False, itemsize=4, splittable=False
        ).configs
    )
    # few long rows: 64 rows of 131072 -> split; 32768 rows of 1024 stay persistent
    rows = plan_reduction(64, 131072, contiguous=True, itemsize=4, splittable=True)
    assert rows.configs[0][1].get("SPLIT", 1) > 1 and "split" in rows.reason
    short = plan_reduction(32768, 1024, contiguous=True, itemsize=4, splittable=True)
    assert short.configs[0] == (8, {"XBLOCK": 1, "RBLOCK": 1024})
    assert (1, {"XBLOCK": 1, "RBLOCK": 1024}) in short.configs  # one warp per 32 elements
    # a persistent column tile for r <= 4096 when a tile row is at least one sector
    perm = plan_reduction(16384, 4096, contiguous=False, itemsize=4, splittable=False)
    assert (16, {"XBLOCK": 8, "RBLOCK": 4096}) in perm.configs
    assert split_factor(4 * SM_COUNT, 1 << 20) == 1
    assert split_factor(1, 1024) == 2  # chunks of at least 512


def test_default_configs_of_a_split_reduction_verify() -> None:
    """Every config of the model's space for a column reduction it splits."""
    x = torch.randn(2048, 24).bfloat16()
    spec = from_torch(col_mean, x, name="col_mean")
    cfgs = default_configs(spec)
    assert cfgs[0].has("SPLIT")
    for cfg in cfgs[:4]:
        v = verify("col_mean", col_mean, [x], spec, cfg)
        assert v.ok, v.line()


def test_eviction_hints() -> None:
    perm = from_torch(
        lambda t: torch.softmax(t.permute(0, 2, 1), -1), torch.randn(2, 40, 8), name="sp"
    )
    body = generate(perm, Config.of(4, XBLOCK=8, RBLOCK=16)).body
    hints = [
        ln.split("eviction_policy='")[1].split("'")[0] if "eviction" in ln else None
        for ln in body.splitlines()
        if "tl.load" in ln
    ]
    assert hints == ["evict_last", "evict_last", None], body
    ln = from_torch(
        lambda t, w, b: torch.nn.functional.layer_norm(t, (64,), w, b),
        torch.randn(6, 64),
        torch.randn(64),
        torch.randn(64),
        name="ln",
    )
    # persistent: every load keeps its lines (layer norm measured 3.6% faster on the H200)
    body = generate(ln, Config.of(4, XBLOCK=1, RBLOCK=64)).body
    assert "tl.load(in0 + (rindex + 64*xindex), eviction_policy='evict_last')" in body
    assert "tl.load(in1 + (rindex), eviction_policy='evict_last')" in body
    # looped: the streaming load has no hint (evict_last measured 6% slower, evict_first
    # 2-22% slower), the weight re-read by every row keeps evict_last
    body = generate(ln, Config.of(4, XBLOCK=1, RBLOCK=16)).body
    x_loads = [ln.strip() for ln in body.splitlines() if "tl.load(in0" in ln]
    assert x_loads == [
        "tmp0 = tl.load(in0 + (rindex + 64*xindex), eviction_policy='evict_last')"
    ] * 2 + ["tmp0 = tl.load(in0 + (rindex + 64*xindex))"], body
    assert "evict_first" not in body
    pool = from_torch(
        lambda t: torch.nn.functional.avg_pool2d(t, 2), torch.randn(2, 3, 8, 8), name="pool"
    )
    loads = [ln for ln in generate(pool, kinds=()).body.splitlines() if "tl.load" in ln]
    assert loads and all("evict_last" in ln for ln in loads)  # stride-2 windows
    # a pointwise kernel's streaming loads too (cat of 3 widths measured 3% faster)
    add = from_torch(lambda a, b: a + b, torch.randn(8, 8), torch.randn(8, 8), name="add")
    loads = [ln for ln in generate(add, kinds=()).body.splitlines() if "tl.load" in ln]
    assert len(loads) == 2 and all("eviction_policy='evict_last'" in ln for ln in loads)


def test_host_descriptor_kernels() -> None:
    from bench.features_gpu import run_kv, run_transpose

    x = torch.randn(2, 40, 24)
    for kind in ("pointers", "desc_load", "desc_both"):
        y = torch.full((2, 24, 40), float("nan"))
        run_transpose(kind, x, y, 0.5, 1.0, 16, 16)
        assert torch.equal(y, x.transpose(1, 2) * 0.5 + 1.0), kind
    k = torch.randn(2, 20, 3, 16)
    for kind in ("pointers", "desc_both"):
        y = torch.full((2, 3, 20, 16), float("nan"))
        run_kv(kind, k, y, 8)
        assert torch.equal(y, k.transpose(1, 2)), kind


def test_streaming_loads_leave_l2_to_a_large_reused_buffer() -> None:
    """A softmax whose additive mask (re-read by every batch and head) is over 1 MiB: only
    the mask's load keeps its lines (evict_last); the streaming scores do not (measured: the
    hint on both made it 2% slower on the H200).  Below 1 MiB both are marked."""

    def fn(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x * 0.125 + m, dim=-1)

    for s, both in ((1024, False), (64, True)):
        spec = from_torch(
            fn, torch.empty(2, 3, s, s, device="meta"), torch.empty(s, s, device="meta"), name="sm"
        )
        body = generate(spec, Config.of(1, XBLOCK=1, RBLOCK=s)).body
        loads = {
            ln.split("tl.load(")[1].split(" ")[0]: "evict_last" in ln
            for ln in body.splitlines()
            if "tl.load(" in ln
        }
        assert loads == {"in0": both, "in1": True}, body
