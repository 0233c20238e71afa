"""``from_torch(fn, *example_inputs)``: a torch function traced with torch.fx into a spec.

The function is traced to ATen ops with ``make_fx`` on the example inputs; each node
becomes a *lazy tensor*: a shape, a dtype and a rule that, given coordinates (index
expressions over the kernel's loop variables), emits the ops computing that element into a
:class:`~indexalg_triton.spec.SpecBuilder` (equal ops are shared).  So views never copy:

* inputs: ``load(input, offset-free sum(coord * stride))`` with the example's strides (the
  kernel argument is the tensor itself, so its storage offset is in its data pointer);
* ``permute``/``t``/``transpose``, ``slice`` (``start + step * coord``), ``unsqueeze``,
  ``squeeze``, ``expand`` and broadcasting (coordinate 0 on size-1 dimensions),
  ``view``/``reshape`` (coordinates through the flat index: ``(flat // stride) mod size``),
  ``clone``/``contiguous``/``alias``: coordinate maps;
* elementwise ``add sub mul div neg exp abs maximum minimum relu bitwise_and/or/xor
  __lshift__ __rshift__ eq ne lt le gt ge where _to_copy``: ops;
* ``stack``: a select on the new coordinate; ``index_select`` and ``gather``: indirect loads
  with a bounds check on the index;
* reductions ``sum``, ``amax``, ``mean`` over one dimension, and ``_softmax`` (max, exp,
  sum) over one dimension.

A kernel has at most one reduction size: every reduction must reduce a dimension of the
same size.  The output is one contiguous tensor of the function's result shape; with a
reduction it is either the reduced shape (stored once per row) or the reduction input's
shape (stored per element, e.g. softmax).  Anything else raises
:class:`~indexalg.errors.InvalidOperationError` naming the unsupported op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from indexalg.errors import InvalidOperationError
from indexalg.expr import Expr, ModularIndexing, Symbol, add, as_expr, integer, mul
from indexalg_triton.layout import View
from indexalg_triton.spec import KernelSpec, Operand, SpecBuilder

__all__ = ["from_torch"]

_Coords = Sequence[Expr]
_At = Callable[[_Coords], Operand]

_BINARY = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "maximum": "maximum",
    "minimum": "minimum", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
    "__lshift__": "lshift", "__rshift__": "rshift", "eq": "eq", "ne": "ne", "lt": "lt",
    "le": "le", "gt": "gt", "ge": "ge",
}
_UNARY = {"neg": "neg", "exp": "exp", "abs": "abs"}
_IDENTITY = {"clone", "contiguous", "alias", "lift_fresh_copy", "detach"}


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
        raise InvalidOperationError(f"dimension {d} out of range for {n} dimensions")
    return d % n if n else 0


class _Tracer:
    def __init__(self, name: str) -> None:
        self.name = name
        self.b: SpecBuilder | None = None
        self.reduction: tuple[int, tuple[int, ...]] | None = None  # (size, input shape)

    # -- helpers -------------------------------------------------------------------------

    @property
    def builder(self) -> SpecBuilder:
        assert self.b is not None
        return self.b

    def broadcast(self, x: _Lazy, shape: tuple[int, ...]) -> _Lazy:
        if x.shape == shape:
            return x
        lead = len(shape) - len(x.shape)
        if lead < 0:
            raise InvalidOperationError(f"cannot broadcast {x.shape} to {shape}")
        for s, t in zip(x.shape, shape[lead:]):
            if s not in (1, t):
                raise InvalidOperationError(f"cannot broadcast {x.shape} to {shape}")
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
        raise InvalidOperationError(f"unsupported operand {a!r}")

    def elementwise(self, kind: str, args: Sequence[Any], dtype: str) -> _Lazy:
        shapes = [a.shape for a in args if isinstance(a, _Lazy)]
        shape = _broadcast_shapes(shapes)
        ops = [self.operand(a, shape) for a in args]

        def at(c: _Coords) -> Operand:
            vals = [o.at(c) if isinstance(o, _Lazy) else o for o in ops]
            return self.builder.op(kind, *vals, dtype=dtype)

        return _Lazy(shape, dtype, at)

    # -- views ---------------------------------------------------------------------------

    def permute(self, x: _Lazy, dims: Sequence[int]) -> _Lazy:
        n = len(x.shape)
        dims = [_norm_dim(d, n) for d in dims]

        def at(c: _Coords) -> Operand:
            old: list[Expr] = [integer(0)] * n
            for k, d in enumerate(dims):
                old[d] = c[k]
            return x.at(old)

        return _Lazy(tuple(x.shape[d] for d in dims), x.dtype, at)

    def slice(self, x: _Lazy, dim: int, start: int | None, end: int | None,
              step: int) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))
        size = x.shape[d]
        lo, hi, st = slice(start, end, step).indices(size)
        n = max(0, -(-(hi - lo) // st))

        def at(c: _Coords) -> Operand:
            cs = list(c)
            cs[d] = add(lo, mul(st, c[d]))
            return x.at(cs)

        return _Lazy((*x.shape[:d], n, *x.shape[d + 1:]), x.dtype, at)

    def reshape(self, x: _Lazy, shape: Sequence[int]) -> _Lazy:
        new = list(shape)
        total = 1
        for s in x.shape:
            total *= s
        if new.count(-1) == 1:
            known = 1
            for s in new:
                if s != -1:
                    known *= s
            new[new.index(-1)] = total // max(known, 1)
        new_total = 1
        for s in new:
            new_total *= s
        if new_total != total:
            raise InvalidOperationError(f"cannot view {x.shape} as {tuple(shape)}")
        new_strides = _contiguous_strides(new)
        old_strides = _contiguous_strides(x.shape)

        def at(c: _Coords) -> Operand:
            flat = add(*(mul(s, ci) for s, ci in zip(new_strides, c)))
            old: list[Expr] = []
            for k, (size, stride) in enumerate(zip(x.shape, old_strides)):
                if size == 1:
                    old.append(integer(0))
                elif k == 0:
                    old.append(flat if stride == 1 else as_expr(flat) // stride)
                else:
                    old.append(ModularIndexing.make(flat, stride, size))
            return x.at(old)

        return _Lazy(tuple(new), x.dtype, at)

    def unsqueeze(self, x: _Lazy, dim: int) -> _Lazy:
        d = dim % (len(x.shape) + 1)

        def at(c: _Coords) -> Operand:
            return x.at(list(c[:d]) + list(c[d + 1:]))

        return _Lazy((*x.shape[:d], 1, *x.shape[d:]), x.dtype, at)

    def squeeze(self, x: _Lazy, dims: Sequence[int] | None) -> _Lazy:
        n = len(x.shape)
        ds = [i for i in range(n) if x.shape[i] == 1] if dims is None else \
            [_norm_dim(d, n) for d in dims if x.shape[_norm_dim(d, n)] == 1]

        def at(c: _Coords) -> Operand:
            it = iter(c)
            return x.at([integer(0) if i in ds else next(it) for i in range(n)])

        return _Lazy(tuple(s for i, s in enumerate(x.shape) if i not in ds), x.dtype, at)

    def expand(self, x: _Lazy, sizes: Sequence[int]) -> _Lazy:
        lead = len(sizes) - len(x.shape)
        shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        return self.broadcast(x, shape)

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

    # -- indirect ------------------------------------------------------------------------

    def index_select(self, x: _Lazy, dim: int, idx: _Lazy) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))
        size = x.shape[d]

        def at(c: _Coords) -> Operand:
            i = idx.at([c[d]])
            if not isinstance(i, str):
                raise InvalidOperationError("index_select needs a tensor of indices")
            self.builder.check(i, size)
            cs = list(c)
            cs[d] = Symbol(i)
            return x.at(cs)

        return _Lazy(x.shape[:d] + idx.shape + x.shape[d + 1:], x.dtype, at)

    def gather(self, x: _Lazy, dim: int, idx: _Lazy) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))
        size = x.shape[d]

        def at(c: _Coords) -> Operand:
            i = idx.at(c)
            if not isinstance(i, str):
                raise InvalidOperationError("gather needs a tensor of indices")
            self.builder.check(i, size)
            cs = list(c)
            cs[d] = Symbol(i)
            return x.at(cs)

        return _Lazy(idx.shape, x.dtype, at)

    # -- reductions ----------------------------------------------------------------------

    def _note_reduction(self, x: _Lazy, d: int) -> None:
        key = (x.shape[d], x.shape)
        if self.reduction is None:
            self.reduction = (d, x.shape)
        elif (self.reduction[1][self.reduction[0]], self.reduction[1]) != key:
            raise InvalidOperationError(
                "a kernel has one reduction loop: every reduction must reduce the same "
                f"dimension of the same shape ({self.reduction[1]} dim {self.reduction[0]} "
                f"vs {x.shape} dim {d})"
            )

    def reduce(self, kind: str, x: _Lazy, dims: Sequence[int] | None, keepdim: bool,
               dtype: str) -> _Lazy:
        n = len(x.shape)
        ds = list(range(n)) if not dims else [_norm_dim(d, n) for d in dims]
        ds = [d for d in ds if x.shape[d] != 1]
        if len(ds) != 1:
            raise InvalidOperationError(f"{kind} over {len(ds)} dimensions: one is supported")
        d = ds[0]
        self._note_reduction(x, d)
        rsym = Symbol("r0")

        def at(c: _Coords) -> Operand:
            cs = list(c)
            if keepdim:
                cs[d] = rsym
            else:
                cs.insert(d, rsym)
            v = x.at(cs)
            if not isinstance(v, str):
                raise InvalidOperationError(f"{kind} of a constant")
            return self.builder.reduce(kind, v, dtype)

        if keepdim:
            shape = (*x.shape[:d], 1, *x.shape[d + 1:])
        else:
            shape = x.shape[:d] + x.shape[d + 1:]
        return _Lazy(shape, dtype, at)

    def softmax(self, x: _Lazy, dim: int, dtype: str) -> _Lazy:
        d = _norm_dim(dim, len(x.shape))
        mx = self.reduce("max", x, [d], True, x.dtype)
        shifted = self.elementwise("sub", [x, mx], dtype)
        e = self.elementwise("exp", [shifted], dtype)
        s = self.reduce("sum", e, [d], True, dtype)
        return self.elementwise("truediv", [e, s], dtype)


def _broadcast_shapes(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, v in enumerate(s):
            j = n - len(s) + i
            if v != 1:
                if out[j] not in (1, v):
                    raise InvalidOperationError(f"shapes {list(shapes)} do not broadcast")
                out[j] = v
    return tuple(out)


def from_torch(fn: Callable[..., Any], *example_inputs: Any, name: str | None = None
               ) -> KernelSpec:
    """Trace ``fn`` on ``example_inputs`` (torch tensors) into one kernel spec.

    The spec's buffers are ``in0, in1, ...`` (the inputs, with their strides) and ``out0``
    (the contiguous result).  See the module docstring for the supported ops.
    """
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
            raise InvalidOperationError(f"input {i} is not a tensor")
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
            raise InvalidOperationError(f"unsupported fx node {node.op} {node.target}")
        val = node.meta.get("val")
        dtype = _dtype_name(val.dtype) if isinstance(val, torch.Tensor) else "float32"
        env[node.name] = _convert(tr, node, env, dtype)
    if isinstance(result, (list, tuple)):
        if len(result) != 1:
            raise InvalidOperationError("from_torch supports functions with one result")
        result = result[0]
    out = env[result.name]
    if not isinstance(out, _Lazy):
        raise InvalidOperationError("the function's result is not a tensor")
    return _build(tr, kname, bufs, out)


def _input(tr: _Tracer, name: str, shape: tuple[int, ...], strides: list[int],
           dtype: str) -> _Lazy:
    def at(c: _Coords) -> Operand:
        return tr.builder.load(name, add(*(mul(s, ci) for s, ci in zip(strides, c))))

    return _Lazy(shape, dtype, at)


def _build(tr: _Tracer, kname: str, bufs: list[tuple[str, View]], out: _Lazy) -> KernelSpec:
    shape = out.shape
    out_strides = _contiguous_strides(shape)
    red = tr.reduction
    loops: list[tuple[str, int]] = []
    coord_of: list[Expr] = []
    reduction: tuple[str, int] | None = None
    if red is not None and shape == red[1]:
        d, rshape = red
        reduction = ("r0", rshape[d])
        names = [i for i in range(len(shape)) if i != d]
    else:
        names = list(range(len(shape)))
        if red is not None:
            d, rshape = red
            reduction = ("r0", rshape[d])
    kept = [i for i in names if shape[i] != 1]
    loop_names = {i: f"x{len(kept) - 1 - k}" for k, i in enumerate(kept)}
    for i in kept:
        loops.append((loop_names[i], shape[i]))
    if not loops:
        loops.append(("x0", 1))
    for i in range(len(shape)):
        if reduction is not None and red is not None and shape == red[1] and i == red[0]:
            coord_of.append(Symbol("r0"))
        elif i in loop_names:
            coord_of.append(Symbol(loop_names[i]))
        else:
            coord_of.append(integer(0))
    tr.b = SpecBuilder(kname, loops=loops, reduction=reduction)
    for n, v in bufs:
        tr.b.buffer(n, v)
    tr.b.buffer("out0", View.of(list(shape), out_strides, 0, out.dtype), output=True)
    val = out.at(coord_of)
    if not isinstance(val, str):
        raise InvalidOperationError("the function's result is a constant, not a tensor")
    index = add(*(mul(s, c) for s, c in zip(out_strides, coord_of)))
    tr.b.store("out0", index, val)
    return tr.b.build()


def _convert(tr: _Tracer, node: Any, env: dict[str, Any], dtype: str) -> Any:
    import torch

    def arg(a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            return env[a.name]
        if isinstance(a, (list, tuple)):
            return [arg(x) for x in a]
        return a

    args = [arg(a) for a in node.args]
    kwargs = {k: arg(v) for k, v in node.kwargs.items()}
    target = node.target
    op = getattr(target, "_opname", None) or str(target).split(".")[-2 if "." in str(target)
                                                                    else -1]
    overload = str(target).split(".")[-1]
    if op in _IDENTITY:
        return args[0]
    if op in _BINARY:
        x, y = args[0], args[1]
        alpha = kwargs.get("alpha", 1)
        if alpha != 1:
            y = tr.elementwise("mul", [y, alpha], dtype) if isinstance(y, _Lazy) else y * alpha
        kind = _BINARY[op]
        if kind in ("eq", "ne", "lt", "le", "gt", "ge"):
            return tr.elementwise(kind, [x, y], "bool")
        return tr.elementwise(kind, [x, y], dtype)
    if op in _UNARY:
        return tr.elementwise(_UNARY[op], [args[0]], dtype)
    if op == "relu":
        return tr.elementwise("maximum", [args[0], 0], dtype)
    if op == "where":
        return tr.elementwise("where", args[:3], dtype)
    if op in ("_to_copy", "to", "_convert_element_type", "convert_element_type"):
        x = args[0]
        return tr.elementwise("cast", [x], dtype)
    if op == "permute":
        return tr.permute(args[0], args[1])
    if op == "t":
        n = len(args[0].shape)
        return tr.permute(args[0], [1, 0] if n == 2 else list(range(n)))
    if op == "transpose":
        n = len(args[0].shape)
        d0, d1 = _norm_dim(args[1], n), _norm_dim(args[2], n)
        perm = list(range(n))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return tr.permute(args[0], perm)
    if op == "slice":
        dim = args[1] if len(args) > 1 else 0
        start = args[2] if len(args) > 2 else None
        end = args[3] if len(args) > 3 else None
        step = args[4] if len(args) > 4 else 1
        return tr.slice(args[0], dim, start, end, step)
    if op in ("view", "reshape", "_unsafe_view"):
        return tr.reshape(args[0], args[1])
    if op == "unsqueeze":
        return tr.unsqueeze(args[0], args[1])
    if op == "squeeze":
        dims = None if len(args) < 2 else (args[1] if isinstance(args[1], list) else [args[1]])
        return tr.squeeze(args[0], dims)
    if op == "expand":
        return tr.expand(args[0], args[1])
    if op == "stack":
        return tr.stack(args[0], args[1] if len(args) > 1 else 0)
    if op == "index_select":
        return tr.index_select(args[0], args[1], args[2])
    if op == "gather":
        return tr.gather(args[0], args[1], args[2])
    if op in ("sum", "amax", "mean"):
        x = args[0]
        dims = args[1] if len(args) > 1 else None
        if isinstance(dims, int):
            dims = [dims]
        keepdim = bool(args[2]) if len(args) > 2 else bool(kwargs.get("keepdim", False))
        if op == "amax":
            return tr.reduce("max", x, dims, keepdim, dtype)
        s = tr.reduce("sum", x, dims, keepdim, dtype)
        if op == "sum":
            return s
        n = 1
        for i, size in enumerate(x.shape):
            if dims is None or i in [_norm_dim(d, len(x.shape)) for d in dims]:
                n *= size
        return tr.elementwise("truediv", [s, float(n)], dtype)
    if op == "_softmax":
        return tr.softmax(args[0], args[1], dtype)
    raise InvalidOperationError(f"from_torch: unsupported op {target} ({overload})")
