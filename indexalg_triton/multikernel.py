"""Persistent and looped reductions with one signature, chosen at run time (multi-kernel).

A reduction kernel can be *persistent* (``RBLOCK >= rnumel``: the whole reduction row is one
tile, each value computed once) or *looped* (``RBLOCK < rnumel``: one loop over r per
reduction).  Which is faster depends on the shape and the machine, so
:class:`MultiKernel` generates both and picks at run time:

* **one signature.**  Both variants are generated from the same spec, and a kernel's
  arguments are the spec's buffers in spec order, every one of them, whether or not a
  variant's body reads it: a buffer the persistent variant could drop (it needs no
  workspace, or never touches an argument) is kept, so the caller passes one argument list
  and the choice needs no argument juggling.  :class:`MultiKernel` checks the lists are
  identical and reports, per variant, the arguments its body never names
  (:attr:`MultiKernel.unused`).
* **choice by timing.**  The first :meth:`MultiKernel.run` for a shape times both variants
  (``triton.testing.do_bench`` median on a GPU; the median of a few wall-clock runs in the
  interpreter; or the ``timer`` given) and keeps the faster; the outputs then hold the chosen
  variant's result.
* **cached per shape.**  The choice is stored under the kernel's sources and the arguments'
  sizes, strides, dtypes and device type (:func:`shape_key`); later runs with the same key
  launch the chosen variant only.  :func:`choices` lists the cache, :func:`clear_choices`
  empties it.

Configs: persistent ``RBLOCK`` = the next power of two of ``rnumel`` (``XBLOCK`` fills about
2048 elements per tile when rows are short); looped ``RBLOCK`` = ``min(rblock, rnumel / 2)``
rounded to a power of two, so the loop runs at least twice.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from indexalg_triton.codegen import Config, KernelSource, generate
from indexalg_triton.errors import ConfigError, LaunchError, SpecError
from indexalg_triton.runtime import launch
from indexalg_triton.spec import KernelSpec

__all__ = [
    "Choice",
    "MultiKernel",
    "choices",
    "clear_choices",
    "looped_config",
    "persistent_config",
    "shape_key",
]

#: A timer: milliseconds per call of the given function.
Timer = Callable[[Callable[[], None]], float]


@dataclass(frozen=True)
class Choice:
    """The timing of both variants for one shape and the variant kept."""

    persistent_ms: float
    looped_ms: float
    chosen: str  # "persistent" or "looped"


_CHOICES: dict[tuple[object, ...], Choice] = {}


def choices() -> dict[tuple[object, ...], Choice]:
    """A copy of the choice cache."""
    return dict(_CHOICES)


def clear_choices() -> None:
    _CHOICES.clear()


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def persistent_config(spec: KernelSpec) -> Config:
    """One chunk of r per row: ``RBLOCK`` = next power of two of ``rnumel``."""
    assert spec.reduction is not None
    rb = _pow2(spec.reduction[1])
    xb = max(1, 2048 // rb)
    warps = 4 if rb <= 1024 else 8 if rb <= 4096 else 16
    return Config.of(warps, XBLOCK=xb, RBLOCK=rb)


def looped_config(spec: KernelSpec, rblock: int = 2048) -> Config:
    """A loop over r of at least two steps: ``RBLOCK`` = min(rblock, rnumel / 2) as a power
    of two (at least 1)."""
    assert spec.reduction is not None
    rnumel = spec.reduction[1]
    if rnumel < 2:
        raise ConfigError(f"kernel {spec.name}: a reduction of {rnumel} element has no looped form")
    rb = min(_pow2(rblock), 1 << ((rnumel // 2).bit_length() - 1))
    return Config.of(4 if rb <= 512 else 8, XBLOCK=1 if rb >= 512 else max(1, 512 // rb), RBLOCK=rb)


def shape_key(tensors: Mapping[str, Any], names: tuple[str, ...]) -> tuple[object, ...]:
    """Sizes, strides, dtype and device type of each named argument, in order."""
    key: list[object] = []
    for n in names:
        t = tensors[n]
        key.append((n, tuple(t.shape), tuple(t.stride()), str(t.dtype), t.device.type))
    return tuple(key)


def _unused(src: KernelSource) -> tuple[str, ...]:
    code = src.body.split("@triton.jit", 1)[-1].split(":\n", 1)[-1]
    body = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith("#"))
    return tuple(n for n in src.arg_names if not re.search(rf"\b{re.escape(n)}\b", body))


def _default_timer(dev: str) -> Timer:
    if dev == "cuda":

        def gpu(fn: Callable[[], None]) -> float:
            from triton.testing import do_bench

            return float(do_bench(fn, warmup=10, rep=50, return_mode="median"))

        return gpu

    def wall(fn: Callable[[], None]) -> float:
        fn()
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            runs.append((time.perf_counter() - t0) * 1e3)
        return sorted(runs)[1]

    return wall


def _launcher(src: KernelSource, tensors: Mapping[str, Any]) -> Callable[[], None]:
    def run() -> None:
        launch(src, tensors)

    return run


class MultiKernel:
    """Both variants of a reduction ``spec`` with one argument list (module docstring)."""

    def __init__(
        self,
        spec: KernelSpec,
        *,
        persistent: Config | None = None,
        looped: Config | None = None,
        kinds: tuple[str, ...] = (),
    ) -> None:
        if spec.reduction is None:
            raise SpecError(f"kernel {spec.name} has no reduction loop")
        self.spec = spec
        p_cfg = persistent or persistent_config(spec)
        l_cfg = looped or looped_config(spec)
        rnumel = spec.reduction[1]
        if p_cfg.block("RBLOCK") < rnumel:
            raise ConfigError(
                f"persistent config {p_cfg.describe()} does not cover rnumel {rnumel}"
            )
        if l_cfg.block("RBLOCK") >= rnumel:
            raise ConfigError(
                f"looped config {l_cfg.describe()} does not loop over rnumel {rnumel}"
            )
        self.variants: dict[str, KernelSource] = {
            "persistent": generate(spec, p_cfg, kinds=kinds),
            "looped": generate(spec, l_cfg, kinds=kinds),
        }
        sigs = {k: v.arg_names for k, v in self.variants.items()}
        if sigs["persistent"] != sigs["looped"]:
            raise ConfigError(f"kernel {spec.name}: the variants' argument lists differ: {sigs}")
        #: per variant, the arguments its body never names (kept in the signature)
        self.unused: dict[str, tuple[str, ...]] = {k: _unused(v) for k, v in self.variants.items()}

    @property
    def arg_names(self) -> tuple[str, ...]:
        return self.variants["persistent"].arg_names

    def _key(self, tensors: Mapping[str, Any]) -> tuple[object, ...]:
        import hashlib

        digest = hashlib.sha256(
            "".join(v.source for v in self.variants.values()).encode()
        ).hexdigest()[:16]
        return (self.spec.name, digest, shape_key(tensors, self.arg_names))

    def choice(self, tensors: Mapping[str, Any]) -> Choice | None:
        """The cached choice for these arguments' shapes, if timed."""
        return _CHOICES.get(self._key(tensors))

    def run(self, tensors: Mapping[str, Any], *, timer: Timer | None = None) -> Choice:
        """Launch the variant chosen for these shapes (timing both first when unknown)."""
        missing = [n for n in self.arg_names if n not in tensors]
        if missing:
            raise LaunchError(f"multi-kernel {self.spec.name}: no tensor for {missing}")
        key = self._key(tensors)
        hit = _CHOICES.get(key)
        if hit is None:
            t = timer or _default_timer(str(tensors[self.arg_names[0]].device.type))
            ms = {k: t(_launcher(v, tensors)) for k, v in self.variants.items()}
            chosen = "persistent" if ms["persistent"] <= ms["looped"] else "looped"
            hit = Choice(ms["persistent"], ms["looped"], chosen)
            _CHOICES[key] = hit
        launch(self.variants[hit.chosen], tensors)
        return hit
