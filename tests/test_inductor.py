"""indexalg.inductor without compiling: install/uninstall, the entry points called directly
next to Inductor's own code, ranges as Inductor gives them, fallbacks (injected failures)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

sympy = pytest.importorskip("sympy")
pytest.importorskip("torch")

import indexalg.inductor as plug  # noqa: E402
from indexalg.inductor import _entries  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True
    )


@pytest.fixture()
def installed():
    plug.reset()
    with plug.enabled() as names:
        yield names
    plug.reset()


@pytest.fixture()
def syms():
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.value_ranges import ValueRanges

    x = sympy.Symbol("x", integer=True, nonnegative=True)
    y = sympy.Symbol("y", integer=True, nonnegative=True)
    s0 = sympy.Symbol("s0", integer=True, positive=True)
    env = ShapeEnv()
    env.var_to_range[s0] = ValueRanges(2, sympy.oo)
    return x, y, s0, env, SizeVarAllocator


# --- the module ---------------------------------------------------------------------------


def test_import_indexalg_imports_neither_torch_nor_sympy():
    r = _run(
        "import sys, indexalg, indexalg.inductor; "
        "assert 'torch' not in sys.modules and 'sympy' not in sys.modules, 'imported'; "
        "assert not indexalg.inductor.installed()"
    )
    assert r.returncode == 0, r.stderr


def test_environment_switch_installs_on_import():
    r = _run(
        "import indexalg.inductor as p; assert p.installed(); "
        "from torch._inductor.sizevars import SizeVarAllocator as S; "
        "assert hasattr(S._simplify_with_ranges, '__wrapped_original__'); print(p.entry_points())",
        INDEXALG_INDUCTOR="1",
    )
    assert r.returncode == 0, r.stderr
    assert "simplify_with_ranges" in r.stdout


def test_install_uninstall_restore_inductor():
    import torch._inductor.codegen.cpp as cpp
    import torch._inductor.sizevars as sv

    before = (sv.SizeVarAllocator._simplify_with_ranges, sv.stride_at_vec_range)
    assert cpp.stride_at_vec_range is sv.stride_at_vec_range
    with plug.enabled() as names:
        assert "simplify_with_ranges" in names and "stride_at_vec_range" in names
        assert sv.SizeVarAllocator._simplify_with_ranges is not before[0]
        assert cpp.stride_at_vec_range is sv.stride_at_vec_range is not before[1]
        assert plug.install() == names  # idempotent
        where = plug.entry_points()
        assert "torch._inductor.codegen.cpp" in where["stride_at_vec_range"]
    assert (sv.SizeVarAllocator._simplify_with_ranges, sv.stride_at_vec_range) == before
    assert cpp.stride_at_vec_range is before[1]
    assert not plug.installed()


# --- simplify_with_ranges -----------------------------------------------------------------


def test_simplify_with_ranges_answers_in_torch_functions_with_the_same_symbols(installed, syms):
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    x, _y, s0, env, Allocator = syms
    sv = Allocator(env)
    out = sv.simplify_with_ranges(ModularIndexing(ModularIndexing(x, 1, 64), 1, 8), {x: 4096})
    assert out == ModularIndexing(x, 1, 8) and type(out) is ModularIndexing
    assert out.args[0] is x  # the very Symbol: name and assumptions
    assert sv.simplify_with_ranges(ModularIndexing(x, 1, 2 * s0), {x: s0}) == x
    assert sv.simplify_with_ranges(FloorDiv(x, s0 + 1), {x: s0}) == 0
    c = plug.counters()["simplify_with_ranges"]
    assert c["calls"] == c["answered"] == 3


def test_expression_keyed_ranges_do_not_crash(installed, syms):
    from torch.utils._sympy.functions import ModularIndexing

    x, y, _s0, env, Allocator = syms
    sv = Allocator(env)
    e = ModularIndexing(x + 3 * y, 1, 15)
    out = sv.simplify_with_ranges(e, {x: 3, y: 5, x + 3 * y: 15})
    if plug.expression_keys_supported():
        assert out == x + 3 * y
    else:
        assert out == e  # the fact was dropped: sound, less precise
        assert plug.counters()["simplify_with_ranges"]["dropped"] == {"expression_range_key": 1}


def test_symbolic_sizes_and_shape_env_ranges(installed, syms):
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    x, _y, s0, env, Allocator = syms
    sv = Allocator(env)
    # q0 < s0*8: the ModularIndexing over the whole range is the FloorDiv
    e = 8 * ModularIndexing(x, s0, 8) + ModularIndexing(x, 1, s0)
    out = sv.simplify_with_ranges(e, {x: 8 * s0})
    assert out == 8 * FloorDiv(x, s0) + ModularIndexing(x, 1, s0)


def test_failure_inside_indexalg_falls_back_and_is_counted(installed, syms, monkeypatch):
    from torch.utils._sympy.functions import ModularIndexing

    x, _y, _s0, env, Allocator = syms
    e = ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)
    stock = Allocator(env)._simplify_with_ranges.__wrapped_original__(Allocator(env), e, {x: 4096})

    def boom(*args, **kwargs):
        raise RuntimeError("injected")

    monkeypatch.setattr(_entries.ia, "simplify", boom)
    out = Allocator(env).simplify_with_ranges(e, {x: 4096})
    assert out == stock
    c = plug.counters()["simplify_with_ranges"]
    assert c["fallbacks"] == {"error:RuntimeError": 1} and c["answered"] == 0
    assert "fallback error:RuntimeError: 1" in plug.report()


def test_unreadable_input_falls_back(installed, syms):
    x, y, _s0, env, Allocator = syms
    e = sympy.Float(0.5) * x + y  # a float: no indexalg equivalent
    out = Allocator(env).simplify_with_ranges(e, {x: 4, y: 4})
    assert out == e
    assert plug.counters()["simplify_with_ranges"]["fallbacks"] == {"unreadable": 1}


def test_modular_indexing_of_a_possibly_negative_dividend_is_refused(syms):
    import indexalg as ia

    before = ia.parse("Mod(x - 1, 8)")
    with pytest.raises(_entries.Fallback, match="modular_indexing_of_negative"):
        _entries._check_printable(ia.parse("ModularIndexing(x - 1, 1, 8)"), before, {"x": 8})
    _entries._check_printable(ia.parse("ModularIndexing(x + 1, 1, 8)"), before, {"x": 8})
    with pytest.raises(_entries.Fallback, match="new_node_kind"):
        _entries._check_printable(ia.parse("Min(x, 3)"), ia.parse("x"), {"x": 8})


# --- stride_at_vec_range -------------------------------------------------------------------

STRIDE_CASES = [
    "144*x0 + 12*x1 + x2",
    "144*x0 + 6*FloorDiv(x1, 2) + FloorDiv(x2, 2) + 72*ModularIndexing(x1, 1, 2) + 36*ModularIndexing(x2, 1, 2)",
    "x2 + 48*FloorDiv(x2, 16)",
    "ModularIndexing(x2, 1, 32) + 7*FloorDiv(x2, 32)",
    "ModularIndexing(x2, 16, 4) + x1*s0",
    "s0*x2 + x1",
    "3*x2 + 5",
    "x1",
    "ModularIndexing(x2, 1, 48)",
    "FloorDiv(x2, 3) + x1",
]


def _torch_expr(text: str):
    import torch.utils._sympy.functions as fns

    names = {n: sympy.Symbol(n, integer=True, nonnegative=True) for n in ("x0", "x1", "x2")}
    names["s0"] = sympy.Symbol("s0", integer=True, positive=True)
    names.update(FloorDiv=fns.FloorDiv, ModularIndexing=fns.ModularIndexing)
    return eval(text, {}, names), names  # test data, not user input


@pytest.mark.parametrize("text", STRIDE_CASES)
@pytest.mark.parametrize("vec", [16, None])
def test_stride_at_vec_range_agrees_with_inductor(text, vec):
    import torch._inductor.sizevars as sv

    index, names = _torch_expr(text)
    var = names["x2"]
    stock = sv.stride_at_vec_range(index, var, vec)
    with plug.enabled():
        ours = sv.stride_at_vec_range(index, var, vec)
    if stock.is_number:
        assert ours == stock
    assert ours.has(var) == (not ours.is_number and var in ours.free_symbols)
    if ours.is_number or not ours.free_symbols & {var}:
        # the stride as the value: lane to next lane inside a vector of `vec` lanes
        rng = random.Random(0)
        n = vec or 1
        for _ in range(50):
            env = {names["x0"]: rng.randrange(9), names["x1"]: rng.randrange(9)}
            env[names["s0"]] = rng.randrange(1, 9)
            base = n * rng.randrange(20)
            lane = rng.randrange(max(n - 1, 1))
            at = index.xreplace({**env, var: base + lane})
            nxt = index.xreplace({**env, var: base + lane + 1})
            assert int(nxt - at) == int(ours.xreplace(env)), (text, vec)


# --- ShapeEnv claims -------------------------------------------------------------------------


def test_maybe_evaluate_static_on_claims(installed, syms):
    _x, _y, s0, env, _Allocator = syms
    assert env._maybe_evaluate_static(sympy.Ge(s0 * s0, 4)) in (sympy.true, None)
    assert env._maybe_evaluate_static(sympy.Lt(s0, 1)) in (sympy.false, None)
    env._maybe_evaluate_static.cache_clear()  # the ShapeEnv clears its caches
    c = plug.counters()["maybe_evaluate_static"]
    assert c["calls"] == 2
