"""frontend.capture records the graph make_fx records (node for node: ops, arguments, result
metadata) for every function the front end's tests, the models suite and the workloads trace,
without importing torch._dynamo; what it does not follow goes to make_fx."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from bench.gpu_models import MODELS  # noqa: E402
from indexalg_triton.errors import FrontendError  # noqa: E402
from indexalg_triton.frontend import capture as cap  # noqa: E402
from indexalg_triton.frontend import from_torch  # noqa: E402
from indexalg_triton.workloads import WORKLOADS  # noqa: E402
from tests.triton.test_frontend_ops import CASES  # noqa: E402


def _functions() -> dict[str, tuple[Callable[..., Any], list[Any]]]:
    out = {f"ops:{k}": v for k, v in CASES.items()}
    out.update({f"model:{k}": (m.fn, m.inputs("small", "cpu", seed=3)) for k, m in MODELS.items()})
    for k, w in WORKLOADS.items():
        out[f"workload:{k}"] = (w.fn, w.example_inputs("small"))
        out[f"workload:{k}:meta"] = (w.fn, w.example_inputs("small", "meta"))
    return out


def _nodes(graph: Any) -> list[tuple[object, ...]]:
    """Each node: its kind, target (placeholders unnamed), arguments (nodes by position) and
    result metadata (shape, strides, dtype)."""
    index = {n: i for i, n in enumerate(graph.nodes)}

    def arg(a: Any) -> object:
        if isinstance(a, torch.fx.Node):
            return ("node", index[a])
        if isinstance(a, (list, tuple)):
            return (type(a).__name__, tuple(arg(x) for x in a))
        if isinstance(a, dict):
            return tuple(sorted((k, arg(v)) for k, v in a.items()))
        return (type(a).__name__, repr(a))

    def val(v: Any) -> object:
        if isinstance(v, torch.Tensor):
            return (tuple(v.shape), v.stride(), v.dtype)
        if isinstance(v, (list, tuple)):
            return tuple(val(x) for x in v)
        return repr(v)

    return [
        (n.op, "" if n.op == "placeholder" else str(n.target), arg(n.args), arg(n.kwargs),
         val(n.meta.get("val")))
        for n in graph.nodes
    ]  # fmt: skip


FUNCTIONS = _functions()


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_the_recorded_graph_is_make_fxs(name: str) -> None:
    fn, xs = FUNCTIONS[name]
    assert _nodes(cap._record(fn, xs)) == _nodes(cap.make_fx_graph(fn, xs))


@pytest.mark.parametrize(
    ("fn", "error"),
    [
        (lambda x: x + torch.tensor([1.0, 2.0, 3.0]), "get_attr"),  # a constant: make_fx's node
        (lambda x: x * 2 if bool(x.sum() > 0) else x, None),  # data-dependent: make_fx's error
    ],
)
def test_what_is_not_followed_is_make_fxs(fn: Callable[..., Any], error: str | None) -> None:
    x = torch.randn(4, 3)
    with pytest.raises(cap._Unfollowed):
        cap._record(fn, [x])
    with pytest.raises(FrontendError if error else RuntimeError, match=error or "value out"):
        from_torch(fn, x)


def test_emit_imports_no_dynamo() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from indexalg_triton.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    for w in ('transpose_add', 'softmax', 'int8_unpack', 'index_select'):\n"
        "        assert main(['emit', '--workload', w]) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith(('torch._dynamo', 'torch._inductor'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
