"""The companion's errors (indexalg_triton.errors): one tree under the core's
InvalidOperationError, raised by the companion's own checks, never the bare core class."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from indexalg.errors import IndexAlgError, InvalidOperationError
from indexalg_triton import errors
from indexalg_triton.codegen import Config
from indexalg_triton.errors import (
    ConfigError,
    FrontendError,
    IndexAlgTritonError,
    LaunchError,
    SpecError,
    UnsupportedOp,
    VerificationError,
)
from indexalg_triton.layout import View
from indexalg_triton.spec import SpecBuilder

PACKAGE = Path(__file__).resolve().parents[2] / "indexalg_triton"


def test_the_tree() -> None:
    assert issubclass(IndexAlgTritonError, InvalidOperationError)
    assert issubclass(IndexAlgTritonError, IndexAlgError)
    assert issubclass(IndexAlgTritonError, ValueError)  # as InvalidOperationError is
    for cls in (FrontendError, SpecError, ConfigError, LaunchError, VerificationError):
        assert cls.__bases__ == (IndexAlgTritonError,)
    assert UnsupportedOp.__bases__ == (FrontendError,)
    assert sorted(errors.__all__) == sorted(
        n
        for n, v in vars(errors).items()
        if isinstance(v, type) and issubclass(v, IndexAlgTritonError)
    )


def test_unsupported_op_names_the_op() -> None:
    e = UnsupportedOp("aten.cumsum.default", "default")
    assert str(e) == "from_torch: unsupported op aten.cumsum.default (default)"
    assert (e.op, e.detail) == ("aten.cumsum.default", "default")
    assert str(UnsupportedOp("aten.foo")) == "from_torch: unsupported op aten.foo"
    again = pickle.loads(pickle.dumps(e))  # crosses process pools (bench workers)
    assert (type(again), str(again), again.op) == (UnsupportedOp, str(e), e.op)


def test_spec_and_config_errors() -> None:
    b = SpecBuilder("k", loops=[("x0", 4)])
    b.buffer("a", View.of([4]))
    with pytest.raises(SpecError, match="unknown buffer"):
        b.load("nope", "x0")
    with pytest.raises(ConfigError, match="power of two"):
        Config.of(4, XBLOCK=3)


def test_front_end_refusal() -> None:
    torch = pytest.importorskip("torch")
    from indexalg_triton import from_torch

    with pytest.raises(UnsupportedOp, match="cumsum") as info:
        from_torch(lambda x: torch.cumsum(x, 0), torch.randn(4, 3))
    assert info.value.op.startswith("aten.cumsum")
    with pytest.raises(InvalidOperationError, match="cumsum"):  # what callers caught before
        from_torch(lambda x: torch.cumsum(x, 0), torch.randn(4, 3))


def test_no_module_raises_the_bare_core_error() -> None:
    """The companion's own conditions raise its own classes (the core's errors stay for the
    core's input: a range, an expression)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Raise)
                and isinstance(node.exc, ast.Call)
                and isinstance(node.exc.func, ast.Name)
                and node.exc.func.id in ("InvalidOperationError", "IndexAlgError")
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []
