"""The plug-in's wrong answers found by the independent fuzzer (issue 26), each a regression
test asserting the right answer, and the printed C++ / Triton code of every result evaluated
in C semantics (the printers' output is what runs)."""

from __future__ import annotations

import contextlib
import gc
import itertools
import math
import os
import weakref

import pytest

sympy = pytest.importorskip("sympy")
pytest.importorskip("torch")

import indexalg.inductor as plug  # noqa: E402
from indexalg.inductor import _axioms, _convert, _entries  # noqa: E402
from indexalg.testing.plugin_fuzz import c_eval, triton_eval  # noqa: E402


@pytest.fixture()
def installed():
    plug.uninstall()
    plug.reset()
    with plug.enabled() as names:
        yield names
    plug.reset()


def _sym(name: str, **kw: bool):
    return sympy.Symbol(name, integer=True, **kw)


# --- C semantics: what the printed code computes (the plug-in fuzzer's evaluators) -------


def _assert_prints_right(out, expr, names: dict[str, object], domain: dict[str, range]) -> None:
    from torch._inductor.codegen.cpp_utils import cexpr
    from torch._inductor.codegen.triton import texpr

    keys = sorted(domain)
    for values in itertools.product(*(domain[k] for k in keys)):
        point = dict(zip(keys, values))
        subs = {names[k]: v for k, v in point.items()}
        want = int(expr.subs(subs))
        assert int(out.subs(subs)) == want, (out, point)
        assert c_eval(cexpr(out), point) == want, (cexpr(out), point)
        assert triton_eval(texpr(out), point) == want, (texpr(out), point)


def test_the_c_semantics_evaluators_are_c():
    assert c_eval("(-1L) % 4L", {}) == -1
    assert triton_eval("((-7) // 2)", {}) == -3
    assert (
        c_eval("c10::div_floor_integer(static_cast<int64_t>((-7L)), static_cast<int64_t>(2L))", {})
        == -4
    )
    assert c_eval("c10::div_mod((-1L) + x, 4L)", {"x": 0}) == 3
    assert triton_eval("triton_helpers.remainder_integer((-1) + x, 4)", {"x": 0}) == 3


# --- 1. a float symbol is not an integer ------------------------------------------------


def test_float_size_symbol_is_refused_not_read_as_an_integer(installed):
    from torch._dynamo.source import ConstantSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

    se = ShapeEnv()
    f = se.create_symbol(2.5, ConstantSource("f"), dynamic_dim=DimDynamic.DYNAMIC)
    sf = se.create_symfloatnode(f, hint=2.5)
    a, b = math.floor(sf), math.ceil(sf)  # 2 and 3
    # the first conversion used to raise inside and fall back; stock may refuse it too:
    # only the answers below matter
    with contextlib.suppress(Exception):
        se._maybe_evaluate_static((a == b).node.expr)
    assert bool(a != b) is True
    assert se._maybe_evaluate_static(sympy.Eq(2 * f, 5)) is not sympy.false
    assert plug.counters()["maybe_evaluate_static"]["fallbacks"].get("non_integer_symbol", 0) >= 1


def test_non_integer_symbols_fall_back_at_conversion():
    plug.uninstall()
    real = sympy.Symbol("r", real=True)
    plain = sympy.Symbol("p")
    for s in (real, sympy.floor(real), plain + 1):
        with pytest.raises(_entries.Fallback, match="non_integer_symbol"):
            _convert.to_ia(s)
    # the failure leaves nothing half-recorded: an integer symbol met inside a refused
    # expression is recorded when it is next converted
    n = _sym("n_half", nonnegative=True)
    with pytest.raises(_entries.Fallback):
        _convert.to_ia(n + real)
    assert _convert.to_ia(n + 1) is not None
    assert _convert.symbol_for("n_half") is n


# --- 2. memos per ShapeEnv held by the object, never by id --------------------------------


def test_per_shape_env_memos_are_weak_and_keyed_by_the_object(installed):
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import ModularIndexing
    from torch.utils._sympy.value_ranges import ValueRanges

    x0 = _sym("x0", nonnegative=True)
    s = _sym("s", positive=True)
    env = ShapeEnv()
    env.var_to_range[s] = ValueRanges(1, 10)
    SizeVarAllocator(env).simplify_with_ranges(x0 + ModularIndexing(s, 1, 16), {x0: 8})
    assert isinstance(_entries._RANGES, weakref.WeakKeyDictionary)
    assert isinstance(_axioms._MEMO, weakref.WeakKeyDictionary)
    assert env in _entries._RANGES
    ref = weakref.ref(env)
    del env
    gc.collect()
    assert ref() is None
    assert len(_entries._RANGES) == 0


def test_a_new_shape_env_never_sees_a_freed_ones_ranges(installed):
    """With ``s <= 10`` in the first ShapeEnv and not in the second, the second's answer
    must keep the ModularIndexing.  A few create/collect cycles (a full collection with
    torch loaded costs a second or more; the structural test above is the guarantee, this
    one the behaviour when an address is reused)."""
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import ModularIndexing
    from torch.utils._sympy.value_ranges import ValueRanges

    x0 = _sym("x0", nonnegative=True)
    s = _sym("s", positive=True)
    e = x0 + ModularIndexing(s, 1, 16)
    seen: set[int] = set()
    reused = False
    for _ in range(6):
        narrow = ShapeEnv()
        narrow.var_to_range[s] = ValueRanges(1, 10)
        assert SizeVarAllocator(narrow).simplify_with_ranges(e, {x0: 8}) == s + x0
        seen.add(id(narrow))
        del narrow
        gc.collect()
        wide = ShapeEnv()
        reused = reused or id(wide) in seen
        out = SizeVarAllocator(wide).simplify_with_ranges(e, {x0: 8})
        assert out.subs({s: 20, x0: 0}) == 4, out
        del wide
        gc.collect()
    del reused  # informative only: the structural test above holds either way


# --- 3. the conversion back follows the caller's semantics --------------------------------


def test_torchs_mod_never_comes_back_where_a_python_mod_went_in(installed):
    from torch._inductor.codegen.cpp_utils import cexpr
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import Mod, ModularIndexing, PythonMod

    x0, x1 = _sym("x0", nonnegative=True), _sym("x1", nonnegative=True)
    s0 = _sym("s0", positive=True)
    _convert.to_ia(sympy.Eq(Mod(x0 - 1, s0), 0))  # torch's Mod met first (a claim)
    _convert.to_ia(Mod(x0 - 1, s0))
    e = PythonMod(x0 - 1, s0) + x1 + 8 * ModularIndexing(x1, 64, 4)
    out = SizeVarAllocator(ShapeEnv()).simplify_with_ranges(e, {x0: 16, x1: 64})
    assert not any(type(a) is Mod for a in sympy.preorder_traversal(out)), out
    assert any(type(a) is PythonMod for a in sympy.preorder_traversal(out)), out
    assert "c10::div_mod" in cexpr(out)
    _assert_prints_right(
        out,
        e,
        {"x0": x0, "x1": x1, "s0": s0},
        {"x0": range(0, 3), "x1": range(0, 64, 9), "s0": range(1, 5)},
    )
    assert type(_convert.to_torch(_convert.to_ia(Mod(x0 - 1, s0)))) is PythonMod


# --- 4. no mixing of semantics during a fallback --------------------------------------------


def test_inner_questions_of_a_fallback_are_answered_by_stock(installed, monkeypatch):
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    def refuse(*args, **kwargs):
        raise _entries.Fallback("forced")

    monkeypatch.setattr(_entries, "_inductor_ranges", refuse)
    x0 = _sym("x0", nonnegative=True)
    s = _sym("s", positive=True)
    e = FloorDiv(ModularIndexing(x0 - 1, 4, 4), s) - 1
    plug.uninstall()
    stock_out = SizeVarAllocator(ShapeEnv()).simplify_with_ranges(e, {x0: 4})
    plug.install()
    plug.reset()
    out = SizeVarAllocator(ShapeEnv()).simplify_with_ranges(e, {x0: 4})
    assert out == stock_out  # exactly stock's answer: nothing of indexalg's inside it
    c = plug.counters()
    assert c["simplify_with_ranges"]["fallbacks"].get("forced") == 1
    inner = c.get("maybe_evaluate_static", {"calls": 0, "answered": 0})
    assert inner["answered"] == 0
    assert inner["calls"] >= 1
    assert inner["calls"] == inner["fallbacks"].get("inside_stock_fallback", 0)


def test_floor_of_modular_indexing_of_a_negative_dividend_keeps_its_value(installed):
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    x0, s = _sym("x0", nonnegative=True), _sym("s", positive=True)
    e = FloorDiv(ModularIndexing(x0 - 1, 4, 4), s) - 1
    out = SizeVarAllocator(ShapeEnv()).simplify_with_ranges(e, {x0: 4})
    _assert_prints_right(out, e, {"x0": x0, "s": s}, {"x0": range(4), "s": range(1, 6)})


def test_inner_modular_indexing_of_a_shifted_index_is_not_dropped(installed):
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    x1, s69 = _sym("x1", nonnegative=True), _sym("s69", positive=True)
    m = ModularIndexing(x1 - 2, s69, 16)
    e = FloorDiv(8 * FloorDiv(m, 8) + ModularIndexing(m, 1, 8) + 2, 3)
    out = SizeVarAllocator(ShapeEnv()).simplify_with_ranges(e, {x1: 64})
    _assert_prints_right(
        out, e, {"x1": x1, "s69": s69}, {"x1": range(0, 64, 3), "s69": range(1, 5)}
    )


# --- 5. every result prints right in Inductor's printers -------------------------------------


def test_redundant_python_mod_dropped_only_into_a_form_that_prints_right(installed):
    from torch._inductor.codegen.cpp_utils import cexpr
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.utils._sympy.functions import ModularIndexing, PythonMod

    x2, s68 = _sym("x2", nonnegative=True), _sym("s68", positive=True)
    e = PythonMod(ModularIndexing(x2 - 1, 4, 2), 2)
    out = SizeVarAllocator().simplify_with_ranges(e, {x2: s68})
    assert (
        "div_floor_integer(static_cast<int64_t>((-1L) + x2), static_cast<int64_t>(4L))) %"
        not in cexpr(out)
    )
    _assert_prints_right(
        out, e, {"x2": x2, "s68": s68}, {"x2": range(0, 9), "s68": range(1, 10, 4)}
    )


def test_modular_indexing_in_a_python_mod_by_a_size(installed):
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import ModularIndexing, PythonMod

    x1, s94 = _sym("x1", nonnegative=True), _sym("s94", positive=True)
    e = PythonMod(ModularIndexing(x1 - 2, 1, 16), s94)
    out = SizeVarAllocator(ShapeEnv()).simplify_with_ranges(e, {x1: 64})
    _assert_prints_right(out, e, {"x1": x1, "s94": s94}, {"x1": range(0, 20), "s94": range(1, 7)})


def test_modular_indexing_of_a_non_negative_dividend_keeps_its_form(installed):
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.utils._sympy.functions import ModularIndexing, PythonMod

    x, s0 = _sym("x", nonnegative=True), _sym("s0", positive=True)
    out = SizeVarAllocator().simplify_with_ranges(
        PythonMod(ModularIndexing(x + 1, 4, 2), 2), {x: s0}
    )
    assert type(out) is ModularIndexing, out


# --- settings that say what they did (issue 24, item 5) ---------------------------------------


def test_an_unknown_entry_point_is_an_error_listing_the_valid_ones():
    plug.uninstall()
    with pytest.raises(
        ValueError, match="unknown entry point 'bogus'; valid: simplify_with_ranges"
    ):
        plug.install(only=["bogus"])
    assert not plug.installed()
    assert plug.install(only=["simplify_with_ranges"]) == ["simplify_with_ranges"]
    plug.uninstall()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"INDEXALG_INDUCTOR_ONLY": "simplify_with_range"},
            "INDEXALG_INDUCTOR_ONLY: unknown entry point 'simplify_with_range'",
        ),
        ({"INDEXALG_INDUCTOR": "maybe"}, "INDEXALG_INDUCTOR='maybe': expected one of"),
        (
            {"INDEXALG_INDUCTOR_STOCK_TILING": "tiling"},
            "INDEXALG_INDUCTOR_STOCK_TILING: unknown entry point 'tiling'",
        ),
    ],
)
def test_misspelt_settings_are_errors(env, message):
    import subprocess
    import sys

    code = "import indexalg.inductor as p; p.install(); print(p.report())"
    full = {**os.environ, "INDEXALG_INDUCTOR": "1", **env}
    r = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr[-2000:]


@pytest.mark.parametrize("value", ["true", "TRUE", "yes", "on", "1"])
def test_truthy_spellings_install(value):
    import subprocess
    import sys

    code = "import indexalg.inductor as p; print(p.installed())"
    r = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "INDEXALG_INDUCTOR": value},
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "True"


def test_falsy_spellings_do_not_install():
    assert plug._switch("0") is False and plug._switch("off") is False and plug._switch("") is False
    assert plug._switch(" Yes ") is True


# --- found by the plug-in fuzzer on torch 2.11 (a work-in-progress simplifier answered 1) ----


@pytest.mark.parametrize(
    "text",
    [
        "Mod(x0, 2*s6) + Mod(ModularIndexing(x0 - 3, 1, 2), 2)",
        "Mod(x0, 2*s6) + Mod(ModularIndexing(x0 - 3, 1, 2), 2) <= 16",
        "ModularIndexing(ModularIndexing(x0 - 3, 1, 2), 1, 4) + Mod(x0, 2*s6) > 8",
    ],
)
def test_sums_of_remainders_keep_their_value(text):
    import indexalg as ia

    e = ia.parse(text)
    ranges = {"x0": (0, None), "s6": (2, None)}
    out = ia.simplify(e, ranges)
    for s6 in range(2, 11):
        for x0 in range(0, 4 * s6 + 3):
            point = {"x0": x0, "s6": s6}
            assert ia.evaluate(out, point) == ia.evaluate(e, point), (out, point)
