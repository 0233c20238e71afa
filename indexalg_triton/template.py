"""Kernel templates: hand-written kernels with named, isolated bodies and late-bound hooks.

A template is a function that returns kernel text and, in it, *placeholders* made by a
:class:`TemplateKernel`:

* ``k.def_kernel(*args)`` -- the signature: the template's own arguments, then every argument
  that bodies register later (:meth:`TemplateKernel.add_input`, ``add_output``), then the
  constexpr block sizes;
* ``k.body(name, depth)`` -- the lines written to body ``name`` (prologue, inner loop,
  epilogue, post-store...), indented ``depth`` levels;
* ``k.store_output(buffer, index, mask, depth)`` -- the ``epilogue`` body (which turns
  ``acc`` into ``epi``) followed by the store of ``epi``.

Bodies are isolated: code is written to one with ``with k.set_subgraph_body(name):`` and
``k.emit(line)``; nothing is written to a shared body, so a body can sit anywhere in the
text -- after the store of the output, for instance -- and several bodies can be filled in
any order.  The text and its placeholders form a :class:`PartialRender`, whose hooks are
finalised one by one (:meth:`PartialRender.finalize_hook`) in any order, or all at once
(:meth:`PartialRender.finalize_all`); every order gives the same source.  Once a hook is
finalised, what it read is frozen: registering an argument after ``def_kernel`` was
finalised, or writing to a body already rendered, is an error rather than a silent loss.

:func:`matmul_template` is the demonstration: a tiled ``out = epilogue(a @ b)`` with an
optional fused bias / ReLU / scale epilogue and an optional second output ``raw`` (``a @ b``
before the epilogue) stored in a body placed after the store of ``out``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from indexalg.printing.triton import TRITON_PREAMBLE
from indexalg_triton import runtime
from indexalg_triton.debug import record_kernel
from indexalg_triton.errors import ConfigError, LaunchError, SpecError
from indexalg_triton.layout import View

__all__ = [
    "PartialRender",
    "TemplateKernel",
    "TemplateSource",
    "launch_template",
    "matmul_template",
]


class PartialRender:
    """Text with ``<HOOK:name>`` placeholders, each replaced once by its hook's output."""

    def __init__(self, code: str, hooks: Mapping[str, Callable[[], str]]) -> None:
        self.code = code
        self.hooks = dict(hooks)
        self.finalized: list[str] = []
        for name in self.hooks:
            if f"<HOOK:{name}>" not in code:
                raise SpecError(f"hook {name!r} has no placeholder in the template")

    def finalize_hook(self, name: str) -> None:
        """Render hook ``name`` into the text (each hook once)."""
        if name in self.finalized:
            raise SpecError(f"hook {name!r} is already finalized")
        if name not in self.hooks:
            raise SpecError(f"no hook {name!r} (hooks: {', '.join(self.hooks)})")
        self.code = self.code.replace(f"<HOOK:{name}>", self.hooks[name]())
        self.finalized.append(name)

    def finalize_all(self) -> str:
        """Finalise the remaining hooks in registration order; the finished source."""
        for name in self.hooks:
            if name not in self.finalized:
                self.finalize_hook(name)
        return self.code


def _indent(lines: Sequence[str], depth: int) -> str:
    pad = "    " * depth
    return "\n".join(pad + line if line else line for line in lines)


class TemplateKernel:
    """The placeholder and body machinery of one template kernel (module docstring)."""

    def __init__(self, name: str, blocks: Sequence[str] = ()) -> None:
        if not name.isidentifier():
            raise SpecError(f"template kernel name {name!r} is not an identifier")
        self.name = name
        self.blocks = tuple(blocks)
        self.bodies: dict[str, list[str]] = {}
        self.args: dict[str, None] = {}  # every argument in signature order
        self.outputs: dict[str, None] = {}
        self._current: list[str] = []  # stack of body names being written
        self._hooks: dict[str, Callable[[], str]] = {}
        self._frozen: set[str] = set()  # bodies already rendered
        self._signature_done = False
        self.render: PartialRender | None = None

    # -- bodies ------------------------------------------------------------------------------

    @contextmanager
    def set_subgraph_body(self, name: str) -> Iterator[None]:
        """Write to body ``name`` inside the block (created empty on first use)."""
        if name in self._frozen:
            raise SpecError(f"body {name!r} is already rendered")
        self.bodies.setdefault(name, [])
        self._current.append(name)
        try:
            yield
        finally:
            self._current.pop()

    def emit(self, line: str) -> None:
        if not self._current:
            raise SpecError("emit() outside set_subgraph_body(): templates have no shared body")
        name = self._current[-1]
        if name in self._frozen:
            raise SpecError(f"body {name!r} is already rendered")
        self.bodies[name].append(line)

    def add_input(self, name: str) -> str:
        """Register a kernel argument (an extra input a body reads)."""
        return self._add_arg(name)

    def add_output(self, name: str) -> str:
        """Register an extra output argument."""
        self.outputs[name] = None
        return self._add_arg(name)

    def _add_arg(self, name: str) -> str:
        if not name.isidentifier():
            raise SpecError(f"argument name {name!r} is not an identifier")
        if self._signature_done and name not in self.args:
            raise SpecError(f"argument {name!r} added after def_kernel was finalized")
        self.args[name] = None
        return name

    # -- placeholders ----------------------------------------------------------------------

    def _hook(self, name: str, fn: Callable[[], str]) -> str:
        if name in self._hooks:
            raise SpecError(f"placeholder {name!r} used twice")
        self._hooks[name] = fn
        return f"<HOOK:{name}>"

    def def_kernel(self, *args: str, outputs: Sequence[str] = ()) -> str:
        """The ``def`` line: ``args`` first, then registered arguments, then the blocks."""
        for a in args:
            self._add_arg(a)
        for o in outputs:
            self.add_output(o)

        def render() -> str:
            self._signature_done = True
            params = [*self.args, *(f"{b}: tl.constexpr" for b in self.blocks)]
            return f"def {self.name}({', '.join(params)}):"

        return self._hook("def_kernel", render)

    def body(self, name: str, depth: int) -> str:
        """A placeholder for body ``name`` (``pass`` when it stays empty)."""
        self.bodies.setdefault(name, [])

        def render() -> str:
            self._frozen.add(name)
            lines = self.bodies[name]
            return _indent([f"# body {name}", *lines], depth)

        return self._hook(f"body:{name}", render)

    def store_output(self, buffer: str, index: str, mask: str, depth: int) -> str:
        """The ``epilogue`` body (``epi`` starts as ``acc``) and the store of ``epi``."""
        self.add_output(buffer)
        self.bodies.setdefault("epilogue", [])

        def render() -> str:
            self._frozen.add("epilogue")
            lines = [
                "# body epilogue",
                "epi = acc",
                *self.bodies["epilogue"],
                f"tl.store({buffer} + ({index}), epi, {mask})",
            ]
            return _indent(lines, depth)

        return self._hook("store_output", render)

    def partial(self, code: str) -> PartialRender:
        """The template text with this kernel's hooks."""
        self.render = PartialRender(code, self._hooks)
        return self.render


@dataclass(frozen=True)
class TemplateSource:
    """A finished template kernel: module source, arguments, grid and launch metadata."""

    name: str
    source: str
    arg_names: tuple[str, ...]
    outputs: tuple[str, ...]
    grid: int
    meta: tuple[tuple[str, int], ...]
    order: tuple[str, ...]  # the order the hooks were finalized in


def matmul_template(
    m: int,
    n: int,
    k: int,
    *,
    bias: bool = False,
    relu: bool = False,
    scale: float | None = None,
    raw: bool = False,
    relu_a: bool = False,
    blocks: tuple[int, int, int] = (32, 32, 32),
    order: Sequence[str] | None = None,
    name: str = "mm_template",
    num_warps: int = 4,
) -> TemplateSource:
    """``out = epilogue(a @ b)`` for contiguous float32 ``a`` (m, k), ``b`` (k, n), ``out``
    (m, n); the epilogue adds ``bias`` (n,), applies ReLU, multiplies by ``scale`` (in that
    order); ``relu_a`` applies ReLU to each loaded tile of ``a`` in the ``inner`` body (a
    fused prologue); ``raw`` also stores ``a @ b`` into ``raw`` (m, n) after the store of ``out``.
    ``order`` finalises the hooks in that order (default: as registered)."""
    _check_matmul(m, n, k, blocks)
    bm, bn, bk = blocks
    tk = TemplateKernel(name, ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    out_index = str(View.of([m, n]).index(["rm", "rn"]))
    render = tk.partial(_matmul_text(tk, m, n, k, bn, out_index))
    # the fused bodies are written after the template text exists: the hooks read them when
    # finalised
    _fuse_matmul(tk, n, out_index, bias=bias, relu=relu, scale=scale, raw=raw, relu_a=relu_a)
    for h in order or ():
        render.finalize_hook(h)
    source = f"{TRITON_PREAMBLE}\n{render.finalize_all()}"
    record_kernel(name)
    grid = -(-m // bm) * -(-n // bn)
    meta = (("BLOCK_M", bm), ("BLOCK_N", bn), ("BLOCK_K", bk), ("num_warps", num_warps))
    return TemplateSource(
        name, source, tuple(tk.args), tuple(tk.outputs), grid, meta, tuple(render.finalized)
    )


def _check_matmul(m: int, n: int, k: int, blocks: tuple[int, int, int]) -> None:
    """Positive integer sizes; block sizes powers of two of at least 16 (``tl.dot``'s)."""
    for what, v in (("m", m), ("n", n), ("k", k)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise SpecError(f"matmul size {what} must be a positive int, got {v!r}")
    for b in blocks:
        if b < 16 or b & (b - 1):
            raise ConfigError(f"matmul blocks must be powers of two >= 16, got {b}")


def _matmul_text(tk: TemplateKernel, m: int, n: int, k: int, bn: int, out_index: str) -> str:
    """The matmul kernel's text: the tiled loop over k, with the placeholders of its
    signature, its bodies (``prologue``, ``inner``, ``post_store``) and the output's store."""
    return f"""
@triton.jit
{tk.def_kernel("a", "b")}
    # template {tk.name}: out = epilogue(a @ b), a ({m}, {k}), b ({k}, {n})
    pid = tl.program_id(0)
    pid_m = pid // {-(-n // bn)}
    pid_n = pid % {-(-n // bn)}
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask = (rm < {m}) & (rn < {n})
{tk.body("prologue", 1)}
    acc = tl.full([BLOCK_M, BLOCK_N], 0.0, tl.float32)
    for k0 in range(0, {k}, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a_tile = tl.load(a + (rm * {k} + rk[None, :]), (rm < {m}) & (rk[None, :] < {k}), other=0.0)
        b_tile = tl.load(b + (rk[:, None] * {n} + rn), (rk[:, None] < {k}) & (rn < {n}), other=0.0)
{tk.body("inner", 2)}
        acc += tl.dot(a_tile, b_tile, input_precision="ieee")
{tk.store_output("out", out_index, "mask", 1)}
{tk.body("post_store", 1)}
"""


def _fuse_matmul(
    tk: TemplateKernel,
    n: int,
    out_index: str,
    *,
    bias: bool,
    relu: bool,
    scale: float | None,
    raw: bool,
    relu_a: bool,
) -> None:
    """The fused code, each in its body: the epilogue (bias, ReLU, scale), the prologue on
    ``a``'s tiles (``inner``), the second output (``post_store``)."""
    with tk.set_subgraph_body("epilogue"):
        if bias:
            tk.add_input("bias")
            tk.emit(f"epi = epi + tl.load(bias + rn, rn < {n}, other=0.0)")
        if relu:
            tk.emit("epi = tl.maximum(epi, 0.0)")
        if scale is not None:
            tk.emit(f"epi = epi * {float(scale)!r}")
    if relu_a:
        with tk.set_subgraph_body("inner"):
            tk.emit("a_tile = tl.maximum(a_tile, 0.0)")
    if raw:
        with tk.set_subgraph_body("post_store"):
            tk.add_output("raw")
            tk.emit(f"tl.store(raw + ({out_index}), acc, mask)")


def launch_template(src: TemplateSource, tensors: Mapping[str, Any]) -> None:
    """One launch of a finished template on ``tensors`` (by argument name)."""
    missing = [a for a in src.arg_names if a not in tensors]
    if missing:
        raise LaunchError(f"launch of {src.name}: no tensor for {missing}")
    dev = str(tensors[src.arg_names[0]].device.type)
    kernel = runtime.compile_source(src.source, src.name, interpret=dev == "cpu")
    runtime.run_kernel(
        src.name, kernel, (src.grid,), [(a, tensors[a]) for a in src.arg_names], dict(src.meta)
    )
