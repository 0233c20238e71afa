"""``from_torch(fn, *example_inputs)``: a torch function traced with torch.fx into a spec.

The function is traced to ATen ops with ``make_fx`` on the example inputs; each node
becomes a *lazy tensor*: a shape, a dtype and a rule that, given coordinates (index
expressions over the kernel's loop variables), emits the ops computing that element into a
:class:`~indexalg_triton.spec.SpecBuilder` (equal ops are shared).  So views never copy:

* inputs: ``load(input, offset-free sum(coord * stride))`` with the example's strides (the
  kernel argument is the tensor itself, so its storage offset is in its data pointer);
* views and data movement as coordinate maps: ``permute``/``t``/``transpose``, ``slice``
  (``start + step * coord``), ``select``, ``split``/``chunk``/``unbind``, ``unsqueeze``,
  ``squeeze``, ``expand``/``repeat`` and broadcasting (coordinate 0 on size-1 dimensions,
  ``coord mod size`` for a repeat), ``view``/``reshape`` (coordinates through the flat
  index: ``(flat // stride) mod size``), ``flip`` (``n - 1 - coord``), ``roll``
  (``(coord - shift) mod n``), ``pixel_shuffle``/``pixel_unshuffle``,
  ``upsample_nearest2d`` with an integer ratio (``coord // ratio``),
  ``clone``/``contiguous``/``alias``;
* ``cat`` and ``constant_pad_nd``: each piece (or the padded input) is read by *guarded*
  loads (read only where its coordinate range holds, 0 elsewhere, so no address leaves a
  buffer) and selected with ``where``;
* constants: ``arange`` (an index expression), ``full``/``zeros``/``ones`` (and their
  ``_like`` forms) and ``scalar_tensor`` (literals);
* elementwise ``add sub rsub mul div neg exp abs maximum minimum relu bitwise_and/or/xor/not
  __lshift__ __rshift__ eq ne lt le gt ge where masked_fill clamp clamp_min clamp_max
  hardtanh leaky_relu sigmoid tanh erf rsqrt sqrt log sin cos floor reciprocal pow`` (integer
  and half-integer exponents), ``gelu`` (exact and tanh), ``silu``, logical ops, and type
  conversions (``_to_copy``);
* ``stack``: a select on the new coordinate; ``index_select``, ``embedding``, ``gather`` and
  one-tensor advanced indexing (``x[idx]``, negative indices wrapped): indirect loads with a
  bounds check on the index;
* pooling ``avg_pool2d`` and ``max_pool2d`` (values; no padding) as unrolled windows;
* reductions ``sum``, ``mean``, ``amax``, ``amin``, ``max``/``min`` (values), ``var``,
  ``std``, ``var_mean``, ``logsumexp``, ``_softmax``, ``_log_softmax`` and
  ``native_layer_norm`` (output, mean, rstd) over one or several dimensions, flattened into
  one reduction loop ``r0`` (each reduced coordinate a digit of ``r0``).

A kernel has one reduction loop: every reduction must reduce the same dimensions of the same
shape (mean and variance, softmax's max and sum, layer norm's statistics do).  The function
may return several tensors (``out0, out1, ...``, each laid out as eager torch lays it out
where that is a dense permutation, else contiguous; see ``layout``): all of one shape, or, with a
reduction, each either the reduction input's shape (stored per element) or its reduced shape
(stored once per row).  Any other op raises :class:`~indexalg_triton.errors.UnsupportedOp`
naming it; anything else the front end cannot follow (shapes, results that are not tensors),
:class:`~indexalg_triton.errors.FrontendError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from indexalg.expr import And, Expr, ModularIndexing, Symbol, add, as_expr, integer, mul
from indexalg_triton.errors import FrontendError, UnsupportedOp
from indexalg_triton.layout import View
from indexalg_triton.spec import FLOAT_MATH, KernelSpec, Operand, SpecBuilder, is_float

__all__ = ["from_torch"]

_Coords = Sequence[Expr]
_At = Callable[[_Coords], Operand]

_BINARY = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "maximum": "maximum",
    "minimum": "minimum", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
    "__lshift__": "lshift", "__rshift__": "rshift", "eq": "eq", "ne": "ne", "lt": "lt",
    "le": "le", "gt": "gt", "ge": "ge", "__and__": "and", "__or__": "or", "__xor__": "xor",
}
_COMPARE = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
_UNARY = {"neg": "neg", "abs": "abs"}
_MATH = {"exp": "exp", **{k: k for k in FLOAT_MATH}}
_IDENTITY = {"clone", "contiguous", "alias", "lift_fresh_copy", "detach", "dropout"}
_SQRT1_2 = 0.7071067811865476
_SQRT_2_PI = 0.7978845608028654


@dataclass(frozen=True)
class _Lazy:
    shape: tuple[int, ...]
    dtype: str
    at: _At


def _dtype_name(dt: Any) -> str:
    return str(dt).removeprefix("torch.")


def _contiguous_strides(shape: Sequence[int]) -> list[int]:
    out = []
    acc = 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return list(reversed(out))


def _norm_dim(d: int, n: int) -> int:
    if not -n <= d < max(n, 1):
        raise FrontendError(f"dimension {d} out of range for {n} dimensions")
    return d % n if n else 0


def _digits(flat: Expr, sizes: Sequence[int]) -> list[Expr]:
    """The row-major coordinates of ``flat`` over ``sizes``: ``(flat // stride) mod size``."""
    strides = _contiguous_strides(sizes)
    out: list[Expr] = []
    for k, (size, stride) in enumerate(zip(sizes, strides)):
        if size == 1:
            out.append(integer(0))
        elif k == 0:
            out.append(flat if stride == 1 else as_expr(flat) // stride)
        else:
            out.append(ModularIndexing.make(flat, stride, size))
    return out


def _squeezed(shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(s for s in shape if s != 1)


class _TracerCore:
    """The traced kernel's state (its builder, the reduction, the guards) and its values:
    operands, elementwise ops, casts, constants."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.b: SpecBuilder | None = None
        # the reduction: (reduced dims, input shape)
        self.reduction: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self.guards: list[Expr] = []  # claims every load emitted now is guarded by

    # -- helpers -------------------------------------------------------------------------

    @property
    def builder(self) -> SpecBuilder:
        assert self.b is not None
        return self.b

    @contextmanager
    def guarded(self, claims: Sequence[Expr]) -> Iterator[None]:
        """Loads emitted inside read only where every claim (and any outer one) holds."""
        n = len(self.guards)
        self.guards.extend(claims)
        try:
            yield
        finally:
            del self.guards[n:]

    def guard(self) -> Expr | None:
        return And.make(*self.guards) if self.guards else None

    def broadcast(self, x: _Lazy, shape: tuple[int, ...]) -> _Lazy:
        if x.shape == shape:
            return x
        lead = len(shape) - len(x.shape)
        if lead < 0:
            raise FrontendError(f"cannot broadcast {x.shape} to {shape}")
        for s, t in zip(x.shape, shape[lead:]):
            if s not in (1, t):
                raise FrontendError(f"cannot broadcast {x.shape} to {shape}")
        src = x

        def at(c: _Coords) -> Operand:
            cs = [integer(0) if s == 1 else ci for s, ci in zip(src.shape, c[lead:])]
            return src.at(cs)

        return _Lazy(shape, x.dtype, at)

    def operand(self, a: Any, shape: tuple[int, ...]) -> _Lazy | Operand:
        if isinstance(a, _Lazy):
            return self.broadcast(a, shape)
        if isinstance(a, (bool, int, float)):
            return a
        raise FrontendError(f"unsupported operand {a!r}")

    def elementwise(self, kind: str, args: Sequence[Any], dtype: str) -> _Lazy:
        shapes = [a.shape for a in args if isinstance(a, _Lazy)]
        shape = _broadcast_shapes(shapes)
        ops = [self.operand(a, shape) for a in args]

        def at(c: _Coords) -> Operand:
            vals = [o.at(c) if isinstance(o, _Lazy) else o for o in ops]
            return self.builder.op(kind, *vals, dtype=dtype)

        return _Lazy(shape, dtype, at)

    def cast(self, x: _Lazy, dtype: str) -> _Lazy:
        if x.dtype == dtype:
            return x
        return self.elementwise("cast", [x], dtype)

    def cast_any(self, x: Any, dtype: str) -> Any:
        """A lazy tensor converted to ``dtype``; a literal as it is."""
        return self.cast(x, dtype) if isinstance(x, _Lazy) else x

    def math(self, kind: str, x: _Lazy, dtype: str) -> _Lazy:
        """Float math on ``x`` (an integer or bool ``x`` is converted to ``dtype`` first)."""
        if not is_float(x.dtype):
            x = self.cast(x, dtype)
        return self.elementwise(kind, [x], dtype)

    def where(self, cond: Any, a: Any, b: Any, dtype: str) -> _Lazy:
        return self.elementwise("where", [cond, a, b], dtype)

    def clamp(self, x: _Lazy, lo: Any, hi: Any, dtype: str) -> _Lazy:
        out = self.cast(x, dtype)
        if lo is not None:
            out = self.elementwise("maximum", [out, lo], dtype)
        if hi is not None:
            out = self.elementwise("minimum", [out, hi], dtype)
        return out

    def constant(self, shape: Sequence[int], value: Any, dtype: str) -> _Lazy:
        if isinstance(value, (bool, int, float)):
            v: Operand = bool(value) if dtype == "bool" else (
                float(value) if is_float(dtype) else int(value))
        else:
            raise FrontendError(f"a constant tensor of {value!r}")

        def at(c: _Coords) -> Operand:
            return v

        return _Lazy(tuple(shape), dtype, at)

    def arange(self, start: Any, end: Any, step: Any, dtype: str) -> _Lazy:
        n = max(0, math.ceil((end - start) / step))
        if not is_float(dtype) and all(isinstance(v, int) for v in (start, step)):

            def at(c: _Coords) -> Operand:
                return self.builder.index(add(start, mul(step, c[0])), dtype)

            return _Lazy((n,), dtype, at)

        def at_f(c: _Coords) -> Operand:
            i = self.builder.index(c[0], "int64")
            f = self.builder.op("cast", i, dtype="float64" if dtype == "float64" else "float32")
            return self.builder.op("add", self.builder.op("mul", f, float(step)), float(start),
                                   dtype=dtype)

        return _Lazy((n,), dtype, at_f)


class _ViewTracer(_TracerCore):
    """Views: each a new index map over its input (no copies)."""


    def permute(self, x: _Lazy, dims: Sequence[int]) -> _Lazy:
        n = len(x.shape)
        dims = [_norm_dim(d, n) for d in dims]

        def at(c: _Coords) -> Operand:
            old: list[Expr] = [integer(0)] * n
            for k, d in enumerate(dims):
                old[d] = c[k]
            return x.at(old)

        return _Lazy(tuple(x.shape[d] for d in dims), x.dtype, at)

    def remap(self, x: _Lazy, shape: Sequence[int], fn: Callable[[list[Expr]], list[Expr]],
              dtype: str | None = None) -> _Lazy:
        """A view: element ``c`` of the result is element ``fn(c)`` of ``x``."""

        def at(c: _Coords) -> Operand:
            return x.at(fn(list(c)))

        return _Lazy(tuple(shape), dtype or x.dtype, at)

    def slice(self, x: _Lazy, dim: int, start: int | None, end: int | None,
              step: int) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))
        size = x.shape[d]
        lo, hi, st = slice(start, end, step).indices(size)
        n = max(0, -(-(hi - lo) // st))

        def fn(c: list[Expr]) -> list[Expr]:
            c[d] = add(lo, mul(st, c[d]))
            return c

        return self.remap(x, (*x.shape[:d], n, *x.shape[d + 1:]), fn)

    def select(self, x: _Lazy, dim: int, index: int) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))
        i = index % x.shape[d]
        return self.remap(x, x.shape[:d] + x.shape[d + 1:],
                          lambda c: [*c[:d], integer(i), *c[d:]])

    def split(self, x: _Lazy, sizes: Sequence[int], dim: int) -> list[_Lazy]:
        out = []
        start = 0
        for s in sizes:
            out.append(self.slice(x, dim, start, start + s, 1))
            start += s
        return out

    def reshape(self, x: _Lazy, shape: Sequence[int]) -> _Lazy:
        new = list(shape)
        total = math.prod(x.shape)
        if new.count(-1) == 1:
            known = math.prod(s for s in new if s != -1)
            new[new.index(-1)] = total // max(known, 1)
        if math.prod(new) != total:
            raise FrontendError(f"cannot view {x.shape} as {tuple(shape)}")
        new_strides = _contiguous_strides(new)

        def fn(c: list[Expr]) -> list[Expr]:
            flat = add(*(mul(s, ci) for s, ci in zip(new_strides, c)))
            return _digits(flat, x.shape)

        return self.remap(x, new, fn)

    def unsqueeze(self, x: _Lazy, dim: int) -> _Lazy:
        d = dim % (len(x.shape) + 1)
        return self.remap(x, (*x.shape[:d], 1, *x.shape[d:]), lambda c: c[:d] + c[d + 1:])

    def squeeze(self, x: _Lazy, dims: Sequence[int] | None) -> _Lazy:
        n = len(x.shape)
        ds = [i for i in range(n) if x.shape[i] == 1] if dims is None else \
            [_norm_dim(d, n) for d in dims if x.shape[_norm_dim(d, n)] == 1]

        def fn(c: list[Expr]) -> list[Expr]:
            it = iter(c)
            return [integer(0) if i in ds else next(it) for i in range(n)]

        return self.remap(x, tuple(s for i, s in enumerate(x.shape) if i not in ds), fn)

    def expand(self, x: _Lazy, sizes: Sequence[int]) -> _Lazy:
        lead = len(sizes) - len(x.shape)
        shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        return self.broadcast(x, shape)

    def repeat(self, x: _Lazy, repeats: Sequence[int]) -> _Lazy:
        lead = len(repeats) - len(x.shape)
        if lead < 0:
            raise FrontendError("repeat needs at least one count per dimension")
        shape = [*repeats[:lead], *(r * s for r, s in zip(repeats[lead:], x.shape))]

        def fn(c: list[Expr]) -> list[Expr]:
            out: list[Expr] = []
            for ci, r, s in zip(c[lead:], repeats[lead:], x.shape):
                out.append(integer(0) if s == 1 else ci if r == 1
                           else ModularIndexing.make(ci, 1, s))
            return out

        return self.remap(x, shape, fn)

    def flip(self, x: _Lazy, dims: Sequence[int]) -> _Lazy:
        ds = {_norm_dim(d, len(x.shape)) for d in dims}

        def fn(c: list[Expr]) -> list[Expr]:
            return [add(x.shape[i] - 1, mul(-1, ci)) if i in ds else ci for i, ci in enumerate(c)]

        return self.remap(x, x.shape, fn)

    def roll(self, x: _Lazy, shifts: Sequence[int], dims: Sequence[int]) -> _Lazy:
        if not dims:
            flat = self.reshape(x, [-1])
            return self.reshape(self.roll(flat, shifts, [0]), list(x.shape))
        if len(shifts) != len(dims):
            raise FrontendError("roll needs one shift per dimension")
        by = {_norm_dim(d, len(x.shape)): s for s, d in zip(shifts, dims)}

        def fn(c: list[Expr]) -> list[Expr]:
            out = []
            for i, ci in enumerate(c):
                n = x.shape[i]
                k = (-by.get(i, 0)) % n
                out.append(ModularIndexing.make(add(ci, k), 1, n) if k else ci)
            return out

        return self.remap(x, x.shape, fn)

    def stack(self, xs: Sequence[_Lazy], dim: int) -> _Lazy:
        shape = xs[0].shape
        d = dim % (len(shape) + 1)
        dtype = xs[0].dtype

        def at(c: _Coords) -> Operand:
            k = c[d]
            rest = list(c[:d]) + list(c[d + 1:])
            val = xs[-1].at(rest)
            for i in range(len(xs) - 2, -1, -1):
                cond = self.builder.index(k <= i)
                val = self.builder.op("where", cond, xs[i].at(rest), val, dtype=dtype)
            return val

        return _Lazy((*shape[:d], len(xs), *shape[d:]), dtype, at)

    def cat(self, xs: Sequence[_Lazy], dim: int, dtype: str) -> _Lazy:
        """Each piece is read under the guard that the coordinate is in its range."""
        pieces = [x for x in xs if not (len(x.shape) == 1 and x.shape[0] == 0)]
        if not pieces:
            raise FrontendError("cat of empty tensors")
        ref = pieces[0].shape
        d = _norm_dim(dim, len(ref))
        offsets = [0]
        for x in pieces:
            if len(x.shape) != len(ref) or x.shape[:d] + x.shape[d + 1:] != ref[:d] + ref[d + 1:]:
                raise FrontendError(f"cat of shapes {[p.shape for p in pieces]}")
            offsets.append(offsets[-1] + x.shape[d])

        def at(c: _Coords) -> Operand:
            k = c[d]
            val: Operand | None = None
            for i in range(len(pieces) - 1, -1, -1):
                lo, hi = offsets[i], offsets[i + 1]
                claims = ([k >= lo] if i > 0 else []) + ([k < hi] if i < len(pieces) - 1 else [])
                cs = list(c)
                cs[d] = add(k, -lo)
                with self.guarded(claims):
                    v = pieces[i].at(cs)
                if val is None:
                    val = v
                else:
                    cond = self.builder.index(k < hi)
                    val = self.builder.op("where", cond, v, val, dtype=dtype)
            assert val is not None
            return val

        shape = (*ref[:d], offsets[-1], *ref[d + 1:])
        return _Lazy(shape, dtype, at)

    def pad(self, x: _Lazy, pads: Sequence[int], value: Any, dtype: str) -> _Lazy:
        """``constant_pad_nd``: ``pads`` pairs (before, after) from the last dimension."""
        n = len(x.shape)
        if len(pads) % 2 or len(pads) // 2 > n:
            raise FrontendError(f"constant_pad_nd with pads {list(pads)}")
        before = [0] * n
        after = [0] * n
        for j in range(len(pads) // 2):
            before[n - 1 - j], after[n - 1 - j] = pads[2 * j], pads[2 * j + 1]
        shape = tuple(s + b + a for s, b, a in zip(x.shape, before, after))
        if any(s < 0 for s in shape):
            raise FrontendError(f"constant_pad_nd with pads {list(pads)}")
        lit = float(value) if is_float(dtype) else int(value)

        def at(c: _Coords) -> Operand:
            src = [add(ci, -b) for ci, b in zip(c, before)]
            claims: list[Expr] = []
            for s, b, a, si in zip(x.shape, before, after, src):
                if b > 0:
                    claims.append(si >= 0)
                if a > 0:
                    claims.append(si < s)
            with self.guarded(claims):
                v = x.at(src)
            if not claims:
                return v
            cond = self.builder.index(And.make(*claims))
            return self.builder.op("where", cond, v, lit, dtype=dtype)

        return _Lazy(shape, dtype, at)


class _Tracer(_ViewTracer):
    """Data movement that builds index maps from several inputs or blocks, pooling, indirect
    reads and reductions: everything :func:`_convert` calls."""

    def pixel_shuffle(self, x: _Lazy, r: int) -> _Lazy:
        *lead, ch, h, w = x.shape
        if ch % (r * r):
            raise FrontendError(f"pixel_shuffle of {ch} channels by {r}")
        k = len(lead)

        def fn(c: list[Expr]) -> list[Expr]:
            cc, hh, ww = c[k], c[k + 1], c[k + 2]
            chan = add(mul(r * r, cc), mul(r, ModularIndexing.make(hh, 1, r)),
                       ModularIndexing.make(ww, 1, r))
            return [*c[:k], chan, as_expr(hh) // r, as_expr(ww) // r]

        return self.remap(x, (*lead, ch // (r * r), h * r, w * r), fn)

    def pixel_unshuffle(self, x: _Lazy, r: int) -> _Lazy:
        *lead, ch, h, w = x.shape
        if h % r or w % r:
            raise FrontendError(f"pixel_unshuffle of {h}x{w} by {r}")
        k = len(lead)

        def fn(c: list[Expr]) -> list[Expr]:
            cc, hh, ww = c[k], c[k + 1], c[k + 2]
            i = ModularIndexing.make(cc, r, r)
            j = ModularIndexing.make(cc, 1, r)
            return [*c[:k], as_expr(cc) // (r * r), add(mul(r, hh), i), add(mul(r, ww), j)]

        return self.remap(x, (*lead, ch * r * r, h // r, w // r), fn)

    def upsample_nearest(self, x: _Lazy, out_shape: Sequence[int]) -> _Lazy:
        k = len(out_shape) - len(x.shape)
        ratios = []
        for i, (o, s) in enumerate(zip(out_shape, x.shape)):
            if o % s:
                raise FrontendError(
                    f"upsample_nearest with a non-integer ratio ({s} -> {o}, dimension {i})")
            ratios.append(o // s)
        del k

        def fn(c: list[Expr]) -> list[Expr]:
            return [ci if r == 1 else as_expr(ci) // r for ci, r in zip(c, ratios)]

        return self.remap(x, tuple(out_shape), fn)

    def pool2d(self, kind: str, x: _Lazy, kernel: Sequence[int], stride: Sequence[int],
               out_shape: Sequence[int], dtype: str) -> _Lazy:
        """An unrolled window (no padding): the mean or the max of ``kh * kw`` loads."""
        kh, kw = (kernel[0], kernel[-1])
        sh, sw = (stride[0], stride[-1]) if stride else (kh, kw)
        n = len(x.shape)

        def at(c: _Coords) -> Operand:
            acc: Operand | None = None
            for i in range(kh):
                for j in range(kw):
                    cs = [*c[:n - 2], add(mul(sh, c[n - 2]), i), add(mul(sw, c[n - 1]), j)]
                    v = x.at(cs)
                    if acc is None:
                        acc = v
                    else:
                        acc = self.builder.op("add" if kind == "avg" else "maximum", acc, v,
                                              dtype=dtype)
            assert acc is not None
            if kind == "avg":
                return self.builder.op("mul", acc, 1.0 / (kh * kw), dtype=dtype)
            return acc

        return _Lazy(tuple(out_shape), dtype, at)

    # -- indirect ------------------------------------------------------------------------

    def _indirect(self, x: _Lazy, d: int, i: Operand, what: str) -> Symbol:
        if not isinstance(i, str):
            raise FrontendError(f"{what} needs a tensor of indices")
        self.builder.check(i, x.shape[d])
        return Symbol(i)

    def index_select(self, x: _Lazy, dim: int, idx: _Lazy, *, wrap: bool = False,
                     what: str = "index_select") -> _Lazy:
        """``x`` with dimension ``dim`` indexed by ``idx`` (any shape; its dimensions take
        the place of ``dim``); ``wrap``: negative indices count from the end."""
        d = _norm_dim(dim, len(x.shape))
        k = len(idx.shape)

        def at(c: _Coords) -> Operand:
            i = idx.at(list(c[d:d + k]))
            if wrap and isinstance(i, str):
                neg = self.builder.op("lt", i, 0)
                i = self.builder.op("where", neg, self.builder.op("add", i, x.shape[d]), i)
            cs = [*c[:d], self._indirect(x, d, i, what), *c[d + k:]]
            return x.at(cs)

        return _Lazy(x.shape[:d] + idx.shape + x.shape[d + 1:], x.dtype, at)

    def gather(self, x: _Lazy, dim: int, idx: _Lazy) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))

        def at(c: _Coords) -> Operand:
            cs = list(c)
            cs[d] = self._indirect(x, d, idx.at(c), "gather")
            return x.at(cs)

        return _Lazy(idx.shape, x.dtype, at)

    # -- reductions ----------------------------------------------------------------------

    def _note_reduction(self, x: _Lazy, ds: tuple[int, ...]) -> None:
        if self.reduction is None:
            self.reduction = (ds, x.shape)
        elif self.reduction != (ds, x.shape):
            raise FrontendError(
                "a kernel has one reduction loop: every reduction must reduce the same "
                f"dimensions of the same shape ({self.reduction[1]} dims "
                f"{list(self.reduction[0])} vs {x.shape} dims {list(ds)})"
            )

    def reduce(self, kind: str, x: _Lazy, dims: Sequence[int] | None, keepdim: bool,
               dtype: str) -> _Lazy:
        n = len(x.shape)
        all_ds = list(range(n)) if not dims else sorted({_norm_dim(d, n) for d in dims})
        ds = tuple(d for d in all_ds if x.shape[d] != 1)
        if keepdim:
            shape = tuple(1 if i in all_ds else s for i, s in enumerate(x.shape))
        else:
            shape = tuple(s for i, s in enumerate(x.shape) if i not in all_ds)
        if not ds:  # reducing size-1 dimensions: the value itself
            def at_one(c: _Coords) -> Operand:
                cs = list(c) if keepdim else _insert(c, all_ds, [integer(0)] * len(all_ds))
                return self.cast(x, dtype).at(cs)

            return _Lazy(shape, dtype, at_one)
        self._note_reduction(x, ds)
        rc = _digits(Symbol("r0"), [x.shape[d] for d in ds])

        def at(c: _Coords) -> Operand:
            if keepdim:
                cs = list(c)
                for d, e in zip(ds, rc):
                    cs[d] = e
            else:
                zeros = {d: integer(0) for d in all_ds}
                zeros.update(dict(zip(ds, rc)))
                cs = _insert(c, all_ds, [zeros[d] for d in all_ds])
            v = x.at(cs)
            if not isinstance(v, str):
                raise FrontendError(f"{kind} of a constant")
            return self.builder.reduce(kind, v, dtype)

        return _Lazy(shape, dtype, at)

    def mean(self, x: _Lazy, dims: Sequence[int] | None, keepdim: bool, dtype: str) -> _Lazy:
        s = self.reduce("sum", self.cast(x, dtype), dims, keepdim, dtype)
        return self.elementwise("truediv", [s, float(_count(x.shape, dims))], dtype)

    def var(self, x: _Lazy, dims: Sequence[int] | None, correction: float, keepdim: bool,
            dtype: str) -> tuple[_Lazy, _Lazy]:
        """(variance, mean): the two-pass formula, sum((x - mean)^2) / (n - correction)."""
        xf = self.cast(x, dtype)
        m = self.mean(xf, dims, True, dtype)
        dev = self.elementwise("sub", [xf, m], dtype)
        sq = self.elementwise("mul", [dev, dev], dtype)
        n = _count(x.shape, dims)
        denom = max(n - correction, 0)
        s = self.reduce("sum", sq, dims, keepdim, dtype)
        v = self.elementwise("truediv", [s, float(denom)], dtype) if denom else \
            self.elementwise("mul", [s, float("nan")], dtype)
        mean = m if keepdim else self.mean(xf, dims, False, dtype)
        return v, mean

    def softmax(self, x: _Lazy, dim: int, dtype: str, *, log: bool = False) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))
        xf = self.cast(x, dtype)
        mx = self.reduce("max", xf, [d], True, dtype)
        shifted = self.elementwise("sub", [xf, mx], dtype)
        e = self.elementwise("exp", [shifted], dtype)
        s = self.reduce("sum", e, [d], True, dtype)
        if log:
            return self.elementwise("sub", [shifted, self.elementwise("log", [s], dtype)], dtype)
        return self.elementwise("truediv", [e, s], dtype)

    def logsumexp(self, x: _Lazy, dims: Sequence[int], keepdim: bool, dtype: str) -> _Lazy:
        xf = self.cast(x, dtype)
        mx = self.reduce("max", xf, dims, True, dtype)
        # an all -inf row: torch gives -inf; x - max would be nan, so shift by 0 there
        safe = self.where(self.elementwise("eq", [mx, float("-inf")], "bool"), 0.0, mx, dtype)
        e = self.elementwise("exp", [self.elementwise("sub", [xf, safe], dtype)], dtype)
        s = self.reduce("sum", e, dims, keepdim, dtype)
        m = safe if keepdim else self.squeeze_dims(safe, dims)
        return self.elementwise("add", [self.elementwise("log", [s], dtype), m], dtype)

    def squeeze_dims(self, x: _Lazy, dims: Sequence[int]) -> _Lazy:
        n = len(x.shape)
        return self.squeeze(x, sorted({_norm_dim(d, n) for d in dims}))

    def layer_norm(self, x: _Lazy, k: int, w: Any, b: Any, eps: float, dtype: str,
                   stat_dtype: str) -> tuple[_Lazy, _Lazy, _Lazy]:
        n = len(x.shape)
        dims = list(range(n - k, n))
        var, mean = self.var(x, dims, 0, True, stat_dtype)
        rstd = self.math("rsqrt", self.elementwise("add", [var, float(eps)], stat_dtype),
                         stat_dtype)
        out = self.elementwise("mul", [self.elementwise(
            "sub", [self.cast(x, stat_dtype), mean], stat_dtype), rstd], stat_dtype)
        if isinstance(w, _Lazy):
            out = self.elementwise("mul", [out, w], stat_dtype)
        if isinstance(b, _Lazy):
            out = self.elementwise("add", [out, b], stat_dtype)
        return self.cast(out, dtype), mean, rstd


def _count(shape: Sequence[int], dims: Sequence[int] | None) -> int:
    n = len(shape)
    ds = range(n) if not dims else {_norm_dim(d, n) for d in dims}
    return math.prod(shape[d] for d in ds)


def _insert(c: _Coords, at: Sequence[int], values: Sequence[Expr]) -> list[Expr]:
    """``c`` with ``values`` inserted so that they sit at positions ``at`` (sorted)."""
    out = list(c)
    for d, v in zip(at, values):
        out.insert(d, v)
    return out


def _broadcast_shapes(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, v in enumerate(s):
            j = n - len(s) + i
            if v != 1:
                if out[j] not in (1, v):
                    raise FrontendError(f"shapes {list(shapes)} do not broadcast")
                out[j] = v
    return tuple(out)


def from_torch(fn: Callable[..., Any], *example_inputs: Any, name: str | None = None,
               layout: str = "torch") -> KernelSpec:
    """Trace ``fn`` on ``example_inputs`` (torch tensors) into one kernel spec.

    The spec's buffers are ``in0, in1, ...`` (the inputs, with their strides) and ``out0,
    out1, ...`` (the results, in the order ``fn`` returns them).  ``layout`` is the results'
    memory layout: ``"torch"`` (default) the strides eager torch gives them where those are
    a dense permutation of a pointwise kernel's results (``relu(x + b)`` on a channels_last
    ``x`` stays channels_last, as in eager and torch.compile), the loops then ordered
    outermost-first by that layout's strides; contiguous otherwise.  ``"contiguous"``:
    always row-major.  See the module docstring for the supported ops.
    """
    if layout not in ("torch", "contiguous"):
        raise FrontendError(
            f"from_torch: layout must be 'torch' or 'contiguous', not {layout!r}")
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    kname = str(name or getattr(fn, "__name__", None) or "kernel")
    if not kname.isidentifier():
        kname = "kernel"
    gm = make_fx(fn)(*example_inputs)
    tr = _Tracer(kname)
    env: dict[str, Any] = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    bufs: list[tuple[str, View]] = []
    for i, (node, t) in enumerate(zip(placeholders, example_inputs)):
        if not isinstance(t, torch.Tensor):
            raise FrontendError(f"input {i} is not a tensor")
        name_i = f"in{i}"
        view = View.of(list(t.shape), list(t.stride()), 0, _dtype_name(t.dtype))
        bufs.append((name_i, view))
        env[node.name] = _input(tr, name_i, tuple(t.shape), list(t.stride()),
                                _dtype_name(t.dtype))
    result: Any = None
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            result = node.args[0]
            break
        if node.op != "call_function":
            raise FrontendError(f"unsupported fx node {node.op} {node.target}")
        val = node.meta.get("val")
        if isinstance(val, (list, tuple)) and val and isinstance(val[0], torch.Tensor):
            val = val[0]  # a multi-result op: its first result's shape and dtype
        dtype = _dtype_name(val.dtype) if isinstance(val, torch.Tensor) else "float32"
        shape = tuple(int(s) for s in val.shape) if isinstance(val, torch.Tensor) else None
        out = _convert(tr, node, env, dtype, shape)
        if isinstance(out, _Lazy) and shape is not None and out.shape != shape:
            raise FrontendError(  # pragma: no cover - a converter bug
                f"from_torch: {node.target} gave shape {out.shape}, torch {shape}")
        env[node.name] = tr.cast(out, dtype) if isinstance(out, _Lazy) else out
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    outs = []
    strides: list[list[int] | None] = []
    for r in results:
        out = env.get(r.name) if isinstance(r, torch.fx.Node) else None
        if not isinstance(out, _Lazy):
            raise FrontendError("the function's results must be tensors")
        outs.append(out)
        val = r.meta.get("val")
        strides.append([int(x) for x in val.stride()]
                       if layout == "torch" and isinstance(val, torch.Tensor) else None)
    if not outs:
        raise FrontendError("the function returns no tensor")
    return _build(tr, kname, bufs, outs, strides)


def _input(tr: _Tracer, name: str, shape: tuple[int, ...], strides: list[int],
           dtype: str) -> _Lazy:
    def at(c: _Coords) -> Operand:
        index = add(*(mul(s, ci) for s, ci in zip(strides, c)))
        return tr.builder.load(name, index, guard=tr.guard())

    return _Lazy(shape, dtype, at)


def _dense_permutation(shape: Sequence[int], strides: Sequence[int] | None
                       ) -> list[int] | None:
    """``strides`` where they lay ``shape`` out densely (every element once, no gap) in some
    dimension order, else None.  Size-1 dimensions may carry any stride."""
    if strides is None or len(strides) != len(shape):
        return None
    dims = sorted((d for d, n in enumerate(shape) if n != 1), key=lambda d: -strides[d])
    expect = 1
    for d in reversed(dims):
        if strides[d] != expect:
            return None
        expect *= shape[d]
    return list(strides)


def _build(tr: _Tracer, kname: str, bufs: list[tuple[str, View]], outs: list[_Lazy],
           strides: Sequence[Sequence[int] | None] = ()) -> KernelSpec:
    """Loops over the iteration shape (the reduction input's kept dimensions, or the
    results' shape), then one store per result.  ``strides``: per result the layout asked
    for (a pointwise kernel's results take it where it is a dense permutation, and the loops
    follow the first such result's order; contiguous otherwise)."""
    red = tr.reduction
    reduction: tuple[str, int] | None = None
    if red is not None:
        rdims, rshape = red
        reduction = ("r0", math.prod(rshape[d] for d in rdims))
        space = tuple(s for i, s in enumerate(rshape) if i not in rdims)
    else:
        space = max((o.shape for o in outs), key=math.prod)
    kept = _squeezed(space)
    layouts = [_dense_permutation(o.shape, strides[k] if k < len(strides) else None)
               if red is None else None for k, o in enumerate(outs)]
    # position in ``kept`` of each loop, outermost first: the first result of the full
    # shape with a layout of its own orders them by its strides
    order = list(range(len(kept)))
    for o, lay in zip(outs, layouts):
        if lay is not None and o.shape == space:
            big = [lay[d] for d, n in enumerate(o.shape) if n != 1]
            order = sorted(order, key=lambda k: -big[k])
            break
    loop_name = {pos: f"x{len(kept) - 1 - i}" for i, pos in enumerate(order)}
    loop_syms = [Symbol(loop_name[k]) for k in range(len(kept))]  # by position in ``kept``
    loops = [(loop_name[pos], kept[pos]) for pos in order] or [("x0", 1)]
    tr.b = SpecBuilder(kname, loops=loops, reduction=reduction)
    for n, v in bufs:
        tr.b.buffer(n, v)
    coords_of: list[list[Expr]] = []
    out_strides: list[list[int]] = []
    for k, o in enumerate(outs):
        lay = layouts[k] or _contiguous_strides(o.shape)
        out_strides.append(lay)
        tr.b.buffer(f"out{k}", View.of(list(o.shape), lay, 0, o.dtype), output=True)
        if red is not None and o.shape == red[1]:
            rc = iter(_digits(Symbol("r0"), [red[1][d] for d in red[0]]))
            it = iter(loop_syms)
            coords_of.append([next(rc) if i in red[0] else integer(0) if s == 1 else next(it)
                              for i, s in enumerate(o.shape)])
        elif _squeezed(o.shape) == kept:
            it = iter(loop_syms)
            coords_of.append([integer(0) if s == 1 else next(it) for s in o.shape])
        else:
            what = f"the reduction input {red[1]} or its reduced shape" if red else \
                f"the shape {space}"
            raise FrontendError(
                f"from_torch: result {k} has shape {o.shape}; every result must have {what}")
    for k, (o, coords) in enumerate(zip(outs, coords_of)):
        val = o.at(coords)
        if not isinstance(val, str):
            raise FrontendError(f"result {k} is a constant, not a tensor")
        index = add(*(mul(s, c) for s, c in zip(out_strides[k], coords)))
        tr.b.store(f"out{k}", index, val)
    return tr.b.build()


def _op_name(target: Any) -> str:
    op = getattr(target, "_opname", None) or str(target).split(".")[-2 if "." in str(target)
                                                                  else -1]
    if op.endswith("_") and not op.endswith("__"):  # in-place on a temporary
        op = op[:-1]
    return str(op)


def _dims(a: Any) -> list[int] | None:
    if a is None:
        return None
    return [a] if isinstance(a, int) else list(a)


def _convert(tr: _Tracer, node: Any, env: dict[str, Any], dtype: str,
             shape: tuple[int, ...] | None) -> Any:
    import operator

    import torch

    def arg(a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            v = env[a.name]
            if isinstance(v, _Refused):
                raise UnsupportedOp(v.what)
            return v
        if isinstance(a, (list, tuple)):
            return [arg(x) for x in a]
        return a

    args = [arg(a) for a in node.args]
    kwargs = {k: arg(v) for k, v in node.kwargs.items()}
    target = node.target
    if target is operator.getitem:
        return args[0][args[1]]
    op = _op_name(target)
    overload = str(target).split(".")[-1]

    c = _Call(tr, args, kwargs, target, op, overload, dtype, shape)
    for part in _CONVERTERS:
        out = part(c)
        if out is not _UNHANDLED:
            return out
    raise UnsupportedOp(str(target), overload)


#: The value of a converter that does not handle the op (the next one is tried).
_UNHANDLED = object()


@dataclass(frozen=True)
class _Call:
    """One call node, its arguments converted: what each converter reads."""

    tr: _Tracer
    args: list[Any]
    kwargs: dict[str, Any]
    target: Any
    op: str
    overload: str
    dtype: str
    shape: tuple[int, ...] | None

    def opt(self, i: int, key: str, default: Any = None) -> Any:
        """Argument ``i``, else keyword ``key``, else ``default``."""
        return self.args[i] if len(self.args) > i else self.kwargs.get(key, default)


def _convert_arith(c: _Call) -> Any:
    """Converts arithmetic, comparisons, logic and unary math; ``_UNHANDLED`` for any other op."""
    tr, args, kwargs, op, dtype = c.tr, c.args, c.kwargs, c.op, c.dtype
    opt = c.opt
    if op in _IDENTITY:
        return args[0]
    if op in _BINARY:
        x, y = args[0], args[1]
        alpha = kwargs.get("alpha", 1)
        if alpha != 1:
            y = tr.elementwise("mul", [y, alpha], dtype) if isinstance(y, _Lazy) else y * alpha
        kind = _BINARY[op]
        if kind in _COMPARE:
            return tr.elementwise(kind, [x, y], "bool")
        if kind == "truediv":
            x, y = tr.cast_any(x, dtype), tr.cast_any(y, dtype)
        return tr.elementwise(kind, [x, y], dtype)
    if op == "rsub":
        alpha = opt(2, "alpha", 1)
        y = tr.elementwise("mul", [args[0], alpha], dtype) if alpha != 1 else args[0]
        return tr.elementwise("sub", [args[1], y], dtype)
    if op in _UNARY:
        return tr.elementwise(_UNARY[op], [args[0]], dtype)
    if op in _MATH:
        return tr.math(_MATH[op], args[0], dtype)
    if op == "reciprocal":
        return tr.elementwise("truediv", [1.0, tr.cast(args[0], dtype)], dtype)
    if op in ("bitwise_not", "logical_not"):
        x = args[0]
        if op == "logical_not" and x.dtype != "bool":
            x = tr.elementwise("ne", [x, 0], "bool")
        return tr.cast(tr.elementwise("not", [x], x.dtype), dtype)
    if op in ("logical_and", "logical_or", "logical_xor"):
        xs = [a if a.dtype == "bool" else tr.elementwise("ne", [a, 0], "bool") for a in args[:2]]
        return tr.elementwise(op.removeprefix("logical_"), xs, "bool")
    return _UNHANDLED


def _convert_activations(c: _Call) -> Any:
    """Converts activations, where, casts; ``_UNHANDLED`` for any other op."""
    tr, args, kwargs, target, op, overload, dtype = (
        c.tr, c.args, c.kwargs, c.target, c.op, c.overload, c.dtype)
    opt = c.opt
    if op == "pow" and overload == "Tensor_Scalar":
        return _pow(tr, args[0], args[1], dtype)
    if op == "relu":
        return tr.elementwise("maximum", [args[0], 0], dtype)
    if op in ("clamp", "clamp_min", "clamp_max", "hardtanh"):
        if op == "hardtanh":
            lo, hi = opt(1, "min_val", -1.0), opt(2, "max_val", 1.0)
        elif op == "clamp_max":
            lo, hi = None, args[1]
        else:
            lo, hi = opt(1, "min"), opt(2, "max")
        return tr.clamp(args[0], lo, hi, dtype)
    if op == "leaky_relu":
        x = args[0]
        return tr.where(tr.elementwise("gt", [x, 0], "bool"), x,
                        tr.elementwise("mul", [x, float(opt(1, "negative_slope", 0.01))], dtype),
                        dtype)
    if op == "sigmoid":
        return tr.math("sigmoid", args[0], dtype)
    if op == "silu":
        x = args[0]
        return tr.elementwise("mul", [x, tr.math("sigmoid", x, dtype)], dtype)
    if op == "gelu":
        x = args[0]
        half = tr.elementwise("mul", [x, 0.5], dtype)
        if kwargs.get("approximate", opt(1, "approximate", "none")) == "tanh":
            cube = tr.elementwise("mul", [tr.elementwise("mul", [x, x], dtype), x], dtype)
            inner = tr.elementwise("mul", [tr.elementwise(
                "add", [x, tr.elementwise("mul", [cube, 0.044715], dtype)], dtype), _SQRT_2_PI],
                dtype)
            t = tr.math("tanh", inner, dtype)
        else:
            t = tr.math("erf", tr.elementwise("mul", [x, _SQRT1_2], dtype), dtype)
        return tr.elementwise("mul", [half, tr.elementwise("add", [t, 1.0], dtype)], dtype)
    if op == "where":
        if overload == "ScalarOther" or len(args) < 3:
            raise UnsupportedOp(str(target), overload)
        return tr.where(args[0], args[1], args[2], dtype)
    if op == "masked_fill":
        return tr.where(args[1], args[2], args[0], dtype)
    if op in ("_to_copy", "to", "_convert_element_type", "convert_element_type", "type_as"):
        return tr.cast(args[0], dtype)
    return _UNHANDLED


def _convert_views(c: _Call) -> Any:
    """Converts constants, aranges and views; ``_UNHANDLED`` for any other op."""
    tr, args, op, overload, dtype, shape = c.tr, c.args, c.op, c.overload, c.dtype, c.shape
    opt = c.opt
    if op in ("full", "full_like", "zeros", "ones", "zeros_like", "ones_like",
              "scalar_tensor", "new_full", "new_zeros", "new_ones"):
        assert shape is not None
        value = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1,
                 "new_ones": 1}.get(op)
        if value is None:
            value = args[0] if op == "scalar_tensor" else args[1] if op in (
                "full_like", "full") else args[2]
        return tr.constant(shape, value, dtype)
    if op == "arange":
        if overload == "default":
            start, end, step = 0, args[0], 1
        else:
            start, end = args[0], args[1]
            step = opt(2, "step", 1) if overload == "start_step" else 1
        return tr.arange(start, end, step, dtype)
    if op == "permute":
        return tr.permute(args[0], args[1])
    if op in ("t", "numpy_T"):
        n = len(args[0].shape)
        return tr.permute(args[0], list(range(n))[::-1])
    if op == "transpose":
        n = len(args[0].shape)
        d0, d1 = _norm_dim(args[1], n), _norm_dim(args[2], n)
        perm = list(range(n))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return tr.permute(args[0], perm)
    if op == "slice":
        return tr.slice(args[0], opt(1, "dim", 0), opt(2, "start"), opt(3, "end"),
                        opt(4, "step", 1))
    if op == "select":
        return tr.select(args[0], args[1], args[2])
    if op in ("split", "split_with_sizes"):
        x, size, dim = args[0], args[1], opt(2, "dim", 0)
        d = _norm_dim(dim, len(x.shape))
        if isinstance(size, int):
            n = x.shape[d]
            size = [min(size, n - s) for s in range(0, n, size)]
        return tr.split(x, size, d)
    if op == "unbind":
        x, dim = args[0], opt(1, "dim", 0)
        return [tr.select(x, dim, i) for i in range(x.shape[_norm_dim(dim, len(x.shape))])]
    if op in ("view", "reshape", "_unsafe_view"):
        return tr.reshape(args[0], args[1])
    if op == "unsqueeze":
        return tr.unsqueeze(args[0], args[1])
    if op == "squeeze":
        dims = None if len(args) < 2 else (args[1] if isinstance(args[1], list) else [args[1]])
        return tr.squeeze(args[0], dims)
    if op == "expand":
        return tr.expand(args[0], args[1])
    if op == "repeat":
        return tr.repeat(args[0], args[1])
    if op == "flip":
        return tr.flip(args[0], args[1])
    if op == "roll":
        return tr.roll(args[0], _dims(args[1]) or [], _dims(opt(2, "dims", [])) or [])
    if op == "stack":
        return tr.stack(args[0], args[1] if len(args) > 1 else 0)
    if op == "cat":
        return tr.cat(args[0], opt(1, "dim", 0), dtype)
    if op == "constant_pad_nd":
        return tr.pad(args[0], args[1], opt(2, "value", 0), dtype)
    if op == "pixel_shuffle":
        return tr.pixel_shuffle(args[0], args[1])
    if op == "pixel_unshuffle":
        return tr.pixel_unshuffle(args[0], args[1])
    if op in ("upsample_nearest2d", "upsample_nearest1d", "upsample_nearest3d"):
        assert shape is not None
        return tr.upsample_nearest(args[0], shape)
    return _UNHANDLED


def _convert_pool_gather(c: _Call) -> Any:
    """Converts pooling and indirect reads; ``_UNHANDLED`` for any other op."""
    tr, args, target, op, overload, dtype, shape = (
        c.tr, c.args, c.target, c.op, c.overload, c.dtype, c.shape)
    opt = c.opt
    if op in ("avg_pool2d", "max_pool2d_with_indices", "max_pool2d"):
        assert shape is not None
        kernel = args[1]
        stride = opt(2, "stride", [])
        padding = opt(3, "padding", [0])
        rest = args[4:] if op == "avg_pool2d" else []
        dilation = opt(4, "dilation", [1]) if op != "avg_pool2d" else [1]
        ceil_mode = opt(5, "ceil_mode", False) if op != "avg_pool2d" else opt(
            4, "ceil_mode", False)
        if any(p != 0 for p in padding) or any(d != 1 for d in dilation) or ceil_mode or (
                op == "avg_pool2d" and len(rest) > 2 and rest[2] is not None):
            raise UnsupportedOp(str(target),
                                "padding, dilation, ceil_mode or a divisor override")
        kind = "avg" if op == "avg_pool2d" else "max"
        kernel = [kernel] if isinstance(kernel, int) else kernel
        stride = [stride] if isinstance(stride, int) else stride
        vals = tr.pool2d(kind, args[0], kernel, stride, shape, dtype)
        if op == "max_pool2d_with_indices":
            return [vals, _Refused("max_pool2d_with_indices (its indices)")]
        return vals
    if op == "index_select":
        return tr.index_select(args[0], args[1], args[2])
    if op == "embedding":
        return tr.index_select(args[0], 0, args[1], what="embedding")
    if op == "index" and overload == "Tensor":
        idx = args[1]
        present = [i for i, t in enumerate(idx) if t is not None]
        if len(present) != 1:
            raise UnsupportedOp(str(target), f"indexing with {len(present)} tensors")
        t = idx[present[0]]
        if t.dtype == "bool":
            raise UnsupportedOp(str(target), "a bool mask")
        return tr.index_select(args[0], present[0], t, wrap=True, what="index")
    if op == "gather":
        return tr.gather(args[0], args[1], args[2])
    return _UNHANDLED


def _convert_reductions(c: _Call) -> Any:
    """Converts reductions and normalizations; ``_UNHANDLED`` for any other op."""
    tr, args, kwargs, target, op, overload, dtype = (
        c.tr, c.args, c.kwargs, c.target, c.op, c.overload, c.dtype)
    opt = c.opt
    if op in ("sum", "amax", "amin", "mean", "max", "min"):
        x = args[0]
        dims = _dims(args[1]) if len(args) > 1 else _dims(kwargs.get("dim"))
        keepdim = bool(args[2]) if len(args) > 2 else bool(kwargs.get("keepdim", False))
        if op in ("max", "min") and overload == "dim":
            keep = bool(args[2]) if len(args) > 2 else bool(kwargs.get("keepdim", False))
            v = _minmax(tr, op, x, dims, keep, x.dtype)
            return [v, _Refused(f"{target} (its indices)")]
        if op in ("max", "min", "amax", "amin"):
            if op in ("max", "min") and overload != "default":
                raise UnsupportedOp(str(target), overload)
            return _minmax(tr, op, x, dims, keepdim, dtype)
        if op == "mean":
            return tr.mean(x, dims, keepdim, dtype)
        acc = dtype
        return tr.reduce("sum", tr.cast(x, acc) if is_float(acc) else x, dims, keepdim, acc)
    if op in ("var", "std", "var_mean", "std_mean"):
        x = args[0]
        dims = _dims(opt(1, "dim"))
        correction = kwargs.get("correction", 1 if overload != "correction" else None)
        if correction is None:
            correction = 1
        if overload == "default":
            correction = 1 if opt(1, "unbiased", True) else 0
            dims = None
        keepdim = bool(kwargs.get("keepdim", False))
        fdt = dtype if is_float(dtype) else "float32"
        v, m = tr.var(x, dims, float(correction), keepdim, fdt)
        if op.startswith("std"):
            v = tr.math("sqrt", v, fdt)
        return [v, m] if op.endswith("_mean") else v
    if op == "logsumexp":
        keepdim = bool(opt(2, "keepdim", False))
        return tr.logsumexp(args[0], _dims(args[1]) or [], keepdim, dtype)
    if op == "_softmax":
        return tr.softmax(args[0], args[1], dtype)
    if op == "_log_softmax":
        return tr.softmax(args[0], args[1], dtype, log=True)
    if op == "native_layer_norm":
        x, norm_shape, w, b, eps = args[:5]
        stat = "float32" if x.dtype in ("float16", "bfloat16") else dtype
        out, mean, rstd = tr.layer_norm(x, len(norm_shape), w, b, eps, dtype, stat)
        return [out, mean, rstd]
    return _UNHANDLED


#: Tried in order: the first that handles an op converts it.
_CONVERTERS: tuple[Callable[[_Call], Any], ...] = (
    _convert_arith,
    _convert_activations,
    _convert_views,
    _convert_pool_gather,
    _convert_reductions,
)


@dataclass(frozen=True)
class _Refused:
    """A result the front end cannot compute (e.g. the indices of ``max_pool2d``): refused
    when something uses it."""

    what: str


def _minmax(tr: _Tracer, op: str, x: _Lazy, dims: Sequence[int] | None, keepdim: bool,
            dtype: str) -> _Lazy:
    if op in ("max", "amax"):
        return tr.reduce("max", x, dims, keepdim, dtype)
    neg = tr.elementwise("neg", [x], x.dtype)
    return tr.elementwise("neg", [tr.reduce("max", neg, dims, keepdim, dtype)], dtype)


def _pow(tr: _Tracer, x: _Lazy, e: Any, dtype: str) -> _Lazy:
    """``x ** e`` for the exponents models use: small integers by multiplication, 0.5 and
    -0.5 by sqrt and rsqrt, -1 by division."""
    if isinstance(e, float) and e.is_integer():
        e = int(e)
    if isinstance(e, int) and 1 <= e <= 4:
        out = x
        for _ in range(e - 1):
            out = tr.elementwise("mul", [out, x], dtype)
        return tr.cast(out, dtype)
    if e == 0:
        return tr.constant(x.shape, 1, dtype)
    if e == -1:
        return tr.elementwise("truediv", [1.0, tr.cast(x, dtype)], dtype)
    if e == 0.5:
        return tr.math("sqrt", x, dtype)
    if e == -0.5:
        return tr.math("rsqrt", x, dtype)
    raise UnsupportedOp("aten.pow.Tensor_Scalar", f"exponent {e}")
