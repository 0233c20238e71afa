"""The ATen graph a torch function runs on its example inputs (:func:`capture`).

``make_fx`` (torch 2.13) imports ``torch._inductor`` and ``torch._dynamo`` on every call (its
tracer reads ``torch._inductor.config`` and imports ``torch._dynamo`` before tracing): about
2.5 s of a ``from_torch`` in a fresh process, as long as the ``import torch`` it needs
anyway.  What ``from_torch`` reads of make_fx's graph in real mode is the ATen ops the
function runs (after autograd's decompositions), their arguments and the metadata of their
results; a dispatch mode records exactly that: each op reaching it, run on the inputs, one
``call_function`` node with its arguments (tensors as the nodes that made them), an
``operator.getitem`` node per tensor of a tuple or list result, and ``meta["val"]`` a tensor
of the result's shape, strides and dtype on the ``meta`` device.  No node is eliminated
(make_fx keeps every node of a real-mode trace too).  tests/triton/test_capture.py compares
the two graphs node for node on every function the front end's tests, the models suite and
the workloads trace.  On CPU tensors nothing imports ``torch._dynamo`` then; on ``meta``
tensors torch's Python references of elementwise ops still do (their type-promotion wrapper
is ``torch._disable_dynamo``), so the built-in workloads trace small inputs on the CPU
(:meth:`~indexalg_triton.workloads.Workload.example_inputs`).

What the recorder does not follow it hands to ``make_fx``, which then traces from the start
(so errors are make_fx's): inputs that are not plain tensors, a tensor the function did not
get from its inputs or an op (a constant: ``torch.tensor(...)``, a module's parameters), an
op whose result is data (``.item()``, a tensor's truth value), a result that is not tensors,
or any error at all.  (A function that changes its inputs in place and then does one of
these runs twice.)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["capture", "make_fx_graph"]


class _Unfollowed(Exception):
    """The function does something the recorder does not follow: make_fx traces it."""


def capture(fn: Callable[..., Any], inputs: Sequence[Any]) -> Any:
    """The ``torch.fx.Graph`` of ATen ops ``fn(*inputs)`` runs (see the module docstring)."""
    try:
        return _record(fn, inputs)
    except Exception:  # unfollowed, or fn failed: make_fx from the start, with its errors
        return make_fx_graph(fn, inputs)


def make_fx_graph(fn: Callable[..., Any], inputs: Sequence[Any]) -> Any:
    """The graph of ``make_fx(fn)(*inputs)`` (imports torch._dynamo)."""
    from torch.fx.experimental.proxy_tensor import make_fx

    return make_fx(fn)(*inputs).graph


def _record(fn: Callable[..., Any], inputs: Sequence[Any]) -> Any:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode, autograd_would_have_decomposed
    from torch.utils._pytree import tree_flatten
    from torch.utils.weak import WeakTensorKeyDictionary

    if not all(type(t) is torch.Tensor for t in inputs):
        raise _Unfollowed("an input is not a plain tensor")
    graph = torch.fx.Graph()
    # tensor -> the node that made it; weak, as make_fx's: a reference held here would make
    # a factory's result shared, which torch then detaches (an aten.detach make_fx has not)
    nodes: Any = WeakTensorKeyDictionary()

    def made(t: Any, node: Any) -> None:
        node.meta["val"] = _meta(t)
        nodes[t] = node

    def node_args(a: Any) -> Any:
        if isinstance(a, torch.Tensor):
            if a not in nodes:
                raise _Unfollowed("a tensor that no input or op made")
            return nodes[a]
        if isinstance(a, (list, tuple)):
            return type(a)(node_args(x) for x in a)
        if isinstance(a, dict):
            return {k: node_args(v) for k, v in a.items()}
        return a

    for i, t in enumerate(inputs):
        made(t, graph.placeholder(f"arg{i}_1"))

    class Recorder(TorchDispatchMode):  # type: ignore[no-untyped-call]
        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            # torch's hook (TorchDispatchMode's docstring): nothing is compiled in here, and
            # True wraps __torch_dispatch__ in torch._disable_dynamo, which imports dynamo
            return False

        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            kwargs = kwargs or {}
            if torch.Tag.data_dependent_output in func.tags or func in _unfollowed(torch):
                raise _Unfollowed(str(func))
            if autograd_would_have_decomposed(func, tree_flatten((args, kwargs))[0]):
                with self:  # as make_fx: the decomposition's ops are recorded
                    r = func.decompose(*args, **kwargs)
                if r is not NotImplemented:
                    return r
            out = func(*args, **kwargs)
            node = graph.call_function(func, node_args(args), node_args(kwargs))
            if isinstance(out, torch.Tensor):
                made(out, node)
            elif isinstance(out, (list, tuple)) and all(isinstance(x, torch.Tensor) for x in out):
                node.meta["val"] = type(out)(_meta(x) for x in out)
                for k, x in enumerate(out):
                    made(x, graph.call_function(operator.getitem, (node, k)))
            else:
                raise _Unfollowed(f"{func} gave {type(out).__name__}")
            return out

    with Recorder():  # type: ignore[no-untyped-call]
        result = fn(*inputs)
    flat, _ = tree_flatten(result)
    if not flat or not all(isinstance(x, torch.Tensor) for x in flat):
        raise _Unfollowed("a result that is not tensors")
    graph.output(node_args(result))
    return graph


def _meta(t: Any) -> Any:
    """A tensor of ``t``'s shape, strides and dtype on the meta device (make_fx's ``val``)."""
    import torch

    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


def _unfollowed(torch: Any) -> tuple[Any, ...]:
    """Ops make_fx treats specially: constants lifted into the graph, a tensor's truth."""
    aten = torch.ops.aten
    return (aten.lift_fresh.default, aten.lift_fresh_copy.default, aten.is_nonzero.default)
