"""Code-generation decisions (indexalg.decisions): int32 or int64 indexing with the guards it
relies on, i32/i64 kernel arguments, and the bounds asserts an indirect index needs."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

pytest.importorskip("z3")

import indexalg as ia
from indexalg.decisions import (
    INT32_MAX,
    INT32_MIN,
    arg_dtype,
    bounds_checks,
    dtype_range,
    index_dtype,
    intermediates,
)
from indexalg.errors import ExprTypeError, InvalidOperationError
from indexalg.expr import Expr
from indexalg.ranges import RangeSpec

Spec = dict[str, RangeSpec]
Size = Expr | int | str

SYMBOLIC: Spec = {"x0": "s0", "x1": "s1", "s0": (1, None), "s1": (1, None)}


@dataclass(frozen=True)
class DtypeCase:
    name: str
    exprs: list[str]
    ranges: Spec
    numel: Size | None = None
    buffer_sizes: list[Size] = field(default_factory=list)
    hints: dict[str, int] | None = None
    dtype: str = "int32"
    guards: list[str] = field(default_factory=list)
    reason: str = ""


DTYPE_CASES = [
    # a size just below 2^31: every index and the size fit
    DtypeCase("just_below", ["x"], {"x": INT32_MAX}, numel=INT32_MAX),
    # a size of exactly 2^31: the last index fits, the size itself does not
    DtypeCase(
        "just_above",
        ["x"],
        {"x": INT32_MAX + 1},
        numel=INT32_MAX + 1,
        dtype="int64",
        reason="the constant 2147483648 does not fit in int32",
    ),
    DtypeCase(
        "index_above",
        ["x + 1"],
        {"x": INT32_MAX + 1},
        dtype="int64",
        reason="x + 1 is not proven within",
    ),
    # 2-D strided index of a 46340 x 46340 buffer (46340^2 < 2^31 < 46341^2)
    DtypeCase(
        "strided_fits", ["x0 + 46340*x1"], {"x0": 46340, "x1": 46340}, buffer_sizes=[46340 * 46340]
    ),
    DtypeCase(
        "strided_overflows",
        ["x0 + 46341*x1"],
        {"x0": 46341, "x1": 46341},
        dtype="int64",
        reason="x0 + 46341*x1 is not proven",
    ),
    # every intermediate value counts: x * 2^20 overflows although the quotient is small
    DtypeCase(
        "intermediate",
        ["x * 1048576 // 1048576"],
        {"x": 4096},
        dtype="int64",
        reason="1048576*x is not proven",
    ),
    DtypeCase("negative_fits", ["x - 2147483648"], {"x": 16}),
    DtypeCase("negative_overflows", ["x - 2147483649"], {"x": 16}, dtype="int64"),
    # symbolic sizes, no hints: unbacked, int64
    DtypeCase(
        "symbolic_unbacked",
        ["x0 + s0*x1"],
        SYMBOLIC,
        numel="s0*s1",
        dtype="int64",
        reason="no size hint (unbacked)",
    ),
    # symbolic sizes with hints: int32 plus one simplified guard (the numel's bound implies
    # the bounds of every index and intermediate value: the others are deduplicated)
    DtypeCase(
        "symbolic_hinted",
        ["x0 + s0*x1", "x0 + s0*x1 + 1", "s0*x1"],
        SYMBOLIC,
        numel="s0*s1",
        hints={"s0": 1024, "s1": 4096},
        guards=["s0*s1 <= 2147483647"],
    ),
    # without the numel, s0 itself needs its own guard: s0*s1 <= 2^31 allows s0 = 2^31
    DtypeCase(
        "symbolic_hinted_index_only",
        ["x0 + s0*x1"],
        SYMBOLIC,
        hints={"s0": 1024, "s1": 4096},
        guards=["s0 <= 2147483647", "s0*s1 <= 2147483648"],
    ),
    DtypeCase(
        "symbolic_hints_too_large",
        ["x0 + s0*x1"],
        SYMBOLIC,
        numel="s0*s1",
        hints={"s0": 65536, "s1": 65536},
        dtype="int64",
        reason="at the size hints",
    ),
    # a symbolic size with a numeric upper bound needs no hint
    DtypeCase(
        "symbolic_bounded",
        ["x0 + s0*x1"],
        {"x0": "s0", "x1": "s1", "s0": (1, 1024), "s1": (1, 1024)},
        numel="s0*s1",
    ),
]


@pytest.mark.parametrize("case", DTYPE_CASES, ids=lambda c: c.name)
def test_index_dtype(case: DtypeCase) -> None:
    d = index_dtype(
        case.exprs,
        ranges=case.ranges,
        numel=case.numel,
        buffer_sizes=case.buffer_sizes,
        size_hints=case.hints,
    )
    assert d.dtype == case.dtype, d.reason
    assert [str(g) for g in d.guards] == case.guards
    assert case.reason in d.reason
    assert d.is_int32 is (case.dtype == "int32")


def test_guards_hold_at_the_hints_and_are_deterministic() -> None:
    case = DTYPE_CASES[[c.name for c in DTYPE_CASES].index("symbolic_hinted")]
    first = index_dtype(case.exprs, ranges=case.ranges, numel=case.numel, size_hints=case.hints)
    second = index_dtype(
        list(reversed(case.exprs)), ranges=case.ranges, numel=case.numel, size_hints=case.hints
    )
    assert first.guards == second.guards
    assert case.hints is not None
    assert all(ia.evaluate(g, case.hints) is True for g in first.guards)


def test_intermediates_include_partial_sums_and_products() -> None:
    e = ia.parse("a + b + c + 5*x*y*z")
    found = {str(v) for v in intermediates(e)}
    assert {"a + b", "a + b + c", "5*x", "5*x*y", "5*x*y*z", "a + b + c + 5*x*y*z"} <= found
    assert "x < 1" not in {str(v) for v in intermediates(ia.parse("Where(x < 1, a, b)"))}
    assert {"x", "a", "b"} <= {str(v) for v in intermediates(ia.parse("Where(x < 1, a, b)"))}


def test_index_dtype_bad_input() -> None:
    with pytest.raises(ExprTypeError, match="index expression 0 must be an integer"):
        index_dtype(["x < 1"], ranges={"x": 4})
    with pytest.raises(ExprTypeError, match="size_hints"):
        index_dtype(["x"], ranges={"x": 4}, size_hints={"s0": "big"})  # type: ignore[arg-type]


# --- integer arguments of user-defined kernels -------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kwargs", "dtype", "guards"),
    [
        ((0, INT32_MAX), {}, "i32", []),
        ((INT32_MIN, 0), {}, "i32", []),
        ((0, INT32_MAX + 1), {}, "i64", []),
        ((0, None), {}, "i64", []),
        (INT32_MAX, {}, "i32", []),
        (INT32_MAX + 1, {}, "i64", []),
        ("u0", {}, "i64", []),  # unbacked: cannot be checked
        (
            "s0",
            {"ranges": {"s0": (1, None)}, "size_hints": {"s0": 10}},
            "i32",
            ["s0 <= 2147483647"],
        ),
        ("s0", {"ranges": {"s0": (1, None)}, "size_hints": {"s0": 2**40}}, "i64", []),
        ("4*s0", {"ranges": {"s0": (1, 1000)}}, "i32", []),
    ],
)
def test_arg_dtype(value: object, kwargs: dict[str, object], dtype: str, guards: list[str]) -> None:
    d = arg_dtype(value, **kwargs)  # type: ignore[arg-type]
    assert d.dtype == dtype, d.reason
    assert [str(g) for g in d.guards] == guards


def test_arg_dtype_bad_range() -> None:
    with pytest.raises(InvalidOperationError, match="empty value range"):
        arg_dtype((5, 1))
    with pytest.raises(ExprTypeError, match="int or None"):
        arg_dtype((0, 1.5))  # type: ignore[arg-type]


# --- bounds checks for indirect indexing --------------------------------------------------------

WRAPPED = "Where(i < 0, i + 64, i)"


@dataclass(frozen=True)
class CheckCase:
    name: str
    index: str
    size: Size
    ranges: Spec
    asserts: list[str]


CHECK_CASES = [
    # a loaded int64 index: anything is possible, both asserts
    CheckCase("int64", "i", 64, {"i": dtype_range("int64")}, ["0 <= i", "i < 64"]),
    CheckCase(
        "int64_wrapped",
        WRAPPED,
        64,
        {"i": dtype_range("int64")},
        [f"0 <= {WRAPPED}", f"{WRAPPED} < 64"],
    ),
    # wrapped index known to be in [-64, 63]: no assert
    CheckCase("wrapped_in_range", WRAPPED, 64, {"i": (-64, 63)}, []),
    CheckCase("wrapped_one_below", WRAPPED, 64, {"i": (-65, 63)}, [f"0 <= {WRAPPED}"]),
    # non-negative dtype: the lower check is proven
    CheckCase("uint8_into_256", "i", 256, {"i": dtype_range("uint8")}, []),
    CheckCase("uint8_into_200", "i", 200, {"i": dtype_range("uint8")}, ["i < 200"]),
    CheckCase("int8_into_128", "i", 128, {"i": dtype_range("int8")}, ["0 <= i"]),
    # symbolic sizes
    CheckCase("symbolic_in_range", "i", "s0", {"i": "s0", "s0": (1, None)}, []),
    CheckCase("symbolic_unknown", "i", "s0", {"i": (0, None), "s0": (1, None)}, ["i < s0"]),
    CheckCase(
        "symbolic_wrapped",
        "Where(i < 0, i + s0, i)",
        "s0",
        {"i": ("-s0", "s0 - 1"), "s0": (1, None)},
        [],
    ),
]


@pytest.mark.parametrize("case", CHECK_CASES, ids=lambda c: c.name)
def test_bounds_checks(case: CheckCase) -> None:
    d = bounds_checks(case.index, case.size, ranges=case.ranges)
    assert [str(a) for a in d.asserts] == case.asserts
    assert d.lower is any(str(a).startswith("0 <= ") for a in d.asserts)
    assert d.upper is any(" < " in str(a) and not str(a).startswith("0 <= ") for a in d.asserts)
    assert d.needed is bool(case.asserts)
    # an omitted side is proved; an asserted side is not
    assert d.lower_proof.proved is not d.lower
    assert d.upper_proof.proved is not d.upper


def test_bounds_check_counterexample_is_a_real_out_of_bounds_access() -> None:
    d = bounds_checks(WRAPPED, 64, ranges={"i": (-65, 63)})
    cex = d.lower_proof.counterexample
    assert cex == {"i": -65}
    assert ia.evaluate(ia.parse(WRAPPED), cex) == -1


def test_dtype_range() -> None:
    assert dtype_range("int32") == (INT32_MIN, INT32_MAX)
    assert dtype_range("torch.uint8") == (0, 255)
    assert dtype_range("tl.int64") == (-(2**63), 2**63 - 1)
    with pytest.raises(InvalidOperationError, match="not an integer dtype: 'float32'"):
        dtype_range("float32")


# --- the decision checks what the printers compute (issue 16, bug 3) ----------------------------


def test_index_dtype_checks_the_printed_ceildiv_numerator() -> None:
    """``CeilDiv(x, 4096)`` prints as ``(x + 4095) // 4096``: ``x + 4095`` must fit too.  At
    x = 2147482621 (< 2147482624) the int32 code would give -524287; the value is 524288."""
    x = ia.Symbol("x")
    d = index_dtype([ia.CeilDiv(x, 4096)], ranges={"x": 2147482624})
    assert d.dtype == "int64"
    assert "x + 4095" in d.reason
    # with room for the numerator, int32 is right
    assert index_dtype([ia.CeilDiv(x, 4096)], ranges={"x": 2**31 - 4095}).dtype == "int32"
    assert index_dtype([ia.CeilDiv(x, 4096)], ranges={"x": 2**31 - 4094}).dtype == "int64"


@pytest.mark.parametrize(
    ("text", "size", "value"),
    [
        # Mod through ia_mod: r + b is computed on every lane (tl.where): |2*b| must fit
        ("Mod(x, y)", 2**30 + 1, "2*y"),
        # ModularIndexing of a signed operand: ia_mod(ia_floordiv(a, d), m)
        ("ModularIndexing(x - 5, 1, y)", 2**30 + 1, "2*y"),
        # ia_floordiv computes q - 1
        ("FloorDiv(x, y)", 2**31 - 1, "x // y - 1"),
    ],
)
def test_index_dtype_checks_the_helpers_intermediates(text: str, size: int, value: str) -> None:
    e = ia.parse(text)
    assert ia.parse(value) in intermediates(e)
    d = index_dtype([e], ranges={"x": (-(2**31), 2**31 - 1), "y": (1, size)})
    assert d.dtype == "int64"


def test_computed_values_cover_both_lowerings() -> None:
    """Native (a known non-negative dividend) and helper lowerings are both covered."""
    from indexalg.printing.common import computed_values
    from indexalg.printing.triton import TRITON_TABLE

    vals = computed_values(ia.parse("CeilDiv(x, 8) + Mod(y, 3)"), TRITON_TABLE, "Triton")
    for v in ["x + 7", "(x + 7) // 8", "x // 8", "CeilDiv(x, 8) + 1", "y // 3"]:
        assert ia.parse(v) in vals, v
