"""Tracing: the ATen graph the function runs on the example inputs (what ``make_fx`` records:
:func:`~indexalg_triton.frontend.capture.capture`), then each call node of the graph through the
converter registered for its op (:mod:`~indexalg_triton.frontend.registry`), then the
kernel's loops and stores (:func:`from_torch`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from indexalg.expr import Expr, Symbol, add, integer, mul
from indexalg_triton.errors import FrontendError, UnsupportedOp
from indexalg_triton.frontend.capture import capture
from indexalg_triton.frontend.lazy import (
    Coords,
    Lazy,
    Refused,
    contiguous_strides,
    digits,
    dtype_name,
    squeezed,
)
from indexalg_triton.frontend.registry import Call, converter_for
from indexalg_triton.frontend.tracer import Tracer
from indexalg_triton.layout import View
from indexalg_triton.spec import KernelSpec, Operand, SpecBuilder

__all__ = ["from_torch", "op_name"]


def from_torch(
    fn: Callable[..., Any], *example_inputs: Any, name: str | None = None, layout: str = "torch"
) -> KernelSpec:
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
        raise FrontendError(f"from_torch: layout must be 'torch' or 'contiguous', not {layout!r}")
    import torch

    kname = str(name or getattr(fn, "__name__", None) or "kernel")
    if not kname.isidentifier():
        kname = "kernel"
    graph = capture(fn, example_inputs)
    tr = Tracer(kname)
    env: dict[str, Any] = {}
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    bufs: list[tuple[str, View]] = []
    for i, (node, t) in enumerate(zip(placeholders, example_inputs)):
        if not isinstance(t, torch.Tensor):
            raise FrontendError(f"input {i} is not a tensor")
        name_i = f"in{i}"
        view = View.of(list(t.shape), list(t.stride()), 0, dtype_name(t.dtype))
        bufs.append((name_i, view))
        env[node.name] = _input(tr, name_i, tuple(t.shape), list(t.stride()), dtype_name(t.dtype))
    result: Any = None
    for node in graph.nodes:
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
        dtype = dtype_name(val.dtype) if isinstance(val, torch.Tensor) else "float32"
        shape = tuple(int(s) for s in val.shape) if isinstance(val, torch.Tensor) else None
        out = _convert(tr, node, env, dtype, shape)
        if isinstance(out, Lazy) and shape is not None and out.shape != shape:
            raise FrontendError(  # pragma: no cover - a converter bug
                f"from_torch: {node.target} gave shape {out.shape}, torch {shape}"
            )
        env[node.name] = tr.cast(out, dtype) if isinstance(out, Lazy) else out
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    outs = []
    strides: list[list[int] | None] = []
    for r in results:
        out = env.get(r.name) if isinstance(r, torch.fx.Node) else None
        if not isinstance(out, Lazy):
            raise FrontendError("the function's results must be tensors")
        outs.append(out)
        val = r.meta.get("val")
        strides.append(
            [int(x) for x in val.stride()]
            if layout == "torch" and isinstance(val, torch.Tensor)
            else None
        )
    if not outs:
        raise FrontendError("the function returns no tensor")
    return _build(tr, kname, bufs, outs, strides)


def _input(tr: Tracer, name: str, shape: tuple[int, ...], strides: list[int], dtype: str) -> Lazy:
    def at(c: Coords) -> Operand:
        index = add(*(mul(s, ci) for s, ci in zip(strides, c)))
        return tr.builder.load(name, index, guard=tr.guard())

    return Lazy(shape, dtype, at)


def _dense_permutation(shape: Sequence[int], strides: Sequence[int] | None) -> list[int] | None:
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


def _build(
    tr: Tracer,
    kname: str,
    bufs: list[tuple[str, View]],
    outs: list[Lazy],
    strides: Sequence[Sequence[int] | None] = (),
) -> KernelSpec:
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
    kept = squeezed(space)
    layouts = [
        _dense_permutation(o.shape, strides[k] if k < len(strides) else None)
        if red is None
        else None
        for k, o in enumerate(outs)
    ]
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
        lay = layouts[k] or contiguous_strides(o.shape)
        out_strides.append(lay)
        tr.b.buffer(f"out{k}", View.of(list(o.shape), lay, 0, o.dtype), output=True)
        if red is not None and o.shape == red[1]:
            rc = iter(digits(Symbol("r0"), [red[1][d] for d in red[0]]))
            it = iter(loop_syms)
            coords_of.append(
                [
                    next(rc) if i in red[0] else integer(0) if s == 1 else next(it)
                    for i, s in enumerate(o.shape)
                ]
            )
        elif squeezed(o.shape) == kept:
            it = iter(loop_syms)
            coords_of.append([integer(0) if s == 1 else next(it) for s in o.shape])
        else:
            what = (
                f"the reduction input {red[1]} or its reduced shape"
                if red
                else f"the shape {space}"
            )
            raise FrontendError(
                f"from_torch: result {k} has shape {o.shape}; every result must have {what}"
            )
    for k, (o, coords) in enumerate(zip(outs, coords_of)):
        val = o.at(coords)
        if not isinstance(val, str):
            raise FrontendError(f"result {k} is a constant, not a tensor")
        index = add(*(mul(s, c) for s, c in zip(out_strides[k], coords)))
        tr.b.store(f"out{k}", index, val)
    return tr.b.build()


def op_name(target: Any) -> str:
    """The registry's name of a graph node's target: ``namespace.op`` without the overload
    (``aten.relu``; an in-place op on a temporary, ``aten.relu_``, as ``aten.relu``)."""
    namespace = getattr(target, "namespace", None) or "aten"
    op = (
        getattr(target, "_opname", None) or str(target).split(".")[-2 if "." in str(target) else -1]
    )
    if op.endswith("_") and not op.endswith("__"):  # in-place on a temporary
        op = op[:-1]
    return f"{namespace}.{op}"


def _convert(
    tr: Tracer, node: Any, env: dict[str, Any], dtype: str, shape: tuple[int, ...] | None
) -> Any:
    import operator

    import torch

    def arg(a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            v = env[a.name]
            if isinstance(v, Refused):
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
    op = op_name(target)
    overload = str(target).split(".")[-1]
    converter = converter_for(op)
    if converter is None:
        raise UnsupportedOp(str(target), overload)
    return converter(Call(tr, args, kwargs, target, op, overload, dtype, shape))
