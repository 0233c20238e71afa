"""The built-in workloads: the benchmark's memory-bound kernels, at small and large sizes.

Each :class:`Workload` is a plain torch function (what ``torch.compile`` and
:func:`~indexalg_triton.frontend.from_torch` both take) and an input maker per size:

=================  ======================================================================
transpose_add      ``a + b.t()``                        a, b: (M, M) float32
broadcast_add      ``a + b``, b of shape (M, 1)         float32
outer_add          ``a + b``, a (M, 1), b (1, N)        float32
strided_views      ``a[:, :N] + b[:, 3:N+3]`` of odd-width bases (rows not 16-byte aligned)
permute3d_add      ``a.permute(0, 2, 1) + b``            float32
int8_unpack        uint8 -> two bfloat16 (low nibble, high nibble), interleaved
row_sum            ``x.sum(1)``                          float32
col_sum            ``x.sum(0)``                          float32
softmax            ``torch.softmax(x, -1)``              float32
index_select       ``torch.index_select(x, 0, idx)``     float32 rows, int64 indices
=================  ======================================================================

``small`` sizes are odd where it matters (masks, partial blocks) and run in the interpreter
in seconds; ``medium`` ones are large enough for N-D tilings and looped reductions and still
run in the interpreter; ``large`` ones move one to three GiB (the GPU benchmark); ``int64`` is the
int8 unpack with a result of more than 2^31 elements.  :meth:`Workload.bytes_moved` counts
the fewest bytes the kernel must move: every input element it reads once (the rows
index_select gathers, not the whole table), every output element once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from indexalg_triton.errors import ConfigError
from indexalg_triton.frontend import from_torch

__all__ = ["CPU_TRACE_BYTES", "WORKLOADS", "Workload", "get"]


def transpose_add(a: Any, b: Any) -> Any:
    return a + b.t()


def broadcast_add(a: Any, b: Any) -> Any:
    return a + b


def outer_add(a: Any, b: Any) -> Any:
    return a + b


def strided_views(a: Any, b: Any) -> Any:
    n = a.shape[1] - 4
    return a[:, :n] + b[:, 3 : n + 3]


def permute3d_add(a: Any, b: Any) -> Any:
    return a.permute(0, 2, 1) + b


def int8_unpack(x: Any) -> Any:
    import torch

    return torch.stack([x & 15, x >> 4], dim=-1).view(x.shape[0], -1).to(torch.bfloat16)


def row_sum(x: Any) -> Any:
    return x.sum(1)


def col_sum(x: Any) -> Any:
    return x.sum(0)


def softmax(x: Any) -> Any:
    import torch

    return torch.softmax(x, -1)


def index_select(x: Any, idx: Any) -> Any:
    import torch

    return torch.index_select(x, 0, idx)


#: Workload inputs up to this many bytes in all are traced on the CPU, larger ones on the
#: ``meta`` device (:meth:`Workload.example_inputs`).
CPU_TRACE_BYTES = 1 << 26

# (kind, shape) per argument: kind "f32" normal floats, "u8" random bytes, "idx:N" indices
# in [0, N)
_Args = Sequence[tuple[str, tuple[int, ...]]]


@dataclass(frozen=True)
class Workload:
    """A named torch function and its argument shapes per size."""

    name: str
    fn: Callable[..., Any]
    sizes: dict[str, _Args]
    reduction: bool = False

    def check_size(self, size: str) -> None:
        """Refuse a size this workload does not have (without importing torch)."""
        if size not in self.sizes:
            raise ConfigError(
                f"workload {self.name} has no size {size!r} (sizes: {', '.join(self.sizes)})"
            )

    def make_inputs(
        self, size: str = "small", device: str = "cpu", seed: int | None = None
    ) -> list[Any]:
        """Fresh random inputs (``seed`` None: from the OS)."""
        import os

        import torch

        self.check_size(size)
        s = int.from_bytes(os.urandom(4), "little") if seed is None else seed
        gen = torch.Generator(device=device).manual_seed(s)
        out = []
        for kind, shape in self.sizes[size]:
            if kind == "f32":
                out.append(torch.randn(shape, generator=gen, device=device))
            elif kind == "u8":
                out.append(
                    torch.randint(0, 256, shape, generator=gen, device=device, dtype=torch.uint8)
                )
            elif kind.startswith("idx:"):
                out.append(
                    torch.randint(
                        0, int(kind[4:]), shape, generator=gen, device=device, dtype=torch.int64
                    )
                )
            else:  # pragma: no cover - the table below
                raise ConfigError(f"unknown argument kind {kind}")
        return out

    def example_inputs(self, size: str = "small", device: str | None = None) -> list[Any]:
        """Inputs of the right shapes, strides and dtypes (what
        :func:`~indexalg_triton.frontend.from_torch` reads), zeros.  ``device`` None: the CPU
        for inputs of at most :data:`CPU_TRACE_BYTES` in all, else torch's ``meta`` device (no
        memory).  On ``meta``, torch 2.13 runs elementwise ops through its Python references,
        whose type-promotion wrapper imports ``torch._dynamo`` (2.5 s) on first use; on the
        CPU the C++ kernels run, and a small workload's inputs are a few KiB."""
        import torch

        self.check_size(size)
        dtypes = {"f32": torch.float32, "u8": torch.uint8}
        args = [(shape, dtypes.get(kind, torch.int64)) for kind, shape in self.sizes[size]]
        if device is None:
            nbytes = sum(math.prod(shape) * d.itemsize for shape, d in args)
            device = "cpu" if nbytes <= CPU_TRACE_BYTES else "meta"
        return [torch.zeros(shape, dtype=d, device=device) for shape, d in args]

    def spec(self, size: str = "small") -> Any:
        """The kernel spec of this workload at ``size`` (traced from :attr:`fn`)."""
        return from_torch(self.fn, *self.example_inputs(size), name=self.name)

    def bytes_moved(self, inputs: Sequence[Any], output: Any) -> int:
        """The fewest bytes a kernel must move (see the module docstring)."""
        out_bytes = int(output.numel() * output.element_size())
        if self.name == "index_select":
            x, idx = inputs
            row = x[0].numel() * x.element_size()
            return out_bytes + int(idx.numel() * idx.element_size() + idx.numel() * row)
        if self.name == "strided_views":
            a = inputs[0]
            n = int(a.shape[1]) - 4
            return out_bytes + 2 * int(a.shape[0]) * n * int(a.element_size())
        return out_bytes + sum(int(t.numel() * t.element_size()) for t in inputs)


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        Workload(
            "transpose_add",
            transpose_add,
            {
                "small": [("f32", (40, 40)), ("f32", (40, 40))],
                "medium": [("f32", (96, 96)), ("f32", (96, 96))],
                "large": [("f32", (16384, 16384)), ("f32", (16384, 16384))],
            },
        ),
        Workload(
            "broadcast_add",
            broadcast_add,
            {
                "small": [("f32", (33, 64)), ("f32", (33, 1))],
                "medium": [("f32", (100, 256)), ("f32", (100, 1))],
                "large": [("f32", (32768, 8192)), ("f32", (32768, 1))],
            },
        ),
        Workload(
            "outer_add",
            outer_add,
            {
                "small": [("f32", (24, 1)), ("f32", (1, 40))],
                "medium": [("f32", (96, 1)), ("f32", (1, 160))],
                "large": [("f32", (16384, 1)), ("f32", (1, 16384))],
            },
        ),
        Workload(
            "strided_views",
            strided_views,
            {
                "small": [("f32", (9, 11)), ("f32", (9, 11))],
                "medium": [("f32", (130, 103)), ("f32", (130, 103))],
                "large": [("f32", (262144, 1003)), ("f32", (262144, 1003))],
            },
        ),
        Workload(
            "permute3d_add",
            permute3d_add,
            {
                "small": [("f32", (3, 20, 24)), ("f32", (3, 24, 20))],
                "medium": [("f32", (2, 64, 96)), ("f32", (2, 96, 64))],
                "large": [("f32", (64, 2048, 2048)), ("f32", (64, 2048, 2048))],
            },
        ),
        Workload(
            "int8_unpack",
            int8_unpack,
            {
                "small": [("u8", (17, 24))],
                "medium": [("u8", (64, 200))],
                "large": [("u8", (16384, 8192))],
                "int64": [("u8", (16448, 65536))],
            },
        ),
        Workload(
            "row_sum",
            row_sum,
            {
                "small": [("f32", (13, 300))],
                "medium": [("f32", (5, 5000))],
                "large": [("f32", (32768, 8192))],
            },
            reduction=True,
        ),
        Workload(
            "col_sum",
            col_sum,
            {
                "small": [("f32", (100, 40))],
                "medium": [("f32", (300, 200))],
                "large": [("f32", (8192, 32768))],
            },
            reduction=True,
        ),
        Workload(
            "softmax",
            softmax,
            {
                "small": [("f32", (7, 100))],
                "medium": [("f32", (3, 5000))],
                "large": [("f32", (32768, 8192))],
            },
            reduction=True,
        ),
        Workload(
            "index_select",
            index_select,
            {
                "small": [("f32", (50, 24)), ("idx:50", (30,))],
                "medium": [("f32", (300, 64)), ("idx:300", (100,))],
                "large": [("f32", (131072, 2048)), ("idx:131072", (131072,))],
            },
        ),
    ]
}


def get(name: str) -> Workload:
    """The built-in workload ``name``."""
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ConfigError(f"unknown workload {name!r} (known: {', '.join(WORKLOADS)})") from None
