"""torch.compile (C++ backend) with indexalg.inductor installed: every workload of
``bench.inductor_workloads``, static and dynamic, equal to eager and to stock Inductor,
with no generated kernel holding more div/mod than stock's.  The CI subset compiles a few
cheap workloads with the plug-in only (against eager); the rest is in the slow set."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import indexalg.inductor as plug  # noqa: E402
from bench.inductor import _kernels_from_cpp_wrapper, divmod_count  # noqa: E402
from bench.inductor_workloads import CI, WORKLOADS  # noqa: E402


def _compile(w, dynamic: bool, *, with_plugin: bool):
    from torch._inductor import config
    from torch._inductor.utils import run_and_get_code

    inputs = w.inputs()
    torch._dynamo.reset()
    ctx = plug.enabled() if with_plugin else _nothing()
    with ctx, config.patch(force_disable_caches=True), torch.no_grad():
        out, codes = run_and_get_code(torch.compile(w.fn, dynamic=dynamic), *inputs)
    torch._dynamo.reset()
    kernels = [k for code in codes for k in _kernels_from_cpp_wrapper(code)]
    with torch.no_grad():
        ref = w.fn(*inputs)
    return out, ref, kernels


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    return [t for o in out for t in _flat(o)]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", CI)
def test_ci_workloads_equal_eager_with_the_plugin(name, dynamic):
    w = next(w for w in WORKLOADS if w.name == name)
    plug.reset()
    out, ref, kernels = _compile(w, dynamic, with_plugin=True)
    torch.testing.assert_close(out, ref, atol=w.atol, rtol=w.rtol)
    assert kernels
    c = plug.counters()
    assert sum(v["answered"] for v in c.values()) > 0, plug.report()


@pytest.mark.slow
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", [w.name for w in WORKLOADS])
def test_workload_equal_to_eager_and_stock_no_more_divmod(name, dynamic):
    w = next(w for w in WORKLOADS if w.name == name)
    stock_out, ref, stock_kernels = _compile(w, dynamic, with_plugin=False)
    out, ref, kernels = _compile(w, dynamic, with_plugin=True)
    torch.testing.assert_close(out, ref, atol=w.atol, rtol=w.rtol)
    for a, b in zip(_flat(out), _flat(stock_out)):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    stock_counts = {k: divmod_count(src) for k, src in stock_kernels}
    for k, src in kernels:
        if k in stock_counts:
            assert divmod_count(src) <= stock_counts[k], k
    assert sum(divmod_count(s) for _, s in kernels) <= sum(stock_counts.values())


class _only:
    """The plug-in with only the ``names`` entry points installed, for the block."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def __enter__(self):
        return plug.install(only=self.names)

    def __exit__(self, *exc):
        plug.uninstall()
        return False


@pytest.mark.parametrize("name", ["pixel_shuffle_conv", "add_permute_3d"])
def test_size_hint_entries_leave_the_kernels_unchanged(name):
    """The size hints answered by indexalg are Inductor's own values, so every decision read
    from them is stock's: with only those entry points installed, a dynamic compile gives
    the same kernels, character for character, and the same outputs."""
    from torch._inductor.sizevars import SizeVarAllocator

    hints = ("optimization_hint", "guarding_hint_or_throw")
    if not all(hasattr(SizeVarAllocator, n) for n in hints):
        pytest.skip("this torch has no SizeVarAllocator.optimization_hint")
    w = next(w for w in WORKLOADS if w.name == name)
    stock_out, ref, stock_kernels = _compile(w, True, with_plugin=False)
    plug.reset()
    with _only(*hints):
        out, _ref, kernels = _compile(w, True, with_plugin=False)  # what _only installed
    c = plug.counters()
    assert sum(c[n]["answered"] for n in hints if n in c) > 0, plug.report()
    assert kernels == stock_kernels
    for a, b in zip(_flat(out), _flat(stock_out)):
        torch.testing.assert_close(a, b, atol=0, rtol=0)
    torch.testing.assert_close(out, ref, atol=w.atol, rtol=w.rtol)
