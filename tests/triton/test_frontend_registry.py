"""The front end's converter registry: one converter per torch op, looked up by the op's name;
an op without one is refused naming it; the documentation's op list is the registry's."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from indexalg_triton.frontend import registry
from indexalg_triton.frontend.registry import CONVERTERS, Call, converts, supported_ops

ROOT = Path(__file__).resolve().parents[2]
DUMMY = "aten.indexalg_dummy_op"


def _gen_pages() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "_docs_gen_pages_registry", ROOT / "docs" / "gen_pages.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _dummy(c: Call) -> Any:  # pragma: no cover - never called
    return c.args[0]


def test_every_op_has_one_converter_and_a_namespace() -> None:
    ops = supported_ops()
    assert ops == sorted(set(ops))
    assert all(op.count(".") == 1 for op in ops)
    for op in (
        "aten.relu",
        "aten.add",
        "aten.permute",
        "aten.embedding",
        "aten.sum",
        "aten.native_layer_norm",
        "aten.cat",
        "aten.index",
    ):
        assert op in ops


def test_a_registered_dummy_converter_appears_in_the_docs_op_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = _gen_pages()
    assert f"`{DUMMY}`" not in page.supported_ops_list()
    monkeypatch.setitem(CONVERTERS, DUMMY, _dummy)
    assert DUMMY in supported_ops()
    listed = page.supported_ops_list()
    line = next(ln for ln in listed.splitlines() if f"`{DUMMY}`" in ln)
    assert line.startswith(f"* `{_dummy.__module__}`: ")  # grouped by its module
    monkeypatch.delitem(CONVERTERS, DUMMY)
    assert f"`{DUMMY}`" not in page.supported_ops_list()


def test_the_docs_page_lists_every_registered_op() -> None:
    text = _gen_pages().triton_page()
    assert "<!-- supported-ops -->" not in text
    for op in supported_ops():
        assert f"`{op}`" in text


def test_from_torch_dispatches_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from indexalg_triton import UnsupportedOp, from_torch

    def fn(x: Any) -> Any:
        return torch.cumsum(x, 0)

    with pytest.raises(UnsupportedOp, match="cumsum"):
        from_torch(fn, torch.randn(4, 3))

    def cumsum_as_negation(c: Call) -> Any:  # a stand-in: only the dispatch is tested
        return c.tr.elementwise("neg", [c.args[0]], c.dtype)

    monkeypatch.setitem(CONVERTERS, "aten.cumsum", cumsum_as_negation)
    spec = from_torch(fn, torch.randn(4, 3))
    assert [o.kind for o in spec.ops] == ["load", "neg"]


def test_converts_refuses_bad_names_and_a_second_converter() -> None:
    with pytest.raises(ValueError, match=r"NAMESPACE\.OP"):
        converts("relu")
    with pytest.raises(ValueError, match="has a converter already"):
        converts("aten.relu")(_dummy)
    assert registry.converter_for("aten.relu") is not _dummy
