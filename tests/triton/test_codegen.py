"""indexalg_triton.codegen (with spec and frontend): the decisions written into the source,
determinism, readability, and errors.  Kernels run in tests/triton/test_runtime.py."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

from indexalg.errors import ExprTypeError, InvalidOperationError
from indexalg_triton.codegen import Config, default_configs, generate
from indexalg_triton.layout import View
from indexalg_triton.spec import SpecBuilder
from indexalg_triton.workloads import WORKLOADS, get

TD = ("tensor_descriptor",)
BOTH = ("tensor_descriptor", "block_pointer")


# --- decisions in the source ------------------------------------------------------------------


@dataclass(frozen=True)
class TilingCase:
    workload: str
    size: str
    kinds: tuple[str, ...]
    tiling: str  # prefix of KernelSource.tiling


TILINGS = [
    TilingCase("transpose_add", "large", TD, "2-D: x=(x0) numel 16384; y=(x1) numel 16384"),
    TilingCase("permute3d_add", "large", TD, "2-D: x=(x0) numel 2048; y=(x2, x1)"),
    TilingCase("strided_views", "large", BOTH, "2-D: x=(x0) numel 999"),
    # the N-D cliff: int8 unpack stays 1-D whatever the kinds
    TilingCase("int8_unpack", "large", BOTH, "1-D: x=(x1, x0) numel 268435456"),
    TilingCase("int8_unpack", "large", TD, "1-D: x=(x1, x0) numel 268435456"),
    TilingCase("broadcast_add", "large", BOTH, "1-D"),
    TilingCase("row_sum", "large", TD, "reduction x=32768 r=8192 persistent"),
    TilingCase("col_sum", "large", TD, "reduction x=32768 r=8192 looped"),
]


@pytest.mark.parametrize("case", TILINGS, ids=lambda c: f"{c.workload}-{c.size}-{len(c.kinds)}")
def test_tiling_choice(case: TilingCase) -> None:
    src = generate(get(case.workload).spec(case.size), kinds=case.kinds)
    assert src.tiling.startswith(case.tiling), src.tiling


@dataclass(frozen=True)
class KindCase:
    workload: str
    size: str
    kinds: tuple[str, ...]
    expected: tuple[str, ...]  # access kind of each load/store, in source order


KINDS = [
    KindCase("transpose_add", "large", TD, ("tensor_descriptor",) * 3),
    KindCase("strided_views", "large", BOTH, ("block_pointer",) * 3),
    KindCase("strided_views", "large", TD, ("pointer",) * 3),  # rows of 1003 floats: unaligned
    KindCase("int8_unpack", "small", TD, ("tensor_descriptor",) * 2),
    KindCase("index_select", "small", TD, ("pointer", "pointer", "tensor_descriptor")),
    KindCase("row_sum", "small", BOTH, ("pointer", "pointer")),
]


@pytest.mark.parametrize("case", KINDS, ids=lambda c: f"{c.workload}-{c.size}-{len(c.kinds)}")
def test_access_kinds(case: KindCase) -> None:
    src = generate(get(case.workload).spec(case.size), kinds=case.kinds)
    assert src.kinds == case.expected


def test_pointers_only_config_uses_no_structured_access() -> None:
    spec = get("transpose_add").spec("large")
    cfg = Config.of(8, False, XBLOCK=64, YBLOCK=64)
    src = generate(spec, cfg, kinds=BOTH)
    assert set(src.kinds) == {"pointer"}
    assert "make_tensor_descriptor" not in src.source and "make_block_ptr" not in src.source


def test_index_dtype_int64_over_2_31_and_int32_below() -> None:
    w = get("int8_unpack")
    big = generate(w.spec("int64"), kinds=BOTH)
    small = generate(w.spec("small"), kinds=BOTH)
    assert (big.index_dtype, small.index_dtype) == ("int64", "int32")
    assert "pid = tl.program_id(0).to(tl.int64)" in big.source
    assert "pid = tl.program_id(0)\n" in small.source
    # the output has 2155872256 elements: no descriptor over int32 coordinates; the input's
    # descriptor stays, its coordinate narrowed to int32
    assert big.kinds == ("tensor_descriptor", "pointer")
    assert "load([(xoffset // 2).to(tl.int32)])" in big.source
    assert "a dimension passes int32 coordinates in this int64 kernel" in big.source


def test_indirect_load_asserts_only_unproven_sides() -> None:
    src = generate(get("index_select").spec("small"), kinds=TD)
    assert src.asserts == ("0 <= tmp0", "tmp0 < 50")
    # a uint8 index into 256 rows is proven in bounds: no assert
    b = SpecBuilder("lut", loops=[("x0", 64)])
    b.buffer("table", View.of([256], dtype="float32"))
    b.buffer("idx", View.of([64], dtype="uint8"))
    b.buffer("out", View.of([64]), output=True)
    i = b.load("idx", "x0")
    b.check(i, 256)
    v = b.load("table", f"{i}")
    b.store("out", "x0", v)
    lut = generate(b.build(), kinds=TD)
    assert lut.asserts == ()
    assert "# tmp0 in [0, 256): proven, no assert" in lut.source
    # ... and into 200 rows only the upper side is asserted
    b2 = SpecBuilder("lut2", loops=[("x0", 64)])
    b2.buffer("table", View.of([200]))
    b2.buffer("idx", View.of([64], dtype="uint8"))
    b2.buffer("out", View.of([64]), output=True)
    j = b2.load("idx", "x0")
    b2.check(j, 200)
    b2.store("out", "x0", b2.load("table", j))
    assert generate(b2.build(), kinds=TD).asserts == ("tmp0 < 200",)


# --- readability ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_every_access_carries_its_index_as_a_comment(name: str) -> None:
    spec = get(name).spec("small")
    src = generate(spec, kinds=TD).source
    loads = [o for o in spec.ops if o.kind == "load"]
    for o in loads:
        assert f"# load {o.buffer}[{o.index}]" in src
    for st in spec.stores:
        assert f"# store {st.buffer}[{st.index}]" in src
    assert "# index dtype: int32" in src


def test_floor_division_of_possibly_negative_indices_uses_the_helpers() -> None:
    b = SpecBuilder("shift", loops=[("x0", 64)])
    b.buffer("a", View.of([64]))
    b.buffer("out", View.of([64]), output=True)
    k = b.index("(x0 - 5) // 8")  # negative for x0 < 5: Triton's // truncates
    b.store("out", "x0", b.op("cast", k, dtype="float32"))
    src = generate(b.build(), kinds=TD).source
    assert "ia_floordiv(" in src


# --- determinism ------------------------------------------------------------------------------


def test_generation_is_repeatable_in_process() -> None:
    for name in WORKLOADS:
        spec = get(name).spec("medium")
        for cfg in default_configs(spec, TD)[:2]:
            assert generate(spec, cfg, kinds=TD).source == generate(spec, cfg, kinds=TD).source


_DIGEST_SCRIPT = """
import hashlib
from indexalg_triton.codegen import generate, default_configs
from indexalg_triton.workloads import WORKLOADS
h = hashlib.sha256()
for name, w in WORKLOADS.items():
    for size in ("small", "large"):
        spec = w.spec(size)
        for cfg in default_configs(spec, ("tensor_descriptor", "block_pointer")):
            h.update(generate(spec, cfg, kinds=("tensor_descriptor", "block_pointer")).source.encode())
print(h.hexdigest())
"""


def test_sources_are_byte_identical_across_hash_seeds() -> None:
    digests = set()
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", _DIGEST_SCRIPT],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1
    assert len(digests.pop()) == len(hashlib.sha256().hexdigest())  # a real digest, not ""


# --- configs and errors -----------------------------------------------------------------------


def test_default_configs_keep_1d_in_an_nd_space() -> None:
    cfgs = default_configs(get("transpose_add").spec("large"), TD)
    assert cfgs[0].describe() == "XBLOCK=64 YBLOCK=64 warps=8"
    assert [c.describe() for c in cfgs if c.flat] == [
        "XBLOCK=1024 warps=4 pointers-only 1-D",
        "XBLOCK=2048 warps=8 pointers-only 1-D",
    ]


@dataclass(frozen=True)
class BadConfig:
    kwargs: dict[str, object]
    message: str


BAD_CONFIGS = [
    BadConfig({"XBLOCK": 1000}, "power of two"),
    BadConfig({"XBLOCK": 0}, "power of two"),
    BadConfig({"num_warps": 3, "XBLOCK": 64}, "num_warps"),
]


@pytest.mark.parametrize("case", BAD_CONFIGS, ids=lambda c: c.message)
def test_bad_configs(case: BadConfig) -> None:
    with pytest.raises(InvalidOperationError, match=case.message):
        Config.of(**case.kwargs)  # type: ignore[arg-type]


def _builder() -> SpecBuilder:
    b = SpecBuilder("k", loops=[("x0", 8)])
    b.buffer("a", View.of([8]))
    b.buffer("out", View.of([8]), output=True)
    return b


def test_spec_errors_name_what_was_wrong() -> None:
    b = _builder()
    with pytest.raises(InvalidOperationError, match="unknown buffer"):
        b.load("nope", "x0")
    with pytest.raises(InvalidOperationError, match="unknown elementwise op"):
        b.op("frobnicate", b.load("a", "x0"))
    with pytest.raises(InvalidOperationError, match="stores nothing"):
        _builder().build()
    with pytest.raises(ExprTypeError, match="needs integer operands"):
        b.op("and", b.load("a", "x0"), 1)
    r = SpecBuilder("k", loops=[("x0", 8)], reduction=("r0", 4))
    r.buffer("a", View.of([8, 4]))
    r.buffer("out", View.of([8]), output=True)
    v = r.load("a", "4*x0 + r0")
    r.store("out", "x0", v)  # an inner value stored without the reduction variable
    with pytest.raises(InvalidOperationError, match="inner value"):
        r.build()
    with pytest.raises(InvalidOperationError, match="not a usable identifier"):
        SpecBuilder("tl", loops=[("x0", 8)]).build()


def test_frontend_rejects_unsupported_ops_by_name() -> None:
    import torch

    from indexalg_triton.frontend import from_torch

    with pytest.raises(InvalidOperationError, match="cumsum"):
        from_torch(lambda x: torch.cumsum(x, 0), torch.empty(8, device="meta"))


def test_frontend_traces_views_into_index_expressions() -> None:
    spec = get("strided_views").spec("small")
    loads = [str(o.index) for o in spec.ops if o.kind == "load"]
    assert loads == ["x0 + 11*x1", "x0 + 11*x1 + 3"]
    unpack = get("int8_unpack").spec("small")
    assert [str(o.index) for o in unpack.ops if o.kind in ("load", "index")] == [
        "24*x1 + x0 // 2",
        "ModularIndexing(x0, 1, 2) <= 0",
    ]
