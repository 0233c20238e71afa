"""indexalg.inductor without compiling: install/uninstall, the entry points called directly
next to Inductor's own code, ranges as Inductor gives them, fallbacks (injected failures)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import Any

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


def _needs_stride_at_vec_range():
    import torch._inductor.sizevars as sv

    if not hasattr(sv, "stride_at_vec_range"):  # torch 2.11 has no such function there
        pytest.skip("this torch has no sizevars.stride_at_vec_range")


def test_install_uninstall_restore_inductor():
    import torch._inductor.codegen.cpp as cpp
    import torch._inductor.sizevars as sv

    _needs_stride_at_vec_range()
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


def test_a_range_key_that_is_a_constant_is_dropped_not_an_error(installed, syms):
    """A var_ranges key that converts to a literal (seen on the GPU zoo: 21 RangeErrors
    "ranges are keyed by symbols ..., got 0" caught by the fallback wrapper) says nothing
    about the index's symbols: dropped and counted, the index still simplified."""
    import sympy
    from torch.utils._sympy.functions import ModularIndexing

    x, _y, _s0, env, Allocator = syms
    sv = Allocator(env)
    out = sv.simplify_with_ranges(ModularIndexing(x, 1, 64), {x: 16, sympy.Integer(0): 1})
    assert out == x
    c = plug.counters()["simplify_with_ranges"]
    assert c["dropped"] == {"constant_range_key": 1}
    assert c["answered"] == 1 and not c.get("errors")


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
    # where it was raised, kept for the report: the injected function, then the plug-in's
    # own innermost frame, then the message; the same place again is not kept twice
    (where,) = c["errors"]["error:RuntimeError"]
    raised, ours = where.split(": RuntimeError: ")[0].split(" <- ")
    assert raised.startswith("tests/test_inductor.py:") and raised.endswith(" in boom")
    assert ours.startswith("indexalg/inductor/_entries.py:")
    assert ours.endswith(" in _fast_simplify_with_ranges")
    assert where.endswith("RuntimeError: injected")
    Allocator(env).simplify_with_ranges(e + 1, {x: 4096})
    c = plug.counters()["simplify_with_ranges"]
    assert c["fallbacks"] == {"error:RuntimeError": 2} and c["errors"]["error:RuntimeError"] == [
        where
    ]
    assert f"raised at {where}" in plug.report()


def test_a_loop_empty_at_every_point_of_the_ranges_falls_back_by_reason(installed, syms):
    from torch.utils._sympy.functions import FloorDiv
    from torch.utils._sympy.value_ranges import ValueRanges

    # resnet18 at 32x32 with dynamic shapes: under the guard s0 <= 32 a loop of
    # (s0 - 1)//32 iterations runs none; indexalg's simplifier refuses the empty domain
    # (RangeError), counted as the reason, not as an error of the plug-in
    x, _y, s0, env, Allocator = syms
    env.var_to_range[s0] = ValueRanges(2, 32)
    e = 3 * x + 1
    out = Allocator(env).simplify_with_ranges(e, {x: FloorDiv(s0 - 1, 32)})
    assert out == e
    c = plug.counters()["simplify_with_ranges"]
    assert c["fallbacks"] == {"empty_range": 1} and c["errors"] == {}


@pytest.mark.parametrize("wrap", ["TruncToInt", "FloorToInt", "CeilToInt", "Identity"])
def test_a_function_that_reads_as_its_integer_symbol_is_answered(installed, syms, wrap):
    import torch.utils._sympy.functions as F

    # TruncToInt(x) of an integer x reads as x: the converter's new entry maps that call to
    # the symbol node, which is no sympy Symbol to record (it raised AttributeError, caught
    # by the fallback wrapper; the likely source of the 71 such errors in the H100 zoo run)
    x, y, _s0, env, Allocator = syms
    e = getattr(F, wrap)(x) + 4 * y
    out = Allocator(env).simplify_with_ranges(e, {x: 4, y: 8})
    assert out == x + 4 * y
    c = plug.counters()["simplify_with_ranges"]
    assert c["answered"] == 1 and c["fallbacks"] == {} and c["errors"] == {}


def test_unreadable_input_falls_back(installed, syms):
    x, y, _s0, env, Allocator = syms
    e = sympy.Float(0.5) * x + y  # a float: no indexalg equivalent
    out = Allocator(env).simplify_with_ranges(e, {x: 4, y: 4})
    assert out == e
    assert plug.counters()["simplify_with_ranges"]["fallbacks"] == {"unreadable": 1}


def test_modular_indexing_of_a_possibly_negative_dividend_is_named_for_the_python_mod_form(syms):
    import indexalg as ia

    before = ia.parse("Mod(x - 1, 8)")
    unsafe = ia.parse("ModularIndexing(x - 1, 1, 8)")
    assert _entries._check_printable(unsafe, before, {"x": 8}) == {unsafe}
    assert (
        _entries._check_printable(ia.parse("ModularIndexing(x + 1, 1, 8)"), before, {"x": 8})
        == set()
    )
    # a divisor or modulus not proven positive is named too (printed with C's ops)
    odd = ia.parse("ModularIndexing(x, s, 8)")
    assert _entries._check_printable(odd, odd, {"x": 8, "s": (None, None)}) == {odd}
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
    _needs_stride_at_vec_range()
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


def test_repeated_claims_come_from_a_memo_emptied_when_the_shape_env_changes(installed, syms):
    """The claim memo keeps the contract of Inductor's ``@_lru_cache``: a repeated claim is
    answered from it (no second conversion and decision) until the ShapeEnv's version counter
    moves or the ShapeEnv clears the method's cache (as it does when it refines a range);
    then the same claim is decided again under the new facts."""
    from torch.utils._sympy.value_ranges import ValueRanges

    _x, _y, s0, env, _Allocator = syms
    claim = sympy.Ge(s0, 3)
    assert env._maybe_evaluate_static(claim) is None  # s0 in [2, oo): undecided
    assert env._maybe_evaluate_static(claim) is None
    c = plug.counters()["maybe_evaluate_static"]
    assert (c["calls"], c["notes"].get("memo_hit"), c["fallbacks"]) == (2, 1, {"undecided": 1})
    env.var_to_range[s0] = ValueRanges(3, sympy.oo)
    env._maybe_evaluate_static.cache_clear()  # as ShapeEnv._refine_ranges does
    assert env._maybe_evaluate_static(claim) == sympy.true
    assert plug.counters()["maybe_evaluate_static"]["answered"] == 1
    env.var_to_range[s0] = ValueRanges(2, 3)
    assert env._maybe_evaluate_static(claim) == sympy.true  # the memo, as Inductor's cache
    env._version_counter += 1  # what a new replacement or divisibility fact does
    assert env._maybe_evaluate_static(claim) is None
    assert env._maybe_evaluate_static(sympy.Le(s0, 3)) == sympy.true
    c = plug.counters()["maybe_evaluate_static"]
    assert (c["calls"], c["answered"], c["notes"]["memo_hit"]) == (6, 2, 2)


def _guarded_env(guards):
    """A ShapeEnv with s27, s53 in [2, inf) and ``guards`` taken (as axioms)."""
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.value_ranges import ValueRanges

    s27 = sympy.Symbol("s27", integer=True, positive=True)
    s53 = sympy.Symbol("s53", integer=True, positive=True)
    env = ShapeEnv()
    env.var_to_range[s27] = ValueRanges(2, sympy.oo)
    env.var_to_range[s53] = ValueRanges(2, sympy.oo)
    for g in guards(s27, s53):
        env.axioms.update(dict(env.get_implications(env.simplify(g))))
    return env, s27, s53


def _pixel_shuffle_guards(s27, s53):
    from torch.utils._sympy.functions import FloorDiv

    return [
        sympy.Eq(sympy.Mod(s27, 4), 0),
        sympy.Ne(FloorDiv(s27, 4), 0),
        sympy.Ne(FloorDiv(s27, 4), 1),
    ]


def test_claims_decided_under_the_shape_envs_axioms(installed):
    """pixel shuffle's guards (4 | s27, s27 // 4 not 0 nor 1) decide its later claims, as the
    ShapeEnv's own substitution of its axioms would; each answer checked at many points."""
    from torch.utils._sympy.functions import FloorDiv

    env, s27, s53 = _guarded_env(_pixel_shuffle_guards)
    q = FloorDiv(s27, 2 * FloorDiv(s27, 4))
    claims = {
        sympy.Ge(q, 1): True,
        sympy.Eq(q, 1): False,
        sympy.Ge(FloorDiv(s27, 4), 2): True,
        sympy.Eq(FloorDiv(s53 * q, 2), s53): True,
        sympy.Lt(4 * FloorDiv(s27, 4), 2): False,
    }
    for claim, want in claims.items():
        got = env._maybe_evaluate_static(claim)
        assert got == (sympy.true if want else sympy.false), claim
        for v27 in range(8, 200, 4):  # the values the guards allow
            for v53 in (2, 3, 7):
                assert bool(claim.subs({s27: v27, s53: v53})) is want, (claim, v27, v53)
    c = plug.counters()["maybe_evaluate_static"]
    assert c["answered"] == len(claims), plug.report()


def test_explicit_axioms_are_not_replaced_by_the_shape_envs(installed):
    """``axioms=()`` asks for a claim without the guards: the axioms are not read then."""
    from torch.utils._sympy.functions import FloorDiv

    env, s27, _s53 = _guarded_env(_pixel_shuffle_guards)
    claim = sympy.Ge(FloorDiv(s27, 4), 2)  # true only under the guards (s27 = 4 is in range)
    assert env._maybe_evaluate_static(claim, axioms=()) is None


def test_axiom_facts_read_divisibility_bounds_and_exclusions():
    import indexalg as ia
    from indexalg.inductor import _axioms

    env = _guarded_env(
        lambda s27, s53: [*_pixel_shuffle_guards(s27, s53), sympy.And(s53 <= 64, s53 >= 3)]
    )[0]
    with plug.enabled():
        f = _axioms.axiom_facts(env, _entries._env_symbol_range, lambda e: e)
        assert _axioms.axiom_facts(env, _entries._env_symbol_range, lambda e: e) is f  # memo
    assert f.subs == {ia.parse("s27"): ia.parse("4*_ia_q4_s27")}
    assert f.ranges["_ia_q4_s27"] == (2, None)
    assert f.ranges["s53"] == (3, 64)  # both conjuncts of the guard
    assert _axioms.axiom_facts(object(), _entries._env_symbol_range, lambda e: e) is _axioms.EMPTY


def test_axioms_are_converted_once_when_a_new_guard_is_taken(monkeypatch):
    """A new guard bumps the ShapeEnv's version and the facts are read again; each axiom
    is converted once (reading every axiom again at every version was quadratic: 5 s of
    mobilenet_v3_small's compile), and the facts read the second time include the new one."""
    from indexalg.inductor import _axioms, _convert

    env, _s27, s53 = _guarded_env(_pixel_shuffle_guards)

    def true_axioms() -> int:
        return sum(1 for v in env.axioms.values() if bool(v))

    converted: list[Any] = []
    real = _convert.to_ia

    def counting(e: Any) -> Any:
        converted.append(e)
        return real(e)

    monkeypatch.setattr(_convert, "to_ia", counting)
    with plug.enabled():
        _axioms.clear()
        f = _axioms.axiom_facts(env, _entries._env_symbol_range, lambda e: e)
        first = len(converted)
        assert first == true_axioms()
        env.axioms.update(dict(env.get_implications(env.simplify(sympy.Le(s53, 64)))))
        g = _axioms.axiom_facts(env, _entries._env_symbol_range, lambda e: e)
    assert g is not f
    assert len(converted) == true_axioms() > first  # the new axioms only, each once
    assert g.ranges["s53"][1] == 64 and "s53" not in f.ranges
    assert g.ranges["_ia_q4_s27"] == f.ranges["_ia_q4_s27"] == (2, None)


def test_floor_for_clean_rewrites_a_shared_subterm_once_and_keeps_the_rest():
    import indexalg as ia
    from indexalg.expr import CleanDiv, Expr, FloorDiv, Mod, Symbol, add, integer
    from indexalg.inductor._axioms import floor_for_clean

    e: Expr = Symbol("x")
    for i in range(40):  # each level uses the one below twice: 2**40 paths, 121 nodes
        half = FloorDiv.make(e, integer(2))
        e = add(CleanDiv.make(Symbol(f"a{i}"), integer(2)), half, Mod.make(e, integer(3)))

    def kinds(x: Expr, seen: set[Expr]) -> set[type[Expr]]:
        if x in seen:
            return set()
        seen.add(x)
        return {type(x)}.union(*(kinds(a, seen) for a in x.args))

    out = floor_for_clean(e)
    assert CleanDiv in kinds(e, set()) and CleanDiv not in kinds(out, set())
    assert out.depth == e.depth
    assert floor_for_clean(ia.parse("x*y + 3")) is ia.parse("x*y + 3")


def test_conversion_memo_keeps_one_symbol_per_name_and_maps_back_inductors_objects():
    from torch.utils._sympy.functions import FloorDiv

    from indexalg.inductor import _convert

    _convert.clear()
    x = sympy.Symbol("x", integer=True, nonnegative=True)
    x_pos = sympy.Symbol("x", integer=True, positive=True)
    e = FloorDiv(x, 4) + 3 * x
    ie = _convert.to_ia(e)
    assert _convert.to_torch(ie) is e  # Inductor's own object back
    assert _convert.to_torch(_convert.to_ia(FloorDiv(x, 4))).args[0] is x
    for _ in range(2):  # the clash is refused every time, not only when first met
        with pytest.raises(_entries.Fallback, match="symbol_name_clash"):
            _convert.to_ia(FloorDiv(x_pos, 4) + 1)
    assert _convert.to_torch(_convert.to_ia(x + 1)).free_symbols == {x}
    with pytest.raises(_entries.Fallback, match="unreadable"):
        _convert.to_ia(sympy.Float(0.5) * x)
    _convert.clear()


def test_fast_conversion_path_agrees_with_the_interop_module():
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    from indexalg.inductor import _convert
    from indexalg.interop.sympy import from_sympy

    x, y = (sympy.Symbol(n, integer=True, nonnegative=True) for n in "xy")
    cases = [
        x + 3 * y + 12 * FloorDiv(x, 4),
        3 * x * y + 2,
        x * (y + 1),
        (x + 1) ** 2 + y,
        sympy.floor(x / 2 + y / 3) + x,
        sympy.floor(sympy.Rational(1, 2) * x + sympy.Rational(1, 2)),
        ModularIndexing(x + 2 * y, 1, 8) * 16 - x,
        x + y / 2,  # a ratio: unreadable either way
        sympy.Float(0.5) * x + y,
    ]
    for e in cases:
        _convert.clear()
        try:
            want = from_sympy(e)
        except Exception:
            with pytest.raises(_entries.Fallback):
                _convert.to_ia(e)
            continue
        assert _convert.to_ia(e) == want, e
    _convert.clear()


def test_stock_zone_gives_inductors_answers_inside_tiling(monkeypatch):
    """``INDEXALG_INDUCTOR_STOCK_TILING=maybe_evaluate_static``: inside Inductor's tiling
    choice the ShapeEnv's claims get its own answers (counted ``stock_zone``)."""
    from torch._inductor.codegen.simd import SIMDScheduling

    from indexalg.inductor import _zones

    monkeypatch.setenv("INDEXALG_INDUCTOR_STOCK_TILING", "maybe_evaluate_static")
    raw = vars(SIMDScheduling)["select_tiling"]
    env, s27, _s53 = _guarded_env(_pixel_shuffle_guards)
    from torch.utils._sympy.functions import FloorDiv

    claim = sympy.Ge(FloorDiv(s27, 4), 2)
    plug.reset()
    with plug.enabled():
        assert vars(SIMDScheduling)["select_tiling"] is not raw
        assert env._maybe_evaluate_static(claim) == sympy.true
        _zones.DEPTH[0] += 1  # as inside select_tiling
        try:
            env._maybe_evaluate_static.cache_clear()
            assert env._maybe_evaluate_static(claim) is None  # sympy alone: undecided
        finally:
            _zones.DEPTH[0] -= 1
    assert vars(SIMDScheduling)["select_tiling"] is raw
    assert plug.counters()["maybe_evaluate_static"]["fallbacks"] == {"stock_zone": 1}


def test_unchanged_index_comes_back_in_inductors_expanded_form(installed, syms):
    """Inductor's own answer is SizeVarAllocator.simplify's expanded form, never the input as
    given; its stride and tiling analyses read that form (an unexpanded ``s0*(2*q1 + 1)``
    changed a CUDA pooling kernel's tiling and added two divisions)."""
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.utils._sympy.functions import FloorDiv

    x, y, s0, env, _Allocator = syms
    q = sympy.Symbol("q", integer=True, nonnegative=True)
    sv = SizeVarAllocator(env)
    stock = SizeVarAllocator._simplify_with_ranges.__wrapped_original__
    cases = [
        (q * s0 * 7 + 2 * x + s0 * (2 * y + 1), {q: 3, x: s0, y: 5}),
        (q * (FloorDiv(s0 - 1, 2) + 1) * (FloorDiv(s0, 2) + 1) + x, {q: 3, x: s0}),
        (x + 3 * y, {x: 3, y: 5}),
    ]
    for e, vr in cases:
        want = stock(SizeVarAllocator(env), e, vr)
        got = sv.simplify_with_ranges(e, vr)
        assert got == want, (e, got, want)
    assert plug.counters()["simplify_with_ranges"]["answered"] == len(cases)


# --- size hints: optimization_hint, guarding_hint_or_throw ---------------------------------

HINT_ENTRIES = ("optimization_hint", "guarding_hint_or_throw")


def _needs_hint_entries():
    from torch._inductor.sizevars import SizeVarAllocator

    for name in HINT_ENTRIES:
        if not hasattr(SizeVarAllocator, name):  # an older torch: the entry point is skipped
            pytest.skip(f"this torch has no SizeVarAllocator.{name}")


def _hint_env():
    """A ShapeEnv with backed sizes (hints 5, 8, 17, 64, 3, 1), replacements (one chained:
    Inductor substitutes them once, not to a fixed point), an unbacked symbol and a loop
    index (no hint)."""
    from torch._dynamo.source import ConstantSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

    env = ShapeEnv()
    sizes = [
        env.create_symbol(v, ConstantSource(f"h{i}"), dynamic_dim=DimDynamic.DYNAMIC)
        for i, v in enumerate((5, 8, 17, 64, 3, 7))
    ]
    env.replacements[sizes[4]] = sizes[0] + 2 * sizes[1]
    env.replacements[sizes[5]] = sizes[4] + 1  # chained: s4 is not replaced again
    unbacked = env.create_unbacked_symint().node.expr
    loop = sympy.Symbol("x0", integer=True, nonnegative=True)
    return env, sizes, unbacked, loop


def _hint_exprs(sizes, unbacked, loop, n, seed):
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing, PythonMod

    rng = random.Random(seed)

    def gen(depth: int):
        k = rng.randrange(10 if depth < 3 else 2)
        if k == 0:
            return rng.choice(sizes)
        if k == 1:
            return sympy.Integer(rng.randrange(-3, 9))
        a, b = gen(depth + 1), gen(depth + 1)
        if k in (2, 3):
            return a + b if k == 2 else a * b
        if k == 4:
            return a - b
        if k == 5:
            return FloorDiv(a, rng.choice([sympy.Integer(rng.randrange(1, 9)), b]))
        if k == 6:
            d, m = (sympy.Integer(rng.randrange(1, 9)) for _ in range(2))
            return ModularIndexing(a, d, m)
        if k == 7:
            return sympy.Max(a, b) if rng.random() < 0.5 else sympy.Min(a, b)
        if k == 8:
            return PythonMod(a, sympy.Integer(rng.randrange(1, 7)))
        return a + rng.choice([unbacked, loop]) if rng.random() < 0.2 else a**2

    out = []
    while len(out) < n:
        try:
            out.append(gen(0))
        except Exception:  # sympy / torch refuse some random terms at construction
            continue
    return out


def _outcome(fn, *args):
    try:
        return ("value", fn(*args))
    except Exception as exc:
        return ("raises", type(exc).__name__)


@pytest.mark.parametrize("name", HINT_ENTRIES)
def test_size_hints_equal_inductors_on_generated_expressions(installed, name):
    """The hint is the expression's value at the hint point, exactly Inductor's (value or
    exception), on 600 random expressions over backed sizes with replacements, with an
    unbacked symbol or a loop index in some (those are Inductor's to answer)."""
    _needs_hint_entries()
    from torch._inductor.sizevars import SizeVarAllocator

    env, sizes, unbacked, loop = _hint_env()
    sv = SizeVarAllocator(env)
    ours = getattr(sv, name)
    stock = getattr(SizeVarAllocator, name).__wrapped_original__
    exprs = _hint_exprs(sizes, unbacked, loop, 600, seed=24)
    for e in exprs:
        want = _outcome(stock, sv, e)
        got = _outcome(ours, e)
        assert got == want, (e, got, want)
        assert got[0] != "value" or type(got[1]) is type(want[1]), e
    c = plug.counters()[name]
    assert c["calls"] == len(exprs)
    assert c["answered"] >= len(exprs) // 2, plug.report()  # the test exercises indexalg
    assert set(c["fallbacks"]) <= {
        "division_outside_nonnegative",
        "no_backed_hint",
        "hint_unsupported_node",
        "unreadable",
    }, c["fallbacks"]


def test_size_hints_substitute_replacements_once_as_inductor_does(installed):
    _needs_hint_entries()
    from torch._inductor.sizevars import SizeVarAllocator

    env, sizes, _unbacked, _loop = _hint_env()
    sv = SizeVarAllocator(env)
    # s5 -> s4 + 1 and s4 -> s0 + 2*s1: once, so s4 is then its own hint (3), not 5 + 16
    assert sv.optimization_hint(sizes[5] * 2) == 2 * (3 + 1)
    assert sv.guarding_hint_or_throw(sizes[4] + sizes[2]) == 5 + 2 * 8 + 17
    for name in HINT_ENTRIES:
        assert plug.counters()[name]["answered"] == 1
    stock = SizeVarAllocator.optimization_hint.__wrapped_original__
    for v in (7, -3, 0, sympy.Integer(12), True):  # a Python int is its own hint, as in stock
        got, want = sv.optimization_hint(v), stock(sv, v)
        assert got == want and type(got) is type(want), v


def test_size_hints_leave_unbacked_and_negative_divisions_to_inductor(installed):
    _needs_hint_entries()
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.utils._sympy.functions import FloorDiv

    env, sizes, unbacked, _loop = _hint_env()
    sv = SizeVarAllocator(env)
    stock_opt = SizeVarAllocator.optimization_hint.__wrapped_original__
    # an unbacked symbol: Inductor's fallback value / its data-dependent error
    assert sv.optimization_hint(unbacked + 1, 64) == stock_opt(sv, unbacked + 1, 64)
    with pytest.raises(Exception) as stock_err:
        SizeVarAllocator.guarding_hint_or_throw.__wrapped_original__(sv, unbacked + 1)
    with pytest.raises(type(stock_err.value)):
        sv.guarding_hint_or_throw(unbacked + 1)
    # a dividend negative at the hints: torch's folding is exact only on non-negative ones
    e = FloorDiv(sizes[0] - 9, 2)
    assert sv.optimization_hint(e) == stock_opt(sv, e)
    c = plug.counters()
    assert c["optimization_hint"]["fallbacks"] == {
        "division_outside_nonnegative": 1,
        "no_backed_hint": 1,
    }
    assert c["guarding_hint_or_throw"]["fallbacks"] == {"no_backed_hint": 1}


def test_an_entry_point_whose_inductor_code_differs_is_reported_missing():
    """The size hints replace Inductor's method only where it calls the ``_size_hinting``
    function their answer was checked against (another torch: not patched)."""
    _needs_hint_entries()
    ok = _entries.EntryPoint(
        "t",
        "torch._inductor.sizevars",
        "SizeVarAllocator.optimization_hint",
        _entries._fast_optimization_hint,
        by_name=False,
        calls=("_optimization_hint_base",),
    )
    other = _entries.EntryPoint(
        "t",
        "torch._inductor.sizevars",
        "SizeVarAllocator.optimization_hint",
        _entries._fast_optimization_hint,
        by_name=False,
        calls=("_some_other_hinting",),
    )
    assert ok.resolve() is not None
    assert other.resolve() is None
    assert not other.install() and not other.patched
