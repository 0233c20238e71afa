"""The debug value printer: every buffer argument of a kernel, before and after its launch.

Turned on by the environment or the API, it runs inside the one central launch path
(:func:`indexalg_triton.runtime.run_kernel`), so every kind of kernel gets it without code of
its own: generated kernels, combo kernels, both variants of a multi-kernel reduction,
template kernels and user-defined ``@triton.jit`` kernels
(:func:`indexalg_triton.runtime.launch_user_kernel`).

Environment (read at each launch):

* ``INDEXALG_DEBUG_PRINT=1`` turns the printer on (``0`` or unset: off);
* ``INDEXALG_DEBUG_KERNELS=name1,name2`` prints only those kernels (unset or empty: all);
* ``INDEXALG_DEBUG_SAVE_DIR=DIR`` also saves each printed tensor to ``DIR`` as a ``.pt``
  file that ``torch.load`` reads back (a CPU copy).

API: :func:`debug_printing` (a context manager, which wins over the environment) and
:func:`describe_tensor`.

For each tensor argument the printer writes one block (to ``sys.stderr`` unless a stream is
given)::

    [ before_launch - add1 - a ]:
    values: [0.5, -1.25, 3.0]          <- only when numel <= the small limit (default 16)
    min: -1.25
    max: 3.0
    size: [3]
    stride: [1]
    dtype: torch.float32
    device: cpu
    layout: torch.strided
    numel: 3
    contiguous: True

Non-tensor arguments (integers) are printed as ``[ before_launch - k - n ]: value 7``.  Min
and max of an empty tensor are ``n/a``; of a bool tensor, ``False``/``True``.  Saved files are
named ``{seq:04d}_{kernel}_{when}_{arg}.pt``, ``seq`` counting the printer's dumps from 0.

Code generation records every kernel name it produces (:func:`record_kernel`) and logs the
list of names available for the filter on the ``indexalg_triton.debug`` logger (level INFO):
``kernel names available: ['add1', 'row_sum']``; :func:`available_kernels` returns it.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from indexalg_triton.errors import ConfigError

__all__ = [
    "DebugPrinter",
    "active_printer",
    "available_kernels",
    "debug_printing",
    "describe_tensor",
    "record_kernel",
]

LOG = logging.getLogger("indexalg_triton.debug")
ENV_PRINT = "INDEXALG_DEBUG_PRINT"
ENV_KERNELS = "INDEXALG_DEBUG_KERNELS"
ENV_SAVE = "INDEXALG_DEBUG_SAVE_DIR"

_KERNELS: dict[str, None] = {}  # ordered: first generation first
_OVERRIDE: list[DebugPrinter | None] = []  # the stack of debug_printing() contexts


def record_kernel(name: str) -> None:
    """Note that codegen produced a kernel ``name``; logs the names available when new."""
    if name in _KERNELS:
        return
    _KERNELS[name] = None
    LOG.info("kernel names available: %s", list(_KERNELS))


def available_kernels() -> tuple[str, ...]:
    """The kernel names generated in this process, first generation first."""
    return tuple(_KERNELS)


def _fmt(x: Any) -> str:
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        return repr(x)
    return str(x)


def describe_tensor(t: Any, *, small: int = 16) -> list[str]:
    """The lines the printer writes for tensor ``t`` (see the module docstring)."""
    import torch

    lines = []
    n = int(t.numel())
    host = t.detach().to("cpu")
    if n <= small:
        lines.append(f"values: [{', '.join(_fmt(v) for v in host.flatten().tolist())}]")
    if n == 0:
        lo = hi = "n/a"
    else:
        flat = host.flatten()
        if flat.dtype == torch.bool:
            lo, hi = str(bool(flat.all())), str(bool(flat.any()))
        else:
            lo, hi = _fmt(flat.min().item()), _fmt(flat.max().item())
    lines += [
        f"min: {lo}",
        f"max: {hi}",
        f"size: {list(t.shape)}",
        f"stride: {list(t.stride())}",
        f"dtype: {t.dtype}",
        f"device: {t.device}",
        f"layout: {t.layout}",
        f"numel: {n}",
        f"contiguous: {bool(t.is_contiguous())}",
    ]
    return lines


@dataclass
class DebugPrinter:
    """Which kernels to print (``kernels``: None for all), where to write, the small-tensor
    limit for printing values, and an optional directory for ``.pt`` files."""

    kernels: tuple[str, ...] | None = None
    stream: TextIO | None = None
    small: int = 16
    save_dir: Path | None = None
    seq: int = field(default=0)

    def wants(self, kernel: str) -> bool:
        return self.kernels is None or kernel in self.kernels

    def dump(self, when: str, kernel: str, args: Sequence[tuple[str, Any]]) -> None:
        """Print (and save) every argument of one launch; ``when`` is ``before_launch`` or
        ``after_launch``."""
        import torch

        out = self.stream if self.stream is not None else sys.stderr
        for name, value in args:
            if not isinstance(value, torch.Tensor):
                out.write(f"[ {when} - {kernel} - {name} ]: value {_fmt(value)}\n")
                continue
            if value.is_cuda:
                torch.cuda.synchronize(value.device)
            out.write(f"[ {when} - {kernel} - {name} ]:\n")
            for line in describe_tensor(value, small=self.small):
                out.write(f"{line}\n")
            if self.save_dir is not None:
                self.save_dir.mkdir(parents=True, exist_ok=True)
                path = self.save_dir / f"{self.seq:04d}_{kernel}_{when}_{name}.pt"
                torch.save(value.detach().to("cpu").clone(), path)
            self.seq += 1
        out.flush()


_ENV_PRINTER: dict[tuple[str, str], DebugPrinter] = {}


def active_printer() -> DebugPrinter | None:
    """The printer in force: the innermost :func:`debug_printing` context, else the one the
    environment describes (one per distinct environment setting), else None."""
    if _OVERRIDE:
        return _OVERRIDE[-1]
    flag = os.environ.get(ENV_PRINT, "").strip()
    if flag in ("", "0"):
        return None
    if flag != "1":
        raise ConfigError(f"{ENV_PRINT} must be 0 or 1, got {flag!r}")
    names = os.environ.get(ENV_KERNELS, "").strip()
    save = os.environ.get(ENV_SAVE, "").strip()
    key = (names, save)
    printer = _ENV_PRINTER.get(key)
    if printer is None:
        kernels = tuple(n.strip() for n in names.split(",") if n.strip()) or None
        printer = DebugPrinter(kernels, save_dir=Path(save) if save else None)
        _ENV_PRINTER[key] = printer
    return printer


@contextmanager
def debug_printing(
    enabled: bool = True,
    *,
    kernels: Sequence[str] | None = None,
    stream: TextIO | None = None,
    small: int = 16,
    save_dir: str | Path | None = None,
) -> Iterator[DebugPrinter | None]:
    """Print every launch inside the block (``enabled=False``: print none, whatever the
    environment says); ``kernels`` filters by kernel name; ``save_dir`` also saves ``.pt``
    files.  Yields the printer (None when disabled)."""
    if small < 0:
        raise ConfigError(f"small must be >= 0, got {small}")
    printer = (
        DebugPrinter(
            tuple(kernels) if kernels is not None else None,
            stream,
            small,
            Path(save_dir) if save_dir is not None else None,
        )
        if enabled
        else None
    )
    _OVERRIDE.append(printer)
    try:
        yield printer
    finally:
        _OVERRIDE.pop()
