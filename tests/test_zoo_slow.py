"""A small part of the model zoo (``bench.zoo``) in the slow set: a few models, static and
dynamic, each compiled stock and with the plug-in in fresh processes (caches off, C++
backend), checked equal to eager and to stock and never worse than stock (no more kernels,
div/mod or layout copies)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from bench import zoo
from bench.inductor import run_one

MODELS = ("resnet18", "convnext_tiny", "llama")


@pytest.mark.slow
@pytest.mark.parametrize("shape", zoo.SHAPES)
@pytest.mark.parametrize("name", MODELS)
def test_zoo_model_correct_and_never_worse_than_stock(name, shape, request):
    if name == "resnet18" and shape in ("dynamic", "marked"):
        # known and open (issue 24): at 32x32 the guard H <= 32 makes the last stage's spatial
        # loops 1 + (H - 1)//32 long, i.e. 1; the plug-in's index drops their terms, so
        # Inductor merges the two loops and prints the merged bound expanded, 1 + a*a + 2*a
        # (dynamic: 81 -> 83 div/mod) or 1 + a*b + a + b (marked, a symbol per side: 99 ->
        # 103), more in one loop header than stock's two headers, fewer per element
        request.applymarker(pytest.mark.xfail(reason=f"resnet18 {shape}: merged loop header"))
    stock = run_one(name, "cpp", shape, "stock", 1800, "cpu", module="bench.zoo")
    plugin = run_one(name, "cpp", shape, "plugin", 1800, "cpu", module="bench.zoo")
    row = zoo.compare_pair(name, shape, [stock], [plugin])
    assert "error" not in row, row["error"]
    assert row["equal_eager_stock"] and row["equal_eager_plugin"], (
        stock["mismatch"],
        plugin["mismatch"],
    )
    assert row["equal_stock"]
    if shape != "static":
        assert row["equal_eager_second_size"]
    assert row["kernels_plugin"] > 0
    assert not row["worse"], row["worse"]
