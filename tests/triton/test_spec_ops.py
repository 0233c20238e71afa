"""Typed spec ops: one class per kind family, each with only the fields it uses, checked when
it is built; the builder makes them, the spec checks what needs the rest of the kernel."""

from __future__ import annotations

import dataclasses

import pytest

from indexalg.errors import ExprTypeError
from indexalg.expr import Symbol
from indexalg.parse import parse
from indexalg_triton.errors import SpecError
from indexalg_triton.layout import View
from indexalg_triton.spec import (
    ELEMENTWISE,
    Buffer,
    Check,
    ElementwiseOp,
    IndexValue,
    KernelSpec,
    Load,
    MultiReduction,
    Op,
    Reduction,
    SpecBuilder,
    Store,
)

FIELDS = {
    Load: ["name", "dtype", "buffer", "index", "guard"],
    IndexValue: ["name", "dtype", "index"],
    Check: ["name", "value", "size"],
    ElementwiseOp: ["name", "kind", "args", "dtype"],
    Reduction: ["name", "kind", "value", "dtype"],
    MultiReduction: ["name", "kind", "value", "dtype", "results"],
}


@pytest.mark.parametrize("cls", list(FIELDS))
def test_each_class_takes_only_its_fields(cls: type[Op]) -> None:
    assert [f.name for f in dataclasses.fields(cls) if f.init] == FIELDS[cls]  # type: ignore[arg-type]


def test_the_builder_makes_typed_ops() -> None:
    b = SpecBuilder("k", loops=[("x0", 8)], reduction=("r0", 4))
    b.buffer("a", View.of([8, 4]))
    b.buffer("i", View.of([4], dtype="int64"))
    b.buffer("out", View.of([8]), output=True)
    b.buffer("m", View.of([8]), output=True)
    idx = b.load("i", "r0")
    b.check(idx, 4)
    x = b.load("a", f"4*x0 + {idx}")
    y = b.op("mul", x, b.op("cast", b.index("x0 + r0"), dtype="float32"))
    b.store("out", "x0", b.reduce("sum", y))
    mean, _ = b.multi("mean_var", y)
    b.store("m", "x0", mean)
    spec = b.build()
    assert [type(o).__name__ for o in spec.ops] == [
        "Load",
        "Check",
        "Load",
        "IndexValue",
        "ElementwiseOp",
        "ElementwiseOp",
        "Reduction",
        "MultiReduction",
    ]
    assert [o.kind for o in spec.ops] == [
        "load",
        "check",
        "load",
        "index",
        "cast",
        "mul",
        "sum",
        "mean_var",
    ]
    check = spec.ops[1]
    assert isinstance(check, Check) and check.args == (idx,) and check.dtype == "bool"
    assert spec.indirect_symbols(spec.ops[2]) == (idx,)
    assert spec.op(mean).values == (f"{spec.ops[-1].name}_mean", f"{spec.ops[-1].name}_var")
    assert hash(spec) == hash(b.build())  # ops are frozen records: specs cache by value


def test_subs_rewrites_index_expressions() -> None:
    load = Load("t", "float32", "a", parse("x0 + r0"), parse("r0 < 3"))
    moved = load.subs({Symbol("r0"): Symbol("x0")})
    assert str(moved.index) == "2*x0" and moved.guard is not None
    assert Check("c", "t", 4).subs({Symbol("x0"): Symbol("r0")}) == Check("c", "t", 4)


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: ElementwiseOp("t", "cumsum", ("a",), "float32"), SpecError, "unknown op kind"),
        (lambda: ElementwiseOp("t", "add", ("a",), "float32"), SpecError, "takes 2 operands"),
        (lambda: ElementwiseOp("t", "add", ("a", 1), "complex"), Exception, "complex"),
        (lambda: Reduction("t", "mean", "a", "float32"), SpecError, "unknown reduction"),
        (lambda: MultiReduction("t", "median", "a", "float32", ()), SpecError, "multi-output"),
        (lambda: Check("t", "a", 0), SpecError, "size >= 1"),
        (lambda: Load("t", "float32", "a", parse("x0"), parse("x0 + 1")), ExprTypeError, "claim"),
        (lambda: Load("1t", "float32", "a", parse("x0")), SpecError, "usable identifier"),
        (lambda: IndexValue("t", "int64", "x0"), SpecError, "index expression"),  # type: ignore[arg-type]
    ],
)
def test_an_op_is_checked_when_built(make: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        make()  # type: ignore[operator]


def test_the_spec_checks_what_needs_the_kernel() -> None:
    loops = (("x0", 4),)
    a = View.of([4])
    buffers = (Buffer("a", a), Buffer("out", a, True))
    store = (Store("out", parse("x0"), "t0"),)
    with pytest.raises(SpecError, match="names no buffer"):
        KernelSpec("k", loops, None, buffers, (Load("t0", "float32", "b", parse("x0")),), store)
    with pytest.raises(SpecError, match="reads the output"):
        KernelSpec("k", loops, None, buffers, (Load("t0", "float32", "out", parse("x0")),), store)
    with pytest.raises(SpecError, match="before it is defined"):
        KernelSpec(
            "k", loops, None, buffers, (ElementwiseOp("t0", "neg", ("u",), "float32"),), store
        )
    with pytest.raises(SpecError, match="no reduction"):
        load = Load("t1", "float32", "a", parse("x0"))
        KernelSpec(
            "k", loops, None, buffers, (load, Reduction("t0", "sum", "t1", "float32")), store
        )
    with pytest.raises(SpecError, match="is not an op"):
        KernelSpec("k", loops, None, buffers, ("t0",), store)  # type: ignore[arg-type]


def test_every_elementwise_kind_is_a_row_of_the_one_table() -> None:
    for kind, row in ELEMENTWISE.items():
        ElementwiseOp("t", kind, ("a",) * row.arity, "bool" if row.family == "logic" else "int32")
