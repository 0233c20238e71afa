"""The spec's elementwise table (indexalg_triton.spec.ELEMENTWISE) is the one source that
spec validation, value emission and the front end read: every kind has a Triton form (or is
written by the code generator itself), every torch name of a kind has that converter, and a
kernel of each kind generates."""

from __future__ import annotations

import pytest

from indexalg_triton.codegen import generate
from indexalg_triton.codegen.helpers import HELPERS
from indexalg_triton.errors import SpecError
from indexalg_triton.frontend.convert_math import KINDS
from indexalg_triton.frontend.registry import CONVERTERS
from indexalg_triton.layout import View
from indexalg_triton.spec import ELEMENTWISE, FLOAT_MATH, SpecBuilder

FAMILIES = {"arith", "math", "compare", "integer", "logic", "select", "cast"}


def test_every_row_is_well_formed() -> None:
    for kind, e in ELEMENTWISE.items():
        assert e.family in FAMILIES, kind
        assert e.arity in (1, 2, 3), kind
        if e.triton:
            assert e.triton.format(*(f"a{i}" for i in range(e.arity))) != e.triton, kind
        else:
            assert kind in ("where", "cast"), kind
    assert {k for k, e in ELEMENTWISE.items() if e.family == "math"} == FLOAT_MATH
    for kind, e in ELEMENTWISE.items():  # a helper a Triton form calls is one codegen has
        assert (e.helper in HELPERS and f"{e.helper}(" in e.triton) if e.helper else True, kind


def test_every_torch_name_converts_to_its_kind() -> None:
    for kind, e in ELEMENTWISE.items():
        for op in e.torch:
            assert KINDS[op] == kind
            assert op in CONVERTERS, op


def _spec(kind: str) -> SpecBuilder:
    e = ELEMENTWISE[kind]
    b = SpecBuilder(f"k_{kind}", loops=[("x0", 8)])
    dtype = "int32" if e.family in ("integer",) else "bool" if e.family == "logic" else "float32"
    b.buffer("a", View.of([8], dtype=dtype))
    b.buffer("out", View.of([8], dtype="bool" if e.family == "compare" else dtype), output=True)
    return b


@pytest.mark.parametrize("kind", [k for k in ELEMENTWISE if k != "cast"])
def test_each_kind_generates(kind: str) -> None:
    e = ELEMENTWISE[kind]
    b = _spec(kind)
    a = b.load("a", "x0")
    args = [b.op("gt", a, 0)] if kind == "where" else []
    args += [a] * (e.arity - len(args))
    b.store("out", "x0", b.op(kind, *args))
    src = generate(b.build()).source
    if e.triton:  # its operator or function: the form's text before its first operand
        head = e.triton.split("{0}")[0] or e.triton.split("{0}")[1].split("{1}")[0]
        assert head.strip() in src, (kind, head)


def test_a_wrong_operand_count_is_a_spec_error() -> None:
    b = _spec("add")
    a = b.load("a", "x0")
    with pytest.raises(SpecError, match="takes 2 operands, got 1"):
        b.store("out", "x0", b.op("add", a))
        b.build()
