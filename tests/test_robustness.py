"""Bad input is a clear error or a right answer (issue 16): integers of any size, expressions
nested up to the documented limit (MAX_DEPTH) in every layer, linear-time long sums, and
operators with no integer meaning."""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable

import pytest

import indexalg as ia
from indexalg._bigint import int_from_digits, int_summary, int_to_str
from indexalg.errors import DepthError, IndexAlgError, InvalidOperationError, ParseError
from indexalg.expr import MAX_DEPTH, add, mul
from indexalg.printing.c import to_c
from indexalg.printing.python import to_python
from indexalg.printing.triton import to_triton

# the modules (``indexalg.parse`` the attribute is the function)
expr_module = importlib.import_module("indexalg.expr")
parse_module = importlib.import_module("indexalg.parse")

# --- integers of any size -------------------------------------------------------------------

BIG = 10**5000 + 12345  # past Python's 4,300-digit int <-> str conversion limit
BIG_TEXT = "1" + "0" * 4995 + "12345"


@pytest.mark.parametrize(
    "value", [0, 7, -7, 10**599, 10**600, 10**4300 - 1, BIG, -BIG], ids=lambda v: int_summary(v)
)
def test_int_text_round_trips_at_any_size(value: int) -> None:
    text = int_to_str(value)
    assert text.lstrip("-").isdigit() and (text[0] == "-") == (value < 0)
    assert text.lstrip("-")[-5:] == f"{abs(value) % 100000:05d}"[-len(text.lstrip("-")[-5:]) :]
    assert int_from_digits(text.lstrip("-")) == abs(value)


def test_int_summary_is_short_for_huge_values() -> None:
    assert int_to_str(BIG) == BIG_TEXT
    assert int_summary(-123) == "-123"
    assert int_summary(BIG) == "100000000000...000000012345 (5001 digits)"


def test_parse_and_print_integers_past_the_str_limit() -> None:
    e = ia.parse(f"x // {BIG_TEXT} + {BIG_TEXT}")
    assert ia.evaluate(e, {"x": 3 * BIG + 1}) == 3 + BIG
    assert ia.parse(str(e)) is e
    assert str(e).endswith(int_to_str(BIG))
    assert to_python(e).count(int_to_str(BIG)) == 2


def test_huge_literals_in_errors_are_summarised() -> None:
    with pytest.raises(InvalidOperationError, match=r"\(5001 digits\) does not fit"):
        to_c(ia.parse(f"x + {BIG_TEXT}"))
    with pytest.raises(ParseError, match=r"modulus must be >= 1, got -100000000000\.\.\."):
        ia.parse(f"ModularIndexing(x, 1, 0 - {BIG_TEXT})")


def test_parse_never_raises_a_bare_value_error() -> None:
    for text in [
        f"x ** {BIG_TEXT}",
        "x ** 0065",
        "9" * 20000 + " // x",
        "x // (" + "0" * 5000 + ")",
    ]:
        try:
            ia.parse(text)
        except ValueError as err:
            assert isinstance(err, IndexAlgError), text


# --- operators with no integer meaning -----------------------------------------------------


def test_true_division_and_power_explain_like_the_parser() -> None:
    x = ia.Symbol("x")
    with pytest.raises(InvalidOperationError, match="use // for floor division"):
        _ = x / 2
    with pytest.raises(InvalidOperationError, match="use // for floor division"):
        _ = 2 / x
    with pytest.raises(InvalidOperationError, match=r"write the product \(x\*x\)"):
        _ = x**2
    with pytest.raises(InvalidOperationError, match="not an index operation"):
        _ = 2**x


# --- depth ------------------------------------------------------------------------------------


def _nested(kind: str, depth: int, names: str = "x y") -> ia.Expr:
    """An expression of exactly ``depth`` levels (a leaf has depth 1)."""
    x, y = ia.symbols(names)
    e: ia.Expr = x < 1 if kind == "not" else x
    while e.depth < depth:
        if kind == "floordiv":
            e = ia.FloorDiv(e, 3)
        elif kind == "not":
            e = ia.Not(e)
        elif kind == "where" and e.depth + 2 <= depth:
            e = ia.Where(x < e.depth, e + 1, y)
        elif kind == "modidx" and e.depth + 2 <= depth:
            e = ia.ModularIndexing(e + y, 1, 64)
        else:
            e = ia.Min(e, y) if kind != "floordiv" else ia.FloorDiv(e, 3)
    assert e.depth == depth
    return e


KINDS = ["floordiv", "not", "where", "modidx"]


def test_nodes_carry_their_depth() -> None:
    x = ia.Symbol("x")
    assert x.depth == 1 and ia.Integer(5).depth == 1
    assert (x // 2).depth == 2 and (x // 2 + x).depth == 3
    assert ia.parse("Min(x, y // 2 + 1)").depth == 4


@pytest.mark.parametrize("kind", KINDS)
def test_building_deeper_than_max_depth_is_a_clear_error(kind: str) -> None:
    e = _nested(kind, MAX_DEPTH)
    with pytest.raises(DepthError, match=f"^expression nested deeper than {MAX_DEPTH}$"):
        ia.Not(e) if e.is_bool else ia.FloorDiv(e, 2)


def test_parser_reports_depth_with_the_column() -> None:
    text = "(" * 10_000 + "x" + " // 2)" * 10_000
    with pytest.raises(ParseError, match=f"expression nested deeper than {MAX_DEPTH}") as info:
        ia.parse(text)
    assert text[info.value.column - 1 : info.value.column + 1] == "//"
    # nesting that builds no node is not depth: redundant parentheses and unary signs
    assert ia.parse("(" * 10_000 + "x" + ")" * 10_000) is ia.Symbol("x")
    assert ia.parse("-" * 5000 + "x") is ia.Symbol("x")
    assert ia.parse("- " * 5001 + "x") is -ia.Symbol("x")
    assert ia.parse("+" * 5000 + "x") is ia.Symbol("x")


def _layers() -> dict[str, Callable[[ia.Expr], object]]:
    env = {"x": 5, "y": 9, "u": 5, "v": 9}
    ranges = {"x": 8, "y": 16, "u": 8, "v": 16}
    return {
        "str": lambda e: ia.parse(str(e)) is e or "round trip",
        "python": to_python,
        "c": to_c,
        "triton": to_triton,
        "evaluate": lambda e: ia.evaluate(e, env),
        "simplify": lambda e: ia.simplify(e, ranges),
        "bounds": lambda e: None if e.is_bool else ia.bounds(e, ranges),
        "prove": lambda e: ia.prove(_claim_at_depth(e), ranges).status,
    }


def _claim_at_depth(e: ia.Expr) -> ia.Expr:
    """``e`` if a claim, else a claim of the same depth about ``e``'s deepest child."""
    if e.is_bool:
        return e
    child = max((a for a in e.args if not a.is_bool), key=lambda a: a.depth)
    return ia.Le(-(10**9), child)


def _with_stack_used(frames: int, fn: Callable[[], object]) -> object:
    """``fn()`` called ``frames`` Python frames deep (a caller with a deep stack)."""
    if frames <= 0:
        return fn()
    return _with_stack_used(frames - 1, fn)


# Frames a caller may already use when it calls indexalg at MAX_DEPTH (measured use by the
# deepest layer is about 500 of Python's default 1,000; see docs/semantics.md, "Limits").
CALLER_FRAMES = 300


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layer", list(_layers()))
def test_every_layer_works_at_max_depth_from_a_deep_stack(kind: str, layer: str) -> None:
    fn = _layers()[layer]
    # new symbols: nothing cached on the nodes from other tests
    e = _nested(kind, MAX_DEPTH, "u v")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default, whatever the test runner set
    try:
        got = _with_stack_used(CALLER_FRAMES, lambda: fn(e))
    finally:
        sys.setrecursionlimit(limit)
    assert got is not None or layer == "bounds"
    if layer == "evaluate":
        assert got == ia.evaluate(e.subs({ia.Symbol("u"): 5, ia.Symbol("v"): 9}))


@pytest.mark.parametrize("layer", ["str", "c", "evaluate", "simplify", "prove"])
def test_every_layer_works_at_max_depth_in_a_thread(layer: str) -> None:
    fn = _layers()[layer]
    e = _nested("where", MAX_DEPTH)
    out: list[object] = []

    def work() -> None:
        out.append(fn(e))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert len(out) == 1


def test_interop_at_max_depth() -> None:
    pytest.importorskip("sympy")
    pytest.importorskip("z3")
    from indexalg.interop.sympy import from_sympy, to_sympy
    from indexalg.interop.z3 import to_z3

    for kind in KINDS:
        e = _nested(kind, MAX_DEPTH)
        to_z3(e)
        try:
            back = from_sympy(to_sympy(e))
        except ia.InteropError as err:  # sympy's own recursion: a clear error, not a crash
            assert "sympy" in str(err)
        else:
            assert ia.evaluate(back, {"x": 5, "y": 9}) == ia.evaluate(e, {"x": 5, "y": 9})


# --- linear-time sums and products ---------------------------------------------------------


def _count_general_work(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch the general (sorting) sum and product builders to record the terms they
    handle; the fast paths and the parser's one-shot chains must keep that linear."""
    work: list[int] = []
    real_add, real_mul = expr_module.add, expr_module.mul

    def counting_add(*operands: ia.ExprLike) -> ia.Expr:
        work.append(sum(len(o.args) if isinstance(o, ia.Expr) else 1 for o in operands))
        return real_add(*operands)

    def counting_mul(*operands: ia.ExprLike) -> ia.Expr:
        work.append(sum(len(o.args) if isinstance(o, ia.Expr) else 1 for o in operands))
        return real_mul(*operands)

    monkeypatch.setattr(parse_module, "add", counting_add)
    monkeypatch.setattr(parse_module, "mul", counting_mul)
    return work


@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_parsing_a_long_chain_builds_it_once(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    n = 3000
    work = _count_general_work(monkeypatch)
    e = ia.parse(f" {op} ".join(f"x{i}" for i in range(n)))
    assert len(e.args) == n
    # one n-ary build (plus the negations of the '-' terms): linear, where building
    # pairwise handled 1 + 2 + ... + n = 4.5 million terms
    assert sum(work) <= 3 * n


def test_building_a_sum_term_by_term_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = expr_module._build_sum

    def counting(const: int, acc: dict[tuple[ia.Expr, ...], int], nodes: object) -> ia.Expr:
        calls.append(len(acc))
        return real(const, acc, nodes)  # type: ignore[arg-type]

    monkeypatch.setattr(expr_module, "_build_sum", counting)
    syms = ia.symbols(" ".join(f"x{i}" for i in range(2000)))
    s = sum(syms[1:], syms[0])
    assert isinstance(s, ia.Expr) and len(s.args) == 2000
    assert max(calls, default=0) <= 2  # never re-sorts the sum built so far


def test_fast_paths_build_the_canonical_node() -> None:
    """``add(a, b)`` / ``mul(a, b)`` (fast paths) equal the general n-ary construction
    (``add(a, b, 0)``), node for node, with the same structural keys and depths."""
    import random

    rng = random.Random(16)
    x, y, z = ia.symbols("x y z")
    atoms: list[ia.ExprLike] = [x, y, z, x // 2, ia.Min(x, y), x * y, 3 * x, -x, -2 * y * z]
    atoms += [x * x, 0, 1, -3]

    def draw(d: int = 0) -> ia.ExprLike:
        r = rng.random()
        if d > 2 or r < 0.3:
            return rng.choice(atoms)
        parts = [draw(d + 1) for _ in range(rng.randint(1, 4))]
        return add(*parts, 0) if r < 0.65 else mul(*parts, 1)

    for _ in range(3000):
        a, b = ia.as_expr(draw()), draw()
        for fast, general in ((add(a, b), add(a, b, 0)), (mul(a, b), mul(a, b, 1))):
            assert fast is general, (a, b)
            assert fast.key == (
                type(fast).rank,
                fast.payload or 0,
                tuple(c.key for c in fast.args),
            )
            assert fast.depth == 1 + max((c.depth for c in fast.args), default=0)


@pytest.mark.slow
def test_ten_thousand_term_sum_parses_well_under_a_second() -> None:
    import time

    text = " + ".join(f"x{i}" for i in range(10_000))
    start = time.perf_counter()
    e = ia.parse(text)
    assert time.perf_counter() - start < 1.0
    assert len(e.args) == 10_000
