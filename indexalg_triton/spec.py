"""Kernel specs: a loop-level description of one pointwise or reduction kernel.

A :class:`KernelSpec` holds

* ``loops``: the pointwise iteration space, ``(name, size)`` outermost first (integer sizes:
  a spec describes one static shape, as a compiled kernel does);
* ``reduction``: None for a pointwise kernel, else one reduction loop ``(name, size)``;
* ``buffers``: named strided buffers (:class:`Buffer`: a :class:`~indexalg_triton.layout.View`
  and whether the kernel writes it), in kernel-argument order;
* ``ops``: SSA values, each defined before use, one class per kind (family), each with only
  the fields it uses and checked when it is built (:class:`Op` is their base; ``kind`` names
  the kind in all of them):

  - :class:`Load`: ``buffer[index]``, ``index`` an integer expression over the loop
    variables; an *indirect* load's index also mentions earlier integer values by name
    (``x[tmp1*64 + x0]``); a *guarded* load has a ``guard``, a claim over the loop
    variables: the element is read only where it holds (0 elsewhere), so its index may leave
    the buffer there (the pieces of a ``cat``, the border of a pad);
  - :class:`IndexValue` (kind ``index``): the value of an index expression (an integer, or a
    claim -> bool) over the loops;
  - :class:`Check` (kind ``check``): the assertion ``0 <= value < size`` for a value used as
    an indirect index (the code generator asks :func:`indexalg.decisions.bounds_checks`
    which sides need code);
  - :class:`ElementwiseOp`: one of the kinds of :data:`ELEMENTWISE` (the one table spec
    validation, value emission and the front end read) over values and Python literals;
  - :class:`Reduction`: ``sum`` / ``max`` (:data:`REDUCTIONS`) of an inner value over the
    reduction loop;
  - :class:`MultiReduction`: a kind of :data:`MULTI_OUTPUT`, one operation defining several
    values (its ``results``), e.g. ``mean_var``, the mean and the population variance
    (divisor ``n``, as ``torch.var_mean(..., correction=0)``) of an inner value over the
    reduction loop, computed together;

* ``stores``: :class:`Store` ``buffer[index] = value``.

Operations are separate from the buffers they write: an operation defines values (its own
name, or its ``results`` for a multi-output kind) and stores write values into buffers, so
one operation can feed several outputs (:meth:`KernelSpec.writes`).

With a reduction loop, a value is *inner* when it varies with the reduction variable (a load
or index mentioning it, or an op of inner values) and *outer* otherwise; a reduction turns an
inner value into an outer one.  A store of an inner value must index with the reduction
variable; a store of an outer value must not.

Dtypes are torch's names (``float32``, ``bfloat16``, ``uint8``, ``bool``...).  Semantics are
torch eager's; the generated code computes 16-bit floats in float32 and rounds at explicit
casts and at stores (as Inductor does).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Union

from indexalg.errors import ExprTypeError
from indexalg.expr import BoolConst, Expr, Integer, Symbol, as_expr
from indexalg_triton.errors import SpecError
from indexalg_triton.layout import View, dtype_bytes

__all__ = [
    "ELEMENTWISE",
    "Elementwise",
    "FLOAT_MATH",
    "MULTI_OUTPUT",
    "REDUCTIONS",
    "Buffer",
    "Check",
    "ElementwiseOp",
    "IndexValue",
    "KernelSpec",
    "Load",
    "MultiReduction",
    "Op",
    "Operand",
    "Reduction",
    "SpecBuilder",
    "Store",
    "is_float",
    "loop_ranges",
    "promote",
]

#: An operand of an op: the name of an earlier value, or a Python literal.
Operand = Union[str, int, float, bool]


@dataclass(frozen=True)
class Elementwise:
    """One elementwise kind: the one row that spec validation, value emission
    (:func:`indexalg_triton.codegen.values.elementwise`) and the front end's converters read.

    ``arity``: its operands.  ``family``: ``arith`` and ``math`` compute in floating point
    for float results (16-bit operands widened to float32; the front end converts integer
    operands of ``math`` kinds first), ``compare`` gives a bool, ``integer`` takes integers
    only, ``logic`` is ``not``, ``select`` is ``where`` (its result the promotion of its last
    two operands), ``cast`` is a conversion (to the dtype given).  ``triton``: its Triton
    form, a format over the operands' text (empty where the code generator writes it itself:
    ``where``, ``cast``).  ``torch``: the torch ops the front end converts to exactly this
    kind (by the registry's names, ``aten.add``).  ``helper``: the ``@triton.jit`` helper
    its Triton form calls (:data:`indexalg_triton.codegen.helpers.HELPERS`).  ``true_div``:
    integer operands give a float32 result (torch's true division)."""

    arity: int
    family: str
    triton: str = ""
    torch: tuple[str, ...] = ()
    helper: str = ""
    true_div: bool = False


def _math(kind: str, triton: str, helper: str = "") -> Elementwise:
    return Elementwise(1, "math", triton, (f"aten.{kind}",), helper)


#: The elementwise kinds (see :class:`Elementwise`).
ELEMENTWISE: dict[str, Elementwise] = {
    "add": Elementwise(2, "arith", "{0} + {1}", ("aten.add",)),
    "sub": Elementwise(2, "arith", "{0} - {1}", ("aten.sub",)),
    "mul": Elementwise(2, "arith", "{0} * {1}", ("aten.mul",)),
    "truediv": Elementwise(2, "arith", "{0} / {1}", ("aten.div",), true_div=True),
    "neg": Elementwise(1, "arith", "-{0}", ("aten.neg",)),
    "abs": Elementwise(1, "arith", "tl.abs({0})", ("aten.abs",)),
    "maximum": Elementwise(2, "arith", "tl.maximum({0}, {1})", ("aten.maximum",)),
    "minimum": Elementwise(2, "arith", "tl.minimum({0}, {1})", ("aten.minimum",)),
    "and": Elementwise(2, "integer", "{0} & {1}", ("aten.bitwise_and", "aten.__and__")),
    "or": Elementwise(2, "integer", "{0} | {1}", ("aten.bitwise_or", "aten.__or__")),
    "xor": Elementwise(2, "integer", "{0} ^ {1}", ("aten.bitwise_xor", "aten.__xor__")),
    "lshift": Elementwise(2, "integer", "{0} << {1}", ("aten.__lshift__",)),
    "rshift": Elementwise(2, "integer", "{0} >> {1}", ("aten.__rshift__",)),
    "eq": Elementwise(2, "compare", "{0} == {1}", ("aten.eq",)),
    "ne": Elementwise(2, "compare", "{0} != {1}", ("aten.ne",)),
    "lt": Elementwise(2, "compare", "{0} < {1}", ("aten.lt",)),
    "le": Elementwise(2, "compare", "{0} <= {1}", ("aten.le",)),
    "gt": Elementwise(2, "compare", "{0} > {1}", ("aten.gt",)),
    "ge": Elementwise(2, "compare", "{0} >= {1}", ("aten.ge",)),
    "where": Elementwise(3, "select"),
    "cast": Elementwise(1, "cast"),
    # Unary float math with a ``tl`` builtin (not a ``@triton.jit`` function of the
    # standard library, which the interpreter cannot call when triton was imported before
    # ``TRITON_INTERPRET`` was set: ``tl.sigmoid`` is one, so sigmoid is written out;
    # tanh is the helper ``ia_tanh``).
    "exp": _math("exp", "tl.exp({0})"),
    "sigmoid": _math("sigmoid", "1.0 / (1.0 + tl.exp(-{0}))"),
    "tanh": _math("tanh", "ia_tanh({0})", "ia_tanh"),
    "erf": _math("erf", "tl.erf({0})"),
    "rsqrt": _math("rsqrt", "tl.rsqrt({0})"),
    "sqrt": _math("sqrt", "tl.sqrt({0})"),
    "log": _math("log", "tl.log({0})"),
    "sin": _math("sin", "tl.sin({0})"),
    "cos": _math("cos", "tl.cos({0})"),
    "floor": _math("floor", "tl.floor({0})"),
    "not": Elementwise(1, "logic", "~{0}"),
}


def _family(name: str) -> frozenset[str]:
    return frozenset(k for k, e in ELEMENTWISE.items() if e.family == name)


#: Elementwise kinds of float math (a float result; 16-bit floats in float32).
FLOAT_MATH = _family("math")
#: Reduction kinds.
REDUCTIONS = ("sum", "max")
#: Multi-output kinds and the suffixes of their results (each a reduction over the loop).
MULTI_OUTPUT: dict[str, tuple[str, ...]] = {"mean_var": ("mean", "var")}
_RESERVED = frozenset({"tl", "triton", "ia_floordiv", "ia_mod", "ia_ceildiv", "pid"})


def is_float(dtype: str) -> bool:
    """Whether ``dtype`` is a floating-point dtype."""
    return dtype.startswith(("float", "bfloat"))


def promote(dtypes: Sequence[str]) -> str:
    """torch's promotion among tensor operands of one category order: bool < integers <
    floats; within a category, the wider element (ties: the first)."""
    if not dtypes:
        raise SpecError("promote() needs at least one dtype")

    def rank(d: str) -> tuple[int, int]:
        cat = 0 if d == "bool" else 2 if is_float(d) else 1
        return cat, dtype_bytes(d)

    best = dtypes[0]
    for d in dtypes[1:]:
        if rank(d) > rank(best):
            best = d
    return best


@dataclass(frozen=True)
class Buffer:
    """A kernel argument: a strided ``view`` (element strides, dtype) the kernel reads, or
    writes when ``output``."""

    name: str
    view: View
    output: bool = False

    @property
    def dtype(self) -> str:
        return self.view.dtype

    @property
    def storage_numel(self) -> int:
        """Elements from the first to one past the last addressed element."""
        span = 1
        for size, stride in zip(self.view.sizes, self.view.strides):
            span += (_int(size, "buffer size") - 1) * abs(_int(stride, "buffer stride"))
        return span


class Op:
    """An operation of a spec: the base of the typed kinds :class:`Load`,
    :class:`IndexValue`, :class:`Check`, :class:`ElementwiseOp`, :class:`Reduction` and
    :class:`MultiReduction`, each a frozen record of the fields it uses, checked when it is
    built (what needs the rest of the kernel, the values and buffers an op names, is checked
    by :class:`KernelSpec`).  Every op has a ``name``, a ``kind`` (``load``, ``index``,
    ``check``, an elementwise kind, ``sum``...) and the ``dtype`` of the values it defines."""

    __slots__ = ()
    name: str
    kind: str
    dtype: str

    @property
    def args(self) -> tuple[Operand, ...]:
        """The operands: earlier values by name, or literals."""
        return ()

    @property
    def expressions(self) -> tuple[Expr, ...]:
        """The index expressions it reads (a load's index and guard)."""
        return ()

    @property
    def values(self) -> tuple[str, ...]:
        """The value names this operation defines."""
        return (self.name,)

    @property
    def reduces(self) -> bool:
        """Whether this operation reduces over the reduction loop."""
        return False

    def subs(self, mapping: Mapping[Expr, Expr | int]) -> Op:
        """This op with ``mapping`` substituted into its index expressions."""
        return self

    def _check(self) -> None:
        _check_name(self.name, "value")
        dtype_bytes(self.dtype)


def _check_index(o: Op, index: object) -> None:
    if not isinstance(index, Expr):
        raise SpecError(f"{o.kind} {o.name} needs an index expression")


@dataclass(frozen=True, slots=True)
class Load(Op):
    """``buffer[index]``; with a ``guard`` (a claim over the loops) the element is read only
    where it holds, 0 elsewhere."""

    name: str
    dtype: str
    buffer: str
    index: Expr
    guard: Expr | None = None
    kind: str = field(default="load", init=False, repr=False)

    def __post_init__(self) -> None:
        self._check()
        _check_index(self, self.index)
        if self.guard is not None and not self.guard.is_bool:
            raise ExprTypeError(f"the guard of {self.name} is not a claim: {self.guard}")

    @property
    def expressions(self) -> tuple[Expr, ...]:
        return (self.index,) if self.guard is None else (self.index, self.guard)

    def subs(self, mapping: Mapping[Expr, Expr | int]) -> Load:
        guard = None if self.guard is None else self.guard.subs(mapping)
        return replace(self, index=self.index.subs(mapping), guard=guard)


@dataclass(frozen=True, slots=True)
class IndexValue(Op):
    """The value of an index expression over the loops (an integer, or bool for a claim)."""

    name: str
    dtype: str
    index: Expr
    kind: str = field(default="index", init=False, repr=False)

    def __post_init__(self) -> None:
        self._check()
        _check_index(self, self.index)

    @property
    def expressions(self) -> tuple[Expr, ...]:
        return (self.index,)

    def subs(self, mapping: Mapping[Expr, Expr | int]) -> IndexValue:
        return replace(self, index=self.index.subs(mapping))


@dataclass(frozen=True, slots=True)
class Check(Op):
    """The assertion ``0 <= value < size`` for a value used as an indirect index (a bool)."""

    name: str
    value: str
    size: int
    kind: str = field(default="check", init=False, repr=False)
    dtype: str = field(default="bool", init=False, repr=False)

    def __post_init__(self) -> None:
        self._check()
        if not isinstance(self.value, str) or _int(self.size, "check size") < 1:
            raise SpecError(f"check {self.name} needs one value and a size >= 1")

    @property
    def args(self) -> tuple[Operand, ...]:
        return (self.value,)


@dataclass(frozen=True, slots=True)
class ElementwiseOp(Op):
    """One of the :data:`ELEMENTWISE` kinds over earlier values and literals."""

    name: str
    kind: str
    args: tuple[Operand, ...] = field()  # a field over Op.args (field(): no default)
    dtype: str = field()

    def __post_init__(self) -> None:
        self._check()
        row = ELEMENTWISE.get(self.kind)
        if row is None:
            raise SpecError(f"unknown op kind {self.kind!r} ({self.name})")
        if len(self.args) != row.arity:
            raise SpecError(
                f"{self.kind} {self.name} takes {row.arity} operands, got {len(self.args)}"
            )


@dataclass(frozen=True, slots=True)
class Reduction(Op):
    """``sum`` or ``max`` (:data:`REDUCTIONS`) of an inner value over the reduction loop."""

    name: str
    kind: str
    value: str
    dtype: str

    def __post_init__(self) -> None:
        self._check()
        if self.kind not in REDUCTIONS:
            raise SpecError(f"unknown reduction {self.kind!r} (known: {', '.join(REDUCTIONS)})")

    @property
    def args(self) -> tuple[Operand, ...]:
        return (self.value,)

    @property
    def reduces(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class MultiReduction(Op):
    """A :data:`MULTI_OUTPUT` kind: one reduction of an inner value defining several values,
    its ``results`` (``mean_var``: the mean and the population variance)."""

    name: str
    kind: str
    value: str
    dtype: str
    results: tuple[str, ...]

    def __post_init__(self) -> None:
        self._check()
        if self.kind not in MULTI_OUTPUT:
            raise SpecError(
                f"unknown multi-output op {self.kind!r} (known: {', '.join(MULTI_OUTPUT)})"
            )
        want = len(MULTI_OUTPUT[self.kind])
        if len(self.results) != want:
            raise SpecError(
                f"{self.kind} {self.name} defines {want} results, got {len(self.results)}"
            )
        if not is_float(self.dtype):
            raise ExprTypeError(f"{self.kind} {self.name} needs a float dtype, got {self.dtype}")
        for v in self.results:
            _check_name(v, "value")

    @property
    def args(self) -> tuple[Operand, ...]:
        return (self.value,)

    @property
    def values(self) -> tuple[str, ...]:
        return self.results

    @property
    def reduces(self) -> bool:
        return True


@dataclass(frozen=True)
class Store:
    """``buffer[index] = value``."""

    buffer: str
    index: Expr
    value: str


def _int(e: object, what: str) -> int:
    if isinstance(e, Expr):
        if type(e) is Integer:
            v: int = e.payload
            return v
        raise SpecError(f"{what} must be an integer, got {e}")
    if isinstance(e, bool) or not isinstance(e, int):
        raise SpecError(f"{what} must be an integer, got {e!r}")
    return e


def _check_name(name: str, what: str) -> None:
    if not name.isidentifier() or keyword.iskeyword(name) or name in _RESERVED:
        raise SpecError(f"{what} name {name!r} is not a usable identifier")


@dataclass(frozen=True)
class KernelSpec:
    """A pointwise or reduction kernel (see the module docstring)."""

    name: str
    loops: tuple[tuple[str, int], ...]
    reduction: tuple[str, int] | None
    buffers: tuple[Buffer, ...]
    ops: tuple[Op, ...]
    stores: tuple[Store, ...]

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def is_reduction(self) -> bool:
        return self.reduction is not None

    def buffer(self, name: str) -> Buffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise SpecError(f"kernel {self.name} has no buffer {name!r}")

    @property
    def inputs(self) -> tuple[Buffer, ...]:
        return tuple(b for b in self.buffers if not b.output)

    @property
    def outputs(self) -> tuple[Buffer, ...]:
        return tuple(b for b in self.buffers if b.output)

    def op(self, name: str) -> Op:
        """The operation named ``name`` or defining the value ``name``."""
        for o in self.ops:
            if o.name == name or name in o.values:
                return o
        raise SpecError(f"kernel {self.name} has no value {name!r}")

    def writes(self, op_name: str) -> tuple[str, ...]:
        """The buffers the stores of an operation's values write, in store order."""
        values = self.op(op_name).values
        return tuple(dict.fromkeys(st.buffer for st in self.stores if st.value in values))

    def inner_values(self) -> frozenset[str]:
        """The values that vary with the reduction variable (empty without a reduction)."""
        if self.reduction is None:
            return frozenset()
        r = Symbol(self.reduction[0])
        inner: set[str] = set()
        for o in self.ops:
            if o.reduces:
                continue
            syms = [s for e in o.expressions for s in e.free_symbols]
            if (
                r in syms
                or any(isinstance(a, str) and a in inner for a in o.args)
                or any(s.payload in inner for s in syms)
            ):
                inner.add(o.name)
        return frozenset(inner)

    def indirect_symbols(self, op: Op) -> tuple[str, ...]:
        """The value names an (indirect) load's index mentions, in first-mention order."""
        if not isinstance(op, (Load, IndexValue)):
            return ()
        values = {v for o in self.ops for v in o.values}
        return tuple(s.payload for s in op.index.free_symbols if s.payload in values)

    def numel(self) -> int:
        """Points of the iteration space (the reduction loop included)."""
        n = 1
        for _, s in self.loops:
            n *= s
        return n * (self.reduction[1] if self.reduction else 1)

    def describe(self) -> str:
        """A few comment lines: loops, buffers."""
        loops = ", ".join(f"{n} < {s}" for n, s in self.loops)
        red = f"; reduce {self.reduction[0]} < {self.reduction[1]}" if self.reduction else ""
        return f"loops {loops}{red}"


def _validate(spec: KernelSpec) -> None:
    names = _validate_names(spec)
    loop_syms = {n for n, k in names.items() if k == "loop"}
    dtypes: dict[str, str] = {}
    for o in spec.ops:
        _validate_op(spec, o, names, loop_syms, dtypes)
    _validate_stores(spec, loop_syms, dtypes)


def _validate_names(spec: KernelSpec) -> dict[str, str]:
    """The kernel's, loops' and buffers' names (each once) and sizes; name -> what it is."""
    _check_name(spec.name, "kernel")
    names: dict[str, str] = {}
    for n, s in [*spec.loops, *([spec.reduction] if spec.reduction else [])]:
        _check_name(n, "loop")
        if _int(s, f"size of loop {n}") < 1:
            raise SpecError(f"loop {n} needs a positive size, got {s}")
        if n in names:
            raise SpecError(f"name {n!r} is used twice")
        names[n] = "loop"
    if not spec.loops:
        raise SpecError(f"kernel {spec.name} needs at least one pointwise loop")
    for b in spec.buffers:
        _check_name(b.name, "buffer")
        if b.name in names:
            raise SpecError(f"name {b.name!r} is used twice")
        names[b.name] = "buffer"
        for dim in (*b.view.sizes, *b.view.strides, b.view.offset):
            _int(dim, f"layout of buffer {b.name}")
    return names


def _validate_op(
    spec: KernelSpec, o: Op, names: dict[str, str], loop_syms: set[str], dtypes: dict[str, str]
) -> None:
    """One op in its kernel, after those before it (their values are in ``dtypes``; what the
    op alone must satisfy its class checked when it was built); records its values."""
    if not isinstance(o, Op):
        raise SpecError(f"{o!r} is not an op")
    if o.name in names:
        raise SpecError(f"name {o.name!r} is used twice")
    for a in o.args:
        if isinstance(a, str) and a not in dtypes:
            raise SpecError(f"value {o.name} uses {a!r} before it is defined")
    if isinstance(o, Load):
        if names.get(o.buffer) != "buffer":
            raise SpecError(f"load {o.name} names no buffer ({o.buffer!r})")
        if spec.buffer(o.buffer).output:
            raise SpecError(f"load {o.name} reads the output {o.buffer}")
        if o.guard is not None and not {s.payload for s in o.guard.free_symbols} <= loop_syms:
            raise SpecError(f"the guard of {o.name} mentions non-loop symbols: {o.guard}")
    if isinstance(o, (Load, IndexValue)):
        for sym in o.index.free_symbols:
            used: str = sym.payload
            if used not in loop_syms and used not in dtypes:
                raise SpecError(f"the index of {o.name} mentions {used}, not a loop or value")
            if used in dtypes and (is_float(dtypes[used]) or dtypes[used] == "bool"):
                raise ExprTypeError(f"{o.name} indexes with the non-integer {used}")
    if o.reduces and spec.reduction is None:
        raise SpecError(f"{o.kind} {o.name} in a kernel with no reduction")
    if isinstance(o, MultiReduction):
        names[o.name] = "operation"
    for v in o.values:
        if v != o.name and v in names:
            raise SpecError(f"name {v!r} is used twice")
        dtypes[v] = o.dtype
        names[v] = "value"


def _validate_stores(spec: KernelSpec, loop_syms: set[str], dtypes: dict[str, str]) -> None:
    if not spec.stores:
        raise SpecError(f"kernel {spec.name} stores nothing")
    inner = spec.inner_values()
    for o in spec.ops:
        if o.reduces and not (isinstance(o.args[0], str) and o.args[0] in inner):
            raise SpecError(f"{o.kind} {o.name} reduces a value that does not vary")
    r = Symbol(spec.reduction[0]) if spec.reduction else None
    for st in spec.stores:
        buf = spec.buffer(st.buffer)
        if not buf.output:
            raise SpecError(f"a store writes {st.buffer}, which is not an output")
        if st.value not in dtypes:
            raise SpecError(f"a store of {st.buffer} names no value {st.value!r}")
        syms = {s.payload for s in st.index.free_symbols}
        if not syms <= loop_syms:
            raise SpecError(f"a store index mentions non-loop symbols: {st.index}")
        if r is not None and (st.value in inner) != (r in st.index.free_symbols):
            raise SpecError(
                f"the store of {st.value} into {st.buffer}: an inner value is stored with the "
                "reduction variable in its index, an outer one without"
            )


class SpecBuilder:
    """Builds a :class:`KernelSpec` op by op; equal ops are created once (hash-consing), so
    re-deriving a value returns the existing name.

    >>> b = SpecBuilder("add1", loops=[("x0", 8)])
    >>> _ = b.buffer("a", View.of([8])); _ = b.buffer("out", View.of([8]), output=True)
    >>> b.store("out", "x0", b.op("add", b.load("a", "x0"), 1))
    >>> b.build().ops[1].kind
    'add'
    """

    def __init__(
        self,
        name: str,
        *,
        loops: Sequence[tuple[str, int]],
        reduction: tuple[str, int] | None = None,
        simplify_indices: bool = True,
    ) -> None:
        self.name = name
        self.loops = tuple((n, _int(s, f"size of loop {n}")) for n, s in loops)
        self.reduction = reduction
        self._simplify = simplify_indices
        self._buffers: list[Buffer] = []
        self._ops: list[Op] = []
        self._stores: list[Store] = []
        self._memo: dict[tuple[object, ...], str] = {}
        self._dtypes: dict[str, str] = {}

    # -- buffers ---------------------------------------------------------------------------

    def buffer(self, name: str, view: View, *, output: bool = False) -> str:
        self._buffers.append(Buffer(name, view, output))
        return name

    def dtype_of(self, x: Operand) -> str | None:
        """The dtype of a value name; None for a literal."""
        return self._dtypes.get(x) if isinstance(x, str) else None

    # -- values ----------------------------------------------------------------------------

    def _ranges(self) -> dict[str, int]:
        out = dict(self.loops)
        if self.reduction is not None:
            out[self.reduction[0]] = self.reduction[1]
        return out

    def _index(self, index: Expr | str | int) -> Expr:
        if isinstance(index, str):
            from indexalg.parse import parse

            e = parse(index)
        else:
            e = as_expr(index)
        if self._simplify:
            from indexalg.simplify import simplify

            ranges: dict[str, object] = dict(self._ranges())
            e = simplify(e, ranges)  # type: ignore[arg-type]
        return e

    def _emit(self, key: tuple[object, ...], make: Callable[[str], Op]) -> str:
        """The op ``make(name)`` under a fresh name, unless an equal one (by ``key``)
        exists: then that one's name."""
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        op = make(f"tmp{len(self._ops)}")
        self._ops.append(op)
        self._memo[key] = op.name
        for v in op.values:
            self._dtypes[v] = op.dtype
        return op.name

    def load(self, buffer: str, index: Expr | str | int, *, guard: Expr | str | None = None) -> str:
        """``buffer[index]``; the index is simplified over the loop ranges.  With a ``guard``
        (a claim over the loops) the element is read only where the guard holds, 0
        elsewhere; a guard that simplifies to true is dropped."""
        buf = next((b for b in self._buffers if b.name == buffer), None)
        if buf is None:
            raise SpecError(f"load from unknown buffer {buffer!r}")
        g = None if guard is None else self._index(guard)
        if g is not None and type(g) is BoolConst and bool(g.payload):
            g = None
        e = self._index(index)
        return self._emit(("load", buffer, e, g), lambda name: Load(name, buf.dtype, buffer, e, g))

    def index(self, expr: Expr | str | int, dtype: str | None = None) -> str:
        """The value of an index expression (bool for a claim)."""
        e = self._index(expr)
        d = dtype or ("bool" if e.is_bool else "int64")
        return self._emit(("index", e, d), lambda name: IndexValue(name, d, e))

    def check(self, value: str, size: int) -> str:
        """Assert ``0 <= value < size`` (where not proven)."""
        n = _int(size, "check size")
        return self._emit(("check", value, n), lambda name: Check(name, value, n))

    def op(self, kind: str, *args: Operand, dtype: str | None = None) -> str:
        """An elementwise op; ``dtype`` defaults to torch's promotion of the value operands
        (bool for comparisons; the target for ``cast``, which needs ``dtype``)."""
        row = ELEMENTWISE.get(kind)
        if row is None:
            raise SpecError(f"unknown elementwise op {kind!r}")
        for a in args:
            if isinstance(a, str) and a not in self._dtypes:
                raise SpecError(f"{kind} uses the undefined value {a!r}")
        if dtype is None:
            if row.family == "cast":
                raise SpecError(f"{kind} needs a dtype")
            if row.family == "compare":
                dtype = "bool"
            else:
                vals = [
                    self._dtypes[a]
                    for a in (args[1:] if row.family == "select" else args)
                    if isinstance(a, str)
                ]
                if not vals:
                    raise SpecError(f"{kind} needs at least one value operand")
                dtype = promote(vals)
                if row.true_div and not is_float(dtype):
                    dtype = "float32"
        if row.family == "integer" and is_float(dtype):
            raise ExprTypeError(f"{kind} needs integer operands, got {dtype}")
        key = (kind, tuple((type(a).__name__, a) for a in args), dtype)
        d = dtype
        return self._emit(key, lambda name: ElementwiseOp(name, kind, tuple(args), d))

    def reduce(self, kind: str, value: str, dtype: str | None = None) -> str:
        """``sum`` or ``max`` of an inner value over the reduction loop."""
        if value not in self._dtypes:
            raise SpecError(f"{kind} uses the undefined value {value!r}")
        d = dtype or self._dtypes[value]
        return self._emit((kind, value, d), lambda name: Reduction(name, kind, value, d))

    def multi(self, kind: str, value: str, dtype: str | None = None) -> tuple[str, ...]:
        """A multi-output operation (:data:`MULTI_OUTPUT`) over an inner value: the names of
        its results (``mean_var``: the mean and the variance, float32 unless ``dtype``)."""
        if kind not in MULTI_OUTPUT:
            raise SpecError(f"unknown multi-output op {kind!r} (known: {', '.join(MULTI_OUTPUT)})")
        if value not in self._dtypes:
            raise SpecError(f"{kind} uses the undefined value {value!r}")
        src = self._dtypes[value]
        d = dtype or (src if is_float(src) else "float32")
        name = self._emit(
            (kind, value, d),
            lambda name: MultiReduction(
                name, kind, value, d, tuple(f"{name}_{s}" for s in MULTI_OUTPUT[kind])
            ),
        )
        return self.defining(name).values

    def defining(self, name: str) -> Op:
        """The op built so far named ``name``."""
        return next(o for o in self._ops if o.name == name)

    def store(self, buffer: str, index: Expr | str | int, value: str) -> None:
        self._stores.append(Store(buffer, self._index(index), value))

    def build(self) -> KernelSpec:
        return KernelSpec(
            self.name,
            self.loops,
            self.reduction,
            tuple(self._buffers),
            tuple(self._ops),
            tuple(self._stores),
        )


def loop_ranges(spec: KernelSpec) -> Mapping[str, int]:
    """Loop name -> size, the reduction loop included."""
    out = dict(spec.loops)
    if spec.reduction is not None:
        out[spec.reduction[0]] = spec.reduction[1]
    return out
