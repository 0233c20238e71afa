"""indexalg_triton.debug: the value printer runs in the one central launch path, for every
kernel kind (generated, combo, multi-kernel, template, user-defined), filtered by name,
driven by the environment or the API, and saves tensors that torch.load reads back."""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from indexalg.errors import InvalidOperationError
from indexalg_triton.codegen import generate
from indexalg_triton.debug import available_kernels, debug_printing, describe_tensor
from indexalg_triton.runtime import device, launch, launch_user_kernel

pytestmark = pytest.mark.skipif(device() != "cpu", reason="interpreter tests (a GPU is present)")


def _add_spec(name: str = "dbg_add", n: int = 5) -> Any:
    from indexalg_triton.combo import foreach_add_spec

    return foreach_add_spec(name, (n,), alpha=2.0)


def _tensors(n: int = 5) -> dict[str, Any]:
    import torch

    return {
        "a": torch.arange(n, dtype=torch.float32),
        "b": torch.ones(n),
        "out": torch.full((n,), float("nan")),
    }


def test_describe_small_tensor_lists_values_and_every_property() -> None:
    import torch

    t = torch.tensor([[0.5, -1.25], [3.0, 2.0]]).t()
    assert describe_tensor(t) == [
        "values: [0.5, 3.0, -1.25, 2.0]",
        "min: -1.25",
        "max: 3.0",
        "size: [2, 2]",
        "stride: [1, 2]",
        "dtype: torch.float32",
        "device: cpu",
        "layout: torch.strided",
        "numel: 4",
        "contiguous: False",
    ]


def test_large_tensor_has_no_values_bool_and_empty_have_min_max() -> None:
    import torch

    assert not describe_tensor(torch.zeros(100))[0].startswith("values")
    assert describe_tensor(torch.tensor([True, False]))[1:3] == ["min: False", "max: True"]
    assert describe_tensor(torch.zeros(0))[0:3] == ["values: []", "min: n/a", "max: n/a"]


def test_generated_kernel_prints_before_and_after() -> None:
    src = generate(_add_spec(), kinds=())
    buf = io.StringIO()
    with debug_printing(stream=buf):
        launch(src, _tensors())
    text = buf.getvalue()
    heads = [line for line in text.splitlines() if line.startswith("[")]
    assert heads == [
        f"[ {w} - dbg_add - {a} ]:"
        for w in ("before_launch", "after_launch")
        for a in ("a", "b", "out")
    ]
    # the output is poisoned before and written after
    after_out = text.split("[ after_launch - dbg_add - out ]:")[1]
    assert "values: [2.0, 3.0, 4.0, 5.0, 6.0]" in after_out
    before_out = text.split("[ before_launch - dbg_add - out ]:")[1].split("\n[ ")[0]
    assert "values: [nan, nan, nan, nan, nan]" in before_out


def test_kernel_filter_and_disable() -> None:
    src = generate(_add_spec(), kinds=())
    buf = io.StringIO()
    with debug_printing(stream=buf, kernels=["other_kernel"]):
        launch(src, _tensors())
    assert buf.getvalue() == ""
    with debug_printing(False):
        launch(src, _tensors())  # nothing to check but that it runs


def test_environment_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    src = generate(_add_spec(), kinds=())
    monkeypatch.setenv("INDEXALG_DEBUG_PRINT", "1")
    monkeypatch.setenv("INDEXALG_DEBUG_KERNELS", "dbg_add, something_else")
    launch(src, _tensors())
    assert "[ after_launch - dbg_add - out ]:" in capsys.readouterr().err
    monkeypatch.setenv("INDEXALG_DEBUG_KERNELS", "something_else")
    launch(src, _tensors())
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("INDEXALG_DEBUG_PRINT", "yes")
    with pytest.raises(InvalidOperationError, match="INDEXALG_DEBUG_PRINT"):
        launch(src, _tensors())


def test_save_to_pt_files(tmp_path: Path) -> None:
    import torch

    src = generate(_add_spec(), kinds=())
    ts = _tensors()
    with debug_printing(stream=io.StringIO(), save_dir=tmp_path):
        launch(src, ts)
    names = sorted(os.listdir(tmp_path))
    assert names[0] == "0000_dbg_add_before_launch_a.pt" and len(names) == 6
    after = torch.load(tmp_path / "0005_dbg_add_after_launch_out.pt")
    assert torch.equal(after, ts["out"])


def test_codegen_logs_available_kernel_names(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="indexalg_triton.debug"):
        generate(_add_spec("dbg_logged_kernel"), kinds=())
    assert "dbg_logged_kernel" in available_kernels()
    assert any(
        "kernel names available" in r.getMessage() and "dbg_logged_kernel" in r.getMessage()
        for r in caplog.records
    )


def test_every_kernel_kind_goes_through_the_printer() -> None:
    import torch
    import triton
    import triton.language as tl

    from indexalg_triton.combo import combine, launch_combo
    from indexalg_triton.multikernel import MultiKernel
    from indexalg_triton.template import launch_template, matmul_template
    from indexalg_triton.workloads import get

    buf = io.StringIO()
    combo = combine([_add_spec("dbg_p0", 3), _add_spec("dbg_p1", 4)], name="dbg_combo")
    mk = MultiKernel(get("row_sum").spec("small"))
    tpl = matmul_template(16, 16, 16, name="dbg_mm")

    @triton.jit
    def user_double(x, y, n: tl.constexpr):  # type: ignore[no-untyped-def]
        i = tl.arange(0, n)
        tl.store(y + i, tl.load(x + i) * 2)

    x = torch.ones(4)
    y = torch.zeros(4)
    with debug_printing(stream=buf):
        launch_combo(combo, [_tensors(3), _tensors(4)])
        xs = torch.randn(13, 300)
        mk.run(dict(zip(mk.arg_names, [xs, torch.empty(13)])))
        launch_template(
            tpl, {"a": torch.randn(16, 16), "b": torch.randn(16, 16), "out": torch.empty(16, 16)}
        )
        launch_user_kernel(user_double, (1,), x, y, 4)
    text = buf.getvalue()
    for head in [
        "[ after_launch - dbg_combo - p1_out ]:",
        "[ after_launch - row_sum - out0 ]:",
        "[ after_launch - dbg_mm - out ]:",
        "[ after_launch - user_double - y ]:",
        "[ before_launch - user_double - n ]: value 4",
    ]:
        assert head in text, head
    assert "values: [2.0, 2.0, 2.0, 2.0]" in text.split("after_launch - user_double - y")[1]
