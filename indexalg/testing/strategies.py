"""Hypothesis strategies for index expressions, their ranges, points inside the ranges and
claims.

These are the tools indexalg uses to fuzz itself, public so that you can fuzz your own
simplification rules the same way::

    from hypothesis import given, strategies as st
    from indexalg.testing.strategies import assignments, exprs, ranges

    @given(st.data())
    def test_my_rules_keep_values(data):
        e = data.draw(exprs(variables=("x", "y"), sizes=("s0",)))
        r = data.draw(ranges(("x", "y"), sizes=("s0",)))
        point = data.draw(assignments(r, variables=e.free_symbols))
        ...

Every strategy checks its arguments the way Hypothesis checks its own: a bad argument raises
:class:`hypothesis.errors.InvalidArgument` the first time the strategy is used (drawn from
or validated), not when it is built.  Every strategy generates well-formed values only:
expressions built through indexalg's constructors (a literal divisor is never zero, a
literal ModularIndexing divisor and modulus are at least 1), ranges that
:func:`indexalg.ranges.as_ranges` accepts, and points that lie inside their ranges.

**Undefined points.**  A symbolic divisor (``x // s0``, ``ModularIndexing(x, 1, y)``) can be
zero or, for ModularIndexing, below 1 at some points, where the expression has no value (the
evaluator raises).  :func:`assignments` does not know the expression and does not avoid such
points.  indexalg's policy, used by its own property tests: a transformation must preserve
the value at every in-range point *where its input evaluates without error*; at such a point
its output must evaluate without error too.  Points where the input has no value are
skipped.  When ``sizes`` are given, symbolic divisors are drawn from the sizes, and
:func:`ranges` keeps sizes at least 1, so generated expressions are then defined everywhere.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from indexalg.errors import IndexAlgError
from indexalg.evaluate import evaluate
from indexalg.expr import (
    OP_RECORDS,
    And,
    CeilDiv,
    CleanDiv,
    Eq,
    Expr,
    FloorDiv,
    Le,
    Lt,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Ne,
    Not,
    Or,
    Symbol,
    Where,
    add,
    integer,
    mul,
)
from indexalg.ops import RECORDS, VARIADIC
from indexalg.ranges import Ranges, RangeSpec, as_ranges
from indexalg.testing.oracles import resolution_order

__all__ = ["OPS", "assignments", "claims", "exprs", "ranges"]

T = TypeVar("T")

_CLASSES: dict[str, type[Expr]] = {cls.__name__: cls for cls, _ in OP_RECORDS}

#: The operations :func:`exprs` and :func:`claims` may build, by name: every integer op of
#: :mod:`indexalg.ops` but the leaves, in the order of its records, the order examples shrink
#: through (a failing ``Where`` example is tried again as a sum first).
OPS: tuple[str, ...] = tuple(
    op.name
    for op in RECORDS
    if op.name in _CLASSES and op.arity != 0 and not _CLASSES[op.name].is_bool
)

_OP_CLASSES: dict[type[Expr], str] = {_CLASSES[name]: name for name in OPS}

_DEFAULT_VARIABLES = ("x", "y", "z")

# Each choice below is a single draw from a table (drawing is most of a campaign's cost).
# Literal divisors and moduli: examples shrink towards 1; then the powers of two, odd sizes
# and primes that Inductor's shapes produce.
_DIVISOR_VALUES = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256, 1024, 12, 24, 197)
_DIVISORS: SearchStrategy[int] = st.sampled_from(_DIVISOR_VALUES)
# A divisor where the op allows any sign: mostly positive literals, sometimes negative ones
# (the ints below 0), sometimes symbolic (None).
_SIGNED = (*_DIVISOR_VALUES, -1, -2, -3, -8, -64, None, None, None, None)
_UNSIGNED = (*_DIVISOR_VALUES, None, None, None, None)
# Constants (leaves, offsets): examples shrink towards 0.
_CONSTANT_VALUES = (
    *(0, 1, -1, 2, -2, 3, 4, 5, 7, 8, -8),
    *(16, 32, 64, 128, 197, 256, 1024, 4096, -64, -1024),
)
_CONSTANTS: SearchStrategy[int] = st.sampled_from(_CONSTANT_VALUES)
# Coefficients of terms in sums (strides): examples shrink towards 1.
_COEFFS: SearchStrategy[int] = st.sampled_from(
    (1, 2, -1, 3, 4, -2, 5, 8, 16, 32, 64, 128, 197, 256, 1024, 4096, -4)
)
# Range sizes (0 <= v < n): examples shrink towards 1.
_SIZES = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 3, 7, 197)


# --- argument checking, as Hypothesis does it ---------------------------------------------


def _check_type(typ: type | tuple[type, ...], arg: object, name: str) -> None:
    # bool is an int subclass; like Hypothesis, refuse True where a number belongs.
    if not isinstance(arg, typ) or (typ is int and isinstance(arg, bool)):
        want = (
            "one of " + ", ".join(t.__name__ for t in typ)
            if isinstance(typ, tuple)
            else typ.__name__
        )
        raise InvalidArgument(f"Expected {want} but got {name}={arg!r} (type={type(arg).__name__})")


def _check_int_at_least(value: object, least: int, name: str) -> int:
    _check_type(int, value, name)
    assert isinstance(value, int)
    if value < least:
        raise InvalidArgument(f"Invalid {name}={value!r} < {least}")
    return value


def _check_strategy(arg: object, name: str) -> None:
    if not isinstance(arg, SearchStrategy):
        raise InvalidArgument(
            f"Expected a SearchStrategy but got {name}={arg!r} (type={type(arg).__name__})"
        )


def _symbol_names(value: object, name: str, *, allow_empty: bool) -> tuple[str, ...]:
    """Names from a sequence of names or Symbols: identifiers, no repeats."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidArgument(
            f"Expected a sequence of symbol names but got {name}={value!r} "
            f"(type={type(value).__name__}); write {name}=({value!r},) for one name"
        )
    names: list[str] = []
    for item in value:
        if isinstance(item, Expr) and type(item) is Symbol:
            text: str = item.payload
        elif isinstance(item, str) and item.isidentifier():
            text = item
        else:
            raise InvalidArgument(f"{name} must hold symbol names, got {item!r} in {name}")
        if text in names:
            raise InvalidArgument(f"{name}={value!r} names {text!r} twice")
        names.append(text)
    if not names and not allow_empty:
        raise InvalidArgument(f"{name}={value!r} must name at least one symbol")
    return tuple(names)


def _check_ops(value: object) -> tuple[str, ...]:
    if value is None:
        return OPS
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidArgument(
            f"Expected a collection of operations but got ops={value!r} "
            f"(type={type(value).__name__})"
        )
    chosen: set[str] = set()
    for op in value:
        if isinstance(op, str) and op in OPS:
            chosen.add(op)
        elif isinstance(op, type) and op in _OP_CLASSES:
            chosen.add(_OP_CLASSES[op])
        else:
            raise InvalidArgument(f"ops={value!r} holds {op!r}, which is not one of {OPS}")
    return tuple(o for o in OPS if o in chosen)


def _lazy(call: str, build: Callable[[], SearchStrategy[T]]) -> SearchStrategy[T]:
    """A strategy that runs ``build`` (argument checks included) on first use."""

    def definition() -> SearchStrategy[T]:
        return build()

    definition.__name__ = definition.__qualname__ = call
    return st.deferred(definition)


def _call_text(name: str, args: Sequence[tuple[str, object, object]]) -> str:
    """``name(a=1, b=2)`` listing only arguments that differ from their defaults."""
    shown = [f"{k}={v!r}" for k, v, default in args if v is not default and v != default]
    return f"{name}({', '.join(shown)})"


# --- expressions --------------------------------------------------------------------------


# Small choices, built once (a strategy built inside a draw costs more than the draw).
_FORM3 = st.integers(0, 2)
_FORM4 = st.integers(0, 3)
_ONE_IN_FIVE = st.integers(0, 4)
_SCALE = st.integers(2, 4)
_OFFSET = st.integers(1, 3)
_MULTIPLE = st.integers(1, 4)
_COMPARISONS: tuple[Callable[[Expr, Expr], Expr], ...] = (Lt.make, Le.make, Eq.make, Ne.make)
_COMPARISON = st.sampled_from(_COMPARISONS)
_SIGNED_DIVISOR = st.sampled_from(_SIGNED)
_UNSIGNED_DIVISOR = st.sampled_from(_UNSIGNED)


class _Shapes:
    """What one ``exprs(...)`` call may build: symbols, sizes, operations, constants."""

    def __init__(
        self,
        variables: tuple[str, ...],
        sizes: tuple[str, ...],
        ops: tuple[str, ...],
        constants: SearchStrategy[int],
    ) -> None:
        self.symbols = tuple(Symbol(n) for n in variables + sizes)
        self.ops = ops
        self.constants = constants
        self.symbol = st.sampled_from(self.symbols)
        # Symbolic divisors come from the sizes (positive under ranges()) when there are any.
        self.divisor_symbol = st.sampled_from(tuple(Symbol(n) for n in sizes) or self.symbols)
        self.op = st.sampled_from(ops) if ops else st.nothing()
        self.joins = ("FloorDiv" in ops or "Mod" in ops) and "ModularIndexing" in ops

    def constant(self, draw: st.DrawFn) -> int:
        value = draw(self.constants)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidArgument(f"constants must generate ints, but it generated {value!r}")
        return value

    def leaves(self) -> SearchStrategy[Expr]:
        if self.constants is _CONSTANTS:
            # One draw per leaf: symbols (weighted to about half the leaves), then literals.
            table = [*self.symbols * max(1, len(_CONSTANT_VALUES) // len(self.symbols))]
            return st.sampled_from([*table, *(integer(v) for v in _CONSTANT_VALUES)])
        return st.one_of(self.symbol, _literal(self))

    def symbolic_divisor(self, draw: st.DrawFn) -> Expr:
        """``s``, ``k*s`` or ``s + k`` for a size ``s`` (never a literal)."""
        s = draw(self.divisor_symbol)
        form = draw(_FORM3)
        if form == 1:
            return mul(draw(_SCALE), s)
        if form == 2:
            return add(s, draw(_OFFSET))
        return s

    def divisor(self, draw: st.DrawFn, *, allow_negative: bool) -> Expr:
        """Mostly a positive literal; sometimes negative (where the op allows) or symbolic."""
        value = draw(_SIGNED_DIVISOR if allow_negative else _UNSIGNED_DIVISOR)
        return self.symbolic_divisor(draw) if value is None else integer(value)

    def extend(self, kids: SearchStrategy[Expr]) -> SearchStrategy[Expr]:
        return _node(_Level(self, kids))


class _Level:
    """One level of ``st.recursive``: the subterm strategy and what is built from it."""

    def __init__(self, shapes: _Shapes, kids: SearchStrategy[Expr]) -> None:
        self.shapes = shapes
        self.kids = kids
        self.terms = st.lists(st.tuples(_COEFFS, kids), min_size=1, max_size=3)
        self.operands = st.lists(kids, min_size=2, max_size=3)


@st.composite
def _literal(draw: st.DrawFn, shapes: _Shapes) -> Expr:
    return integer(shapes.constant(draw))


@st.composite
def _node(draw: st.DrawFn, level: _Level) -> Expr:
    name = draw(level.shapes.op)
    build = _BUILDERS.get(name)
    return _build_generic(_CLASSES[name], level, draw) if build is None else build(level, draw)


def _build_generic(cls: type[Expr], level: _Level, draw: st.DrawFn) -> Expr:
    """An op with no builder of its own, from its record: a division's divisors drawn as
    divisors (non-negative for ModularIndexing's kind), every other operand a subterm; an
    n-ary op over two or three subterms."""
    op = cls.op
    if op.arity == VARIADIC:
        return cls.make(*draw(level.operands))
    args = [draw(level.kids) for _ in range(op.arity)]
    if op.division == "binary":
        args[1] = level.shapes.divisor(draw, allow_negative=True)
    elif op.division == "indexing":
        args[1:] = [level.shapes.divisor(draw, allow_negative=False) for _ in args[1:]]
    return cls.make(*args)


def _build_add(level: _Level, draw: st.DrawFn) -> Expr:
    if level.shapes.joins and draw(_ONE_IN_FIVE) == 4:
        return _build_join(level, draw)
    terms = draw(level.terms)
    return add(level.shapes.constant(draw), *(mul(c, t) for c, t in terms))


def _build_join(level: _Level, draw: st.DrawFn) -> Expr:
    """The split-and-rejoin shapes Inductor emits for views of one flat index."""
    shapes = level.shapes
    a = draw(level.kids)
    m = shapes.divisor(draw, allow_negative=False)
    form = draw(_FORM4)
    if form == 0 and "FloorDiv" in shapes.ops:  # m*(a // m) + (a // 1) % m  (== a)
        return add(mul(m, FloorDiv(a, m)), ModularIndexing(a, 1, m))
    if form == 1:  # (a // d) % m1 + m1*((a // (d*m1)) % m2)  (== (a // d) % (m1*m2))
        d = integer(draw(_DIVISORS))
        m2 = shapes.divisor(draw, allow_negative=False)
        return add(ModularIndexing(a, d, m), mul(m, ModularIndexing(a, mul(d, m), m2)))
    if form == 2:  # ModularIndexing(ModularIndexing(a, 1, k*m), 1, m)  (== a % m)
        return ModularIndexing(ModularIndexing(a, 1, mul(draw(_MULTIPLE), m)), 1, m)
    if "Mod" in shapes.ops and "FloorDiv" in shapes.ops:  # m*(a // m) + a % m  (== a)
        return add(mul(m, FloorDiv(a, m)), Mod(a, m))
    return ModularIndexing(a, 1, m)


def _build_mul(level: _Level, draw: st.DrawFn) -> Expr:
    # A term times a symbol (s0*y): products of two sums would grow without bound.
    return mul(draw(level.kids), draw(level.shapes.symbol))


def _divlike(cls: Callable[[Expr, Expr], Expr], *, negative: bool) -> Any:
    def build(level: _Level, draw: st.DrawFn) -> Expr:
        return cls(draw(level.kids), level.shapes.divisor(draw, allow_negative=negative))

    return build


def _build_clean_div(level: _Level, draw: st.DrawFn) -> Expr:
    b = level.shapes.divisor(draw, allow_negative=True)
    a = draw(level.kids)
    # Mostly what producers emit, an exact division; sometimes an inexact one (still defined).
    return CleanDiv(mul(a, b) if draw(_FORM4) != 3 else a, b)


def _build_modular_indexing(level: _Level, draw: st.DrawFn) -> Expr:
    a = draw(level.kids)
    d = level.shapes.divisor(draw, allow_negative=False)
    m = level.shapes.divisor(draw, allow_negative=False)
    return ModularIndexing(a, d, m)


def _build_minmax(cls: Callable[..., Expr]) -> Any:
    def build(level: _Level, draw: st.DrawFn) -> Expr:
        return cls(*draw(level.operands))

    return build


def _build_where(level: _Level, draw: st.DrawFn) -> Expr:
    cmp = draw(_COMPARISON)
    lhs = draw(level.kids)
    rhs = draw(level.kids) if draw(st.booleans()) else integer(level.shapes.constant(draw))
    return Where(cmp(lhs, rhs), draw(level.kids), draw(level.kids))


_BUILDERS: dict[str, Callable[[_Level, st.DrawFn], Expr]] = {
    "Add": _build_add,
    "Mul": _build_mul,
    "FloorDiv": _divlike(FloorDiv, negative=True),
    "ModularIndexing": _build_modular_indexing,
    "Mod": _divlike(Mod, negative=True),
    "CeilDiv": _divlike(CeilDiv, negative=True),
    "CleanDiv": _build_clean_div,
    "Min": _build_minmax(Min),
    "Max": _build_minmax(Max),
    "Where": _build_where,
}


def _shapes(variables: object, sizes: object, ops: object, constants: object) -> _Shapes:
    names = _symbol_names(variables, "variables", allow_empty=False)
    size_names = _symbol_names(sizes, "sizes", allow_empty=True)
    both = sorted(set(names) & set(size_names))
    if both:
        raise InvalidArgument(f"variables and sizes must be disjoint, but both name {both}")
    if constants is None:
        constants = _CONSTANTS
    _check_strategy(constants, "constants")
    assert isinstance(constants, SearchStrategy)
    return _Shapes(names, size_names, _check_ops(ops), constants)


def exprs(
    *,
    variables: Sequence[str | Expr] = _DEFAULT_VARIABLES,
    sizes: Sequence[str | Expr] = (),
    max_leaves: int = 10,
    ops: Iterable[str | type[Expr]] | None = None,
    constants: SearchStrategy[int] | None = None,
) -> SearchStrategy[Expr]:
    """Generates integer-valued index expressions in the shapes ML compilers emit.

    Leaves are the ``variables``, the ``sizes`` (symbolic sizes such as ``s0``) and integer
    literals drawn from ``constants``.  Inner nodes are built with :func:`st.recursive
    <hypothesis.strategies.recursive>` from the operations named in ``ops`` (default: all of
    :data:`OPS`; names or node classes):

    * ``Add``: sums of scaled terms, ``64*y + x - 1``, and sometimes the split-and-rejoin
      shapes of a flattened index (``ModularIndexing(x, 1, 32) + 32*ModularIndexing(x, 32, 4)``,
      ``197*(x // 197) + ModularIndexing(x, 1, 197)``, nested ModularIndexing with
      dividing moduli) when ``FloorDiv`` or ``Mod`` and ``ModularIndexing`` are enabled;
    * ``Mul``: a term times a symbol, ``s0*y``;
    * ``FloorDiv``, ``Mod``, ``CeilDiv``, ``CleanDiv``: divisors are mostly positive literals,
      sometimes negative literals and sometimes symbolic (``s0``, ``2*s0``, ``s0 + 1``: from
      ``sizes`` when given, else from ``variables``); CleanDiv is mostly an exact division;
    * ``ModularIndexing``: divisor and modulus are literals >= 1 or symbolic (a symbolic
      divisor may be ``2*s0`` or ``s0 + 1``, a product or sum whatever ``ops`` says);
    * ``Min``/``Max`` of two or three subterms; ``Where`` with a comparison condition.

    At most ``max_leaves`` leaves are drawn (``max_leaves >= 1``).  Expressions are built
    through indexalg's constructors, so they are in canonical form and well-formed; they
    may still be undefined at points where a symbolic divisor is zero (see the module
    documentation for the policy).

    Examples shrink towards the first variable alone (``x``), then towards fewer nodes,
    operations earlier in :data:`OPS`, constants towards 0, coefficients towards 1 and
    divisors towards 1.
    """
    call = _call_text(
        "exprs",
        [
            ("variables", variables, _DEFAULT_VARIABLES),
            ("sizes", sizes, ()),
            ("max_leaves", max_leaves, 10),
            ("ops", ops, None),
            ("constants", constants, None),
        ],
    )

    def build() -> SearchStrategy[Expr]:
        shapes = _shapes(variables, sizes, ops, constants)
        leaves = _check_int_at_least(max_leaves, 1, "max_leaves")
        if not shapes.ops:
            return shapes.leaves()
        return st.recursive(shapes.leaves(), shapes.extend, max_leaves=leaves)

    return _lazy(call, build)


def claims(
    *,
    variables: Sequence[str | Expr] = _DEFAULT_VARIABLES,
    sizes: Sequence[str | Expr] = (),
    max_leaves: int = 6,
    max_atoms: int = 3,
    ops: Iterable[str | type[Expr]] | None = None,
    constants: SearchStrategy[int] | None = None,
) -> SearchStrategy[Expr]:
    """Generates claims: comparisons (``<``, ``<=``, ``==``, ``!=``) between expressions from
    :func:`exprs` (same ``variables``, ``sizes``, ``ops``, ``constants``; ``max_leaves`` per
    expression) or between an expression and a constant, combined with ``And``, ``Or`` and
    ``Not`` up to ``max_atoms`` comparisons (``max_atoms >= 1``).

    Comparisons whose sides are both literals fold to ``True``/``False``, so those literal
    claims are generated too.  Examples shrink towards a single comparison of the first
    variable with a constant (``x < 0``).
    """
    call = _call_text(
        "claims",
        [
            ("variables", variables, _DEFAULT_VARIABLES),
            ("sizes", sizes, ()),
            ("max_leaves", max_leaves, 6),
            ("max_atoms", max_atoms, 3),
            ("ops", ops, None),
            ("constants", constants, None),
        ],
    )

    def build() -> SearchStrategy[Expr]:
        shapes = _shapes(variables, sizes, ops, constants)
        leaves = _check_int_at_least(max_leaves, 1, "max_leaves")
        atoms = _check_int_at_least(max_atoms, 1, "max_atoms")
        terms = (
            st.recursive(shapes.leaves(), shapes.extend, max_leaves=leaves)
            if shapes.ops
            else shapes.leaves()
        )

        return st.recursive(_comparison(shapes, terms), _combine, max_leaves=atoms)

    return _lazy(call, build)


@st.composite
def _comparison(draw: st.DrawFn, shapes: _Shapes, terms: SearchStrategy[Expr]) -> Expr:
    cmp = draw(_COMPARISON)
    lhs = draw(terms)
    if draw(st.booleans()):
        return cmp(lhs, draw(terms))
    return cmp(lhs, integer(shapes.constant(draw)))


def _combine(inner: SearchStrategy[Expr]) -> SearchStrategy[Expr]:
    return st.one_of(
        st.builds(And.make, inner, inner),
        st.builds(Or.make, inner, inner),
        st.builds(Not.make, inner),
    )


# --- ranges and points --------------------------------------------------------------------


def ranges(
    variables: Sequence[str | Expr] = _DEFAULT_VARIABLES,
    *,
    sizes: Sequence[str | Expr] = (),
    max_extent: int = 4096,
    allow_negative: bool = True,
    allow_unbounded: bool = True,
) -> SearchStrategy[dict[str, RangeSpec]]:
    """Generates ranges for ``variables`` and ``sizes`` in the forms
    :func:`indexalg.ranges.as_ranges` reads: a dict from each name to its range.

    Each variable gets one of: a size ``n`` (``0 <= v < n``, ``1 <= n <= max_extent``, often
    a power of two or an odd size); an inclusive ``(lo, hi)`` pair, whose ``lo`` may be
    negative when ``allow_negative``; a symbolic size (``"s0"``, ``"2*s0"``, ``"s0 + 1"``) when
    there are ``sizes``; and, when ``allow_unbounded``, a side left open (``(lo, None)``,
    ``(None, hi)``) or no entry at all (any integer).  Each size gets ``(1, hi)`` or ``(2, hi)``
    with ``hi <= max_extent``, or ``(1, None)``/``(2, None)`` when ``allow_unbounded``; sizes
    are always at least 1.  Keys are in the order variables, then sizes.

    ``max_extent >= 1``.  Examples shrink towards no entry for the variables (so a failing
    example keeps only the ranges it needs) and sizes ``(1, None)``; without
    ``allow_unbounded``, towards variables of size 1 (``{"x": 1}``) and sizes ``(1, 1)``.
    """
    call = _call_text(
        "ranges",
        [
            ("variables", variables, _DEFAULT_VARIABLES),
            ("sizes", sizes, ()),
            ("max_extent", max_extent, 4096),
            ("allow_negative", allow_negative, True),
            ("allow_unbounded", allow_unbounded, True),
        ],
    )

    def build() -> SearchStrategy[dict[str, RangeSpec]]:
        names = _symbol_names(variables, "variables", allow_empty=True)
        size_names = _symbol_names(sizes, "sizes", allow_empty=True)
        both = sorted(set(names) & set(size_names))
        if both:
            raise InvalidArgument(f"variables and sizes must be disjoint, but both name {both}")
        extent = _check_int_at_least(max_extent, 1, "max_extent")
        _check_type(bool, allow_negative, "allow_negative")
        _check_type(bool, allow_unbounded, "allow_unbounded")
        config = _RangeConfig(names, size_names, extent, allow_negative, allow_unbounded)
        return _range_table(config)

    return _lazy(call, build)


class _RangeConfig:
    def __init__(
        self,
        names: tuple[str, ...],
        sizes: tuple[str, ...],
        extent: int,
        negative: bool,
        unbounded: bool,
    ) -> None:
        self.names = names
        self.sizes = sizes
        self.negative = negative
        self.unbounded = unbounded
        self.size = st.one_of(
            st.integers(1, extent), st.sampled_from([n for n in _SIZES if n <= extent] or [1])
        )
        self.offset = st.integers(0, extent)
        self.span = st.integers(0, extent - 1)
        self.top = st.integers(1, extent)
        self.kind = st.integers(0, 1 + (1 if sizes else 0) + (1 if unbounded else 0))
        self.size_name = st.sampled_from(sizes) if sizes else st.nothing()
        # Most ranges come from these tables in one draw (drawing is what a campaign
        # spends its time on); the rest (_CUSTOM) are drawn piece by piece.
        # No entry (any integer) first: a failing example keeps only the ranges it needs.
        table: list[object] = [None] if unbounded else []
        table += [n for n in _SIZES_FIRST if n <= extent]
        if negative:
            table += [(lo, hi) for lo, hi in _SIGNED_RANGES if -lo <= extent]
        for name in sizes:
            table += [name, f"2*{name}", f"{name} + 1"]
        if unbounded:
            table += [(0, None), (None, -1), (-8, None)]
        self.variable = st.sampled_from(table + [_CUSTOM] * max(1, len(table) // 2))
        sized: list[object] = [(1, None), (2, None)] if unbounded else []
        sized += [(1, hi) for hi in (1, 2, 8, 64, 197, 1024) if hi <= extent]
        self.size_spec = st.sampled_from(sized + [_CUSTOM] * max(1, len(sized) // 2))


_LOWER = st.integers(1, 2)


_CUSTOM = "custom"
_SIZES_FIRST = (1, 2, 3, 4, 7, 8, 16, 32, 64, 128, 197, 256, 1024, 4096)
_SIGNED_RANGES = ((-1, 1), (-4, 3), (-1, 0), (-8, 7), (-3, -1), (-64, 63))


def _variable_range(draw: st.DrawFn, c: _RangeConfig) -> RangeSpec | None:
    quick = draw(c.variable)
    if quick != _CUSTOM:
        return quick  # type: ignore[return-value]
    kind = draw(c.kind)
    if kind == 0:
        return int(draw(c.size))
    lo = -draw(c.offset) if c.negative else draw(c.offset)
    if kind == 1:
        return (lo, lo + draw(c.span))
    if kind == 2 and c.sizes:
        s = draw(c.size_name)
        form = draw(_FORM3)
        return s if form == 0 else (f"2*{s}" if form == 1 else f"{s} + 1")
    open_side = draw(_FORM3)
    if open_side == 0:
        return (lo, None)
    if open_side == 1:
        return (None, lo + draw(c.offset))
    return None


_SIZE_TOP = st.sampled_from((None, "bounded", "bounded", "bounded"))


def _size_range(draw: st.DrawFn, c: _RangeConfig) -> RangeSpec:
    quick = draw(c.size_spec)
    if quick != _CUSTOM:
        return quick  # type: ignore[return-value]
    lo = draw(_LOWER)
    if c.unbounded and draw(_SIZE_TOP) is None:
        return (lo, None)
    return (lo, max(lo, draw(c.top)))


@st.composite
def _range_table(draw: st.DrawFn, c: _RangeConfig) -> dict[str, RangeSpec]:
    out: dict[str, RangeSpec] = {}
    for n in c.names:
        spec = _variable_range(draw, c)
        if spec is not None:
            out[n] = spec
    for s in c.sizes:
        out[s] = _size_range(draw, c)
    return out


def assignments(
    ranges: Ranges | Mapping[str, RangeSpec] | Mapping[Expr, RangeSpec] | None,
    *,
    variables: Iterable[str | Expr] = (),
    spread: int = 1024,
) -> SearchStrategy[dict[str, int]]:
    """Generates points inside ``ranges``: dicts from symbol name to int.

    ``ranges`` is any form :func:`indexalg.ranges.as_ranges` accepts (a dict like those
    :func:`ranges` generates, or a :class:`~indexalg.ranges.Ranges`).  Every symbol with a
    range is bound, every symbol a symbolic bound mentions, and every name in
    ``variables`` (pass ``e.free_symbols`` to bind all of an expression's symbols).
    Symbolic bounds are resolved by drawing the symbols they mention first: for
    ``{"x": "s0", "s0": (1, 64)}``, ``s0`` is drawn, then ``x`` in ``[0, s0 - 1]``.

    Each value is the lower corner of its range, its upper corner, or any value between,
    so corners (all combinations of them) come up often.  An unbounded side is replaced
    by one ``spread`` away from the bounded side (``spread >= 0``); a symbol with no range
    at all takes values in ``[-spread, spread]``.  A point where a resolved range is empty
    (``x`` in ``[0, s0 - 1]`` with ``s0 = 0``) or a bound has no value is rejected.

    Examples shrink towards the lower corner (``0`` for an unranged symbol, the upper
    corner for a range open below); a value that cannot be the lower corner shrinks to the
    upper corner, then towards the lower end of the values between.
    """
    call = _call_text(
        "assignments",
        [("ranges", ranges, None), ("variables", variables, ()), ("spread", spread, 1024)],
    )

    def build() -> SearchStrategy[dict[str, int]]:
        try:
            r = as_ranges(ranges)
        except IndexAlgError as err:
            raise InvalidArgument(f"ranges={ranges!r} is not a valid range table: {err}") from None
        extra = _symbol_names(list(variables), "variables", allow_empty=True)
        width = _check_int_at_least(spread, 0, "spread")
        try:
            order = resolution_order(r, extra)
        except IndexAlgError as err:
            raise InvalidArgument(f"ranges={ranges!r}: {err}") from None

        return _point(tuple(order), width)

    return _lazy(call, build)


_CORNER = st.sampled_from(("low", "high", "between"))
_OPEN = st.sampled_from(("bound", "beyond"))


@st.composite
def _point(
    draw: st.DrawFn, order: tuple[tuple[Expr, Expr | None, Expr | None], ...], spread: int
) -> dict[str, int]:
    return draw_point(draw, order, spread)


def draw_point(
    draw: st.DrawFn,
    order: Sequence[tuple[Expr, Expr | None, Expr | None]],
    spread: int,
    *,
    corners: bool = True,
) -> dict[str, int]:
    """What :func:`assignments` draws, for callers inside a composite that already hold the
    resolution order (:func:`~indexalg.testing.oracles.resolution_order`): no strategy is
    built per point.  ``corners=False`` draws each bounded value in one step, without the
    extra choice that makes corners frequent (for callers that check the corners anyway)."""
    env: dict[str, int] = {}
    for sym, lo_e, hi_e in order:
        try:
            lo = None if lo_e is None else int(evaluate(lo_e, env))
            hi = None if hi_e is None else int(evaluate(hi_e, env))
        except IndexAlgError:
            reject()
        if not corners and lo is not None and hi is not None and lo <= hi:
            env[sym.payload] = lo + draw(_up_to(hi - lo))
        else:
            env[sym.payload] = _value(draw, lo, hi, spread)
    return dict(sorted(env.items()))


@functools.lru_cache(maxsize=1024)
def _up_to(n: int) -> SearchStrategy[int]:
    """``st.integers(0, n)``, one object per n (building strategies is slower than drawing)."""
    return st.integers(0, n)


@functools.lru_cache(maxsize=64)
def _around(n: int) -> SearchStrategy[int]:
    return st.integers(-n, n)


def _value(draw: st.DrawFn, lo: int | None, hi: int | None, spread: int) -> int:
    if lo is not None and hi is not None:
        if lo > hi:
            reject()
        corner = draw(_CORNER)
        if corner == "low":
            return lo
        if corner == "high":
            return hi
        return lo + draw(_up_to(hi - lo))
    if lo is None and hi is None:
        return 0 if draw(_OPEN) == "bound" else draw(_around(spread))
    beyond = 0 if draw(_OPEN) == "bound" else draw(_up_to(spread))
    return lo + beyond if lo is not None else hi - beyond  # type: ignore[operator]
