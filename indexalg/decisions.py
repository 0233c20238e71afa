"""Backend-neutral code-generation decisions that rest on proofs.

* :func:`index_dtype` -- 32- or 64-bit indexing for a kernel: int32 exactly when every index
  expression, every intermediate value and every size is proven to lie in
  [-2^31, 2^31 - 1], together with the guards the caller must install where the proof relied
  on size hints (simplified and deduplicated);
* :func:`arg_dtype` -- i32 or i64 for an integer argument of a user-defined kernel, by its
  value range (the same rule);
* :func:`bounds_checks` -- for an index loaded from memory (indirect indexing), which of the
  asserts ``0 <= index`` and ``index < size`` are needed; proven ones are omitted.

"Intermediate values" are the values a straightforward evaluation computes: every integer
subexpression (every node, including the operands of ``Where`` conditions) and the partial
sums and products of the canonical evaluation order (``t1 + t2``, ``t1 + t2 + t3``, ...;
``c*f1``, ``c*f1*f2``, ...), and every value the C and Triton printers' code computes
(:func:`indexalg.printing.common.computed_values`): their lowerings (``CeilDiv(x, 4096)``
prints as ``(x + 4095) // 4096``, so ``x + 4095`` is checked) and the values inside the
floor-semantics helpers.

Size hints.  A symbolic size (``s0``) has no numeric bound of its own; Inductor compiles for
the sizes it has seen (*hints*) and guards on them.  With ``size_hints={"s0": 1024}``, a value
whose bound is symbolic (``s0*s1 - 1``) is accepted when the bound holds at the hints, and the
claim ``s0*s1 - 1 <= 2147483647`` (normalised, e.g. ``s0*s1 <= 2147483648``) becomes a guard.
Without a hint for every symbol of the bound (an unbacked size), the answer is int64.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, Union

from indexalg._bigint import int_summary
from indexalg.analysis import bounds
from indexalg.errors import ExprTypeError, IndexAlgError, InvalidOperationError
from indexalg.evaluate import evaluate
from indexalg.expr import (
    Add,
    And,
    Expr,
    Integer,
    Le,
    Lt,
    Mul,
    Not,
    Or,
    add,
    as_expr,
    integer,
    mul,
    true,
)
from indexalg.parse import parse
from indexalg.printing.c import C_TABLE
from indexalg.printing.common import computed_values
from indexalg.printing.triton import TRITON_TABLE
from indexalg.prove import DEFAULT_RLIMIT, Proof, prove
from indexalg.ranges import Ranges, RangesLike, as_ranges
from indexalg.simplify import simplify

__all__ = [
    "INT32_MIN",
    "INT32_MAX",
    "INT64_MIN",
    "INT64_MAX",
    "DTYPE_RANGES",
    "IndexDtypeDecision",
    "ArgDtypeDecision",
    "BoundsCheckDecision",
    "index_dtype",
    "arg_dtype",
    "bounds_checks",
    "dtype_range",
    "intermediates",
]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

#: Inclusive value ranges of the integer dtypes an index may be loaded as.
DTYPE_RANGES: dict[str, tuple[int, int]] = {
    "bool": (0, 1),
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (INT32_MIN, INT32_MAX),
    "uint32": (0, 2**32 - 1),
    "int64": (INT64_MIN, INT64_MAX),
    "uint64": (0, 2**64 - 1),
}

SizeLike = Union[Expr, int, str]
#: How many guards the subsumption pass compares (it asks the prover per guard).
_SUBSUMPTION_LIMIT = 16


def dtype_range(dtype: str) -> tuple[int, int]:
    """The inclusive value range of an integer dtype (``"int64"``, ``"torch.int32"``, ...)."""
    name = dtype.removeprefix("torch.").removeprefix("tl.")
    try:
        return DTYPE_RANGES[name]
    except KeyError:
        raise InvalidOperationError(
            f"not an integer dtype: {dtype!r} (known: {', '.join(DTYPE_RANGES)})"
        ) from None


def _as_int_expr(value: SizeLike, what: str) -> Expr:
    if isinstance(value, str):
        value = parse(value)
    e = as_expr(value)
    if e.is_bool:
        raise ExprTypeError(f"{what} must be an integer expression, got the claim {e}")
    return e


# --- intermediate values ----------------------------------------------------------------------


def intermediates(e: Expr) -> list[Expr]:
    """Every integer value computed while evaluating ``e`` (see the module docstring), each
    once, in a deterministic order (pre-order, partial results after their node)."""

    out: dict[Expr, None] = {}
    for node in e.walk():
        if node.is_bool:
            continue
        out[node] = None
        if type(node) is Add and len(node.args) + (node.payload != 0) > 2:
            acc = node.args[0]
            for t in node.args[1:]:
                acc = add(acc, t)
                out[acc] = None
        elif type(node) is Mul and len(node.args) > 1:
            acc = mul(node.payload, node.args[0])
            out[acc] = None
            for f in node.args[1:-1]:
                acc = mul(acc, f)
                out[acc] = None
    # What the printers really compute: their lowerings rewrite some nodes (CeilDiv(x, c)
    # as (x + (c - 1)) // c, a floor remainder through a helper that adds the divisor), so
    # every value of the C and Triton code is checked, not only the tree's.
    for v in computed_values(e, TRITON_TABLE, "Triton"):
        out[v] = None
    for v in computed_values(e, C_TABLE, "C"):
        out[v] = None
    return list(out)


# --- the int32 check of one value ---------------------------------------------------------------


@dataclass
class _Check:
    ranges: Ranges
    hints: dict[str, int]
    rlimit: int
    guards: dict[Expr, None]
    failure: str = ""

    def fits(self, v: Expr, lo_limit: int, hi_limit: int) -> bool:
        """Record guards and return True when v is proven within the limits (with hints)."""

        lo, hi = bounds(v, self.ranges)
        return self._side(v, hi, hi_limit, upper=True) and self._side(v, lo, lo_limit, upper=False)

    def _side(self, v: Expr, b: Expr | None, limit: int, *, upper: bool) -> bool:
        if b is not None and type(b) is Integer:
            value: int = b.payload
            if value <= limit if upper else value >= limit:
                return True
        claim = Le(v, limit) if upper else Le(limit, v)
        if prove(claim, self.ranges, rlimit=self.rlimit).proved:
            return True
        if b is None and v.free_symbols and all(s.payload in self.hints for s in v.free_symbols):
            b = v  # a value over hinted sizes only is its own symbolic bound
        if b is None or type(b) is Integer:
            side = "above" if upper else "below"
            self.failure = f"{v} is not proven within [{INT32_MIN}, {INT32_MAX}] ({side})"
            return False
        names = sorted(str(s.payload) for s in b.free_symbols)
        missing = [n for n in names if n not in self.hints]
        if missing:
            self.failure = (
                f"the bound {b} of {v} depends on {', '.join(missing)} with no size hint (unbacked)"
            )
            return False
        try:
            at_hints = int(evaluate(b, self.hints))
        except IndexAlgError as err:
            self.failure = f"the bound {b} of {v} cannot be evaluated at the hints: {err}"
            return False
        if (at_hints > limit) if upper else (at_hints < limit):
            self.failure = f"at the size hints, {v} reaches {int_summary(at_hints)}, beyond int32"
            return False
        guard = _normalise_guard(Le(b, limit) if upper else Le(limit, b), self.ranges)
        if guard is not true:
            self.guards[guard] = None
        return True


def _normalise_guard(claim: Expr, ranges: Ranges) -> Expr:
    """``a + c <= k`` as ``a <= k - c`` (constants on the right), then the simplifier's
    form under the ranges."""
    a, b = claim.args
    make = Lt.make if type(claim) is Lt else Le.make
    if type(b) is Integer and type(a) is Add and a.payload:
        claim = make(add(a, -a.payload), b.payload - a.payload)
    elif type(a) is Integer and type(b) is Add and b.payload:
        claim = make(a.payload - b.payload, add(b, -b.payload))
    out: Expr = simplify(claim, ranges)
    return out


def _deduplicate(guards: list[Expr], ranges: Ranges, rlimit: int) -> list[Expr]:
    """Drop guards implied by the others under the ranges (first the weakest)."""

    kept = sorted(guards, key=lambda g: g.key)
    if len(kept) > _SUBSUMPTION_LIMIT:
        return kept
    i = 0
    while i < len(kept):
        others = kept[:i] + kept[i + 1 :]
        if others:
            implied = Or.make(Not.make(And.make(*others)), kept[i])
            if prove(implied, ranges, rlimit=rlimit, tiers=("interval", "z3")).proved:
                del kept[i]
                continue
        i += 1
    return kept


# --- index dtype -----------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexDtypeDecision:
    """``dtype`` is ``"int32"`` or ``"int64"``; ``guards`` are claims over size symbols the
    caller must install for the int32 choice to be valid (empty when it holds
    unconditionally, and for int64); ``reason`` says why."""

    dtype: Literal["int32", "int64"]
    guards: tuple[Expr, ...] = ()
    reason: str = ""

    @property
    def is_int32(self) -> bool:
        return self.dtype == "int32"


def _sizes(numel: SizeLike | Iterable[SizeLike] | None) -> list[SizeLike]:
    if numel is None:
        return []
    if isinstance(numel, (Expr, int, str)):
        return [numel]
    return list(numel)


def _hints(size_hints: Mapping[str, int] | Mapping[Expr, int] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for k, v in (size_hints or {}).items():
        name = k if isinstance(k, str) else str(k.payload) if isinstance(k, Expr) else None
        if name is None or isinstance(v, bool) or not isinstance(v, int):
            raise ExprTypeError(f"size_hints maps symbol names to ints, got {k!r}: {v!r}")
        out[name] = v
    return out


def index_dtype(
    exprs: Iterable[SizeLike],
    *,
    ranges: RangesLike = None,
    numel: SizeLike | Iterable[SizeLike] | None = None,
    buffer_sizes: Iterable[SizeLike] = (),
    size_hints: Mapping[str, int] | Mapping[Expr, int] | None = None,
    rlimit: int = DEFAULT_RLIMIT,
) -> IndexDtypeDecision:
    """int32 or int64 indexing for a kernel (see the module docstring).

    ``exprs``: the kernel's index expressions; ``ranges``: its loop variables' (and sizes')
    ranges; ``numel``: the iteration space size(s); ``buffer_sizes``: the storage sizes (in
    elements) of the buffers it indexes; ``size_hints``: the sizes the kernel is compiled for,
    by symbol name.  Every value must lie in [-2^31, 2^31 - 1]; a size must itself be at most
    2^31 - 1.
    """
    r = as_ranges(ranges)
    check = _Check(r, _hints(size_hints), rlimit, {})
    values: dict[Expr, None] = {}
    for i, x in enumerate(exprs):
        for v in intermediates(_as_int_expr(x, f"index expression {i}")):
            values[v] = None
    sizes = [_as_int_expr(s, "numel") for s in _sizes(numel)]
    sizes += [_as_int_expr(s, "buffer size") for s in buffer_sizes]
    for s in sizes:
        for v in intermediates(s):
            values[v] = None
    for v in values:
        if type(v) is Integer:
            if not INT32_MIN <= v.payload <= INT32_MAX:
                return IndexDtypeDecision("int64", (), f"the constant {v} does not fit in int32")
            continue
        if not check.fits(v, INT32_MIN, INT32_MAX):
            return IndexDtypeDecision("int64", (), check.failure)
    guards = _deduplicate(list(check.guards), r, rlimit)
    if guards:
        why = f"int32 under {len(guards)} guard{'s' if len(guards) > 1 else ''} on the size hints"
    else:
        why = f"all {len(values)} values proven within int32"
    return IndexDtypeDecision("int32", tuple(guards), why)


# --- integer arguments of user-defined kernels ---------------------------------------------------


@dataclass(frozen=True)
class ArgDtypeDecision:
    """``dtype`` is ``"i32"`` or ``"i64"`` (Triton's signature names); ``guards`` as for
    :class:`IndexDtypeDecision`."""

    dtype: Literal["i32", "i64"]
    guards: tuple[Expr, ...] = ()
    reason: str = ""


def arg_dtype(
    value: SizeLike | tuple[int | None, int | None],
    *,
    ranges: RangesLike = None,
    size_hints: Mapping[str, int] | Mapping[Expr, int] | None = None,
    rlimit: int = DEFAULT_RLIMIT,
) -> ArgDtypeDecision:
    """i32 when the argument's value is proven within [-2^31, 2^31 - 1], else i64.

    ``value`` is an int, an expression (a symbolic size, an unbacked symbol) evaluated under
    ``ranges`` and ``size_hints``, or an inclusive value range ``(lo, hi)`` with None for an
    unknown side.  An argument whose range cannot be checked (unbacked, no hint) is i64.
    """
    if isinstance(value, tuple):
        if len(value) != 2:
            raise InvalidOperationError(f"a value range is (lo, hi), got {value!r}")
        lo, hi = value
        for b in (lo, hi):
            if b is not None and (isinstance(b, bool) or not isinstance(b, int)):
                raise ExprTypeError(f"a value range bound must be an int or None, got {b!r}")
        if lo is None or hi is None:
            return ArgDtypeDecision("i64", (), "the value range is unbounded")
        if lo > hi:
            raise InvalidOperationError(f"empty value range ({lo}, {hi})")
        if lo >= INT32_MIN and hi <= INT32_MAX:
            return ArgDtypeDecision("i32", (), f"[{lo}, {hi}] fits in int32")
        return ArgDtypeDecision("i64", (), f"[{lo}, {hi}] does not fit in int32")
    d = index_dtype([value], ranges=ranges, size_hints=size_hints, rlimit=rlimit)
    return ArgDtypeDecision("i32" if d.is_int32 else "i64", d.guards, d.reason)


# --- bounds checks for indirect indexing --------------------------------------------------------


@dataclass(frozen=True)
class BoundsCheckDecision:
    """Which asserts an indirect index needs.

    ``lower`` / ``upper``: whether ``0 <= index`` / ``index < size`` must be asserted;
    ``asserts``: the claims to emit (lower first), empty when both are proven;
    ``lower_proof`` / ``upper_proof``: the prover's answers (a disproved side carries a
    counterexample: that access can really go out of bounds).
    """

    index: Expr
    size: Expr
    lower: bool
    upper: bool
    asserts: tuple[Expr, ...]
    lower_proof: Proof
    upper_proof: Proof

    @property
    def needed(self) -> bool:
        return bool(self.asserts)


def bounds_checks(
    index: SizeLike,
    size: SizeLike,
    *,
    ranges: RangesLike = None,
    rlimit: int = DEFAULT_RLIMIT,
) -> BoundsCheckDecision:
    """Decide the bounds asserts for ``index`` into a dimension of ``size`` elements.

    ``index`` is typically a symbol loaded from memory, ranged by its dtype
    (``ranges={"i": dtype_range("int64")}``) or by a known value range, possibly wrapped
    for negative indices as ``Where(i < 0, i + size, i)``.  A side whose claim is proved under
    ``ranges`` is omitted; an unknown or disproved side is asserted.
    """
    i = _as_int_expr(index, "index")
    n = _as_int_expr(size, "size")
    r = as_ranges(ranges)
    lower_claim = Le(integer(0), i)
    upper_claim = Lt(i, n)
    lower_proof = prove(lower_claim, r, rlimit=rlimit)
    upper_proof = prove(upper_claim, r, rlimit=rlimit)
    asserts: list[Expr] = []
    if not lower_proof.proved:
        asserts.append(lower_claim)
    if not upper_proof.proved:
        asserts.append(upper_claim)
    return BoundsCheckDecision(
        index=i,
        size=n,
        lower=not lower_proof.proved,
        upper=not upper_proof.proved,
        asserts=tuple(asserts),
        lower_proof=lower_proof,
        upper_proof=upper_proof,
    )
