"""Compile and launch generated kernels, verify them against torch eager, and time them.

* :func:`device` -- ``"cuda"`` when torch sees a GPU, else ``"cpu"``, where kernels run in
  Triton's interpreter (``TRITON_INTERPRET=1``, set by :func:`compile_kernel` before the
  kernel module is imported).
* :func:`compile_kernel` -- writes the source to a file named by its SHA-256 under the cache
  directory (``$INDEXALG_TRITON_CACHE``, else ``indexalg_triton`` in the system temp
  directory), imports it once per process and mode, and returns the ``@triton.jit`` function
  (Triton keeps its own binary cache on top).
* :func:`run_kernel` -- **the one central launch path**: every launch of every kernel kind
  (generated, combo, multi-kernel reductions, templates, user-defined ``@triton.jit``
  kernels through :func:`launch_user_kernel`) goes through it, and the debug value printer
  (:mod:`indexalg_triton.debug`) runs there, before and after the launch.
* :func:`launch` -- one launch of a :class:`~indexalg_triton.codegen.KernelSource` on named
  tensors.
* :func:`verify` -- fresh random inputs, poisoned outputs (NaN for floats, the dtype's
  maximum for integers), one launch, and a comparison with torch eager (:func:`compare`).
* :func:`autotune` -- times every config of :func:`~indexalg_triton.codegen.default_configs`
  with ``triton.testing.do_bench`` (median) and keeps the fastest (cached per spec).

Tolerances (:func:`compare`): integer and bool outputs exact; float32 within, per element,
1e-5 of the float64 result plus twice eager's own float32 error plus 1e-6 of the largest
magnitude for pointwise kernels, and 1e-4 of the largest magnitude for reductions,
against eager on float64 copies of the inputs; bfloat16/float16 outputs within one unit in
the last place (of that float64 result as torch rounds it to the output dtype) from the
float64 result (plus eager's
own error, where eager rounds intermediates).  Equal values (infinities too) have no error.  Any
unwritten (still poisoned) element fails.  The float64 result (:func:`reference64`) keeps the
function's own float casts (``.to(torch.bfloat16)``, ``.float()``, ...) at float64, so it
rounds nowhere and eager's own error counts every rounding eager does.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexalg_triton.codegen import Config, KernelSource, default_configs, generate
from indexalg_triton.debug import active_printer
from indexalg_triton.errors import LaunchError, VerificationError
from indexalg_triton.spec import KernelSpec, is_float

__all__ = [
    "Comparison",
    "Verification",
    "BoundLaunch",
    "DirectLauncher",
    "autotune",
    "bench_kernel",
    "bind_kernel",
    "cache_dir",
    "compare",
    "compile_kernel",
    "compile_source",
    "device",
    "direct_launcher",
    "launch",
    "launch_user_kernel",
    "run_kernel",
    "make_outputs",
    "reference64",
    "verify",
]

_MODULES: dict[tuple[str, bool], Any] = {}
_KERNELS: dict[tuple[str, str, bool], Any] = {}  # (source, kernel name, interpret) -> kernel
_TUNED: dict[tuple[KernelSpec, str], tuple[Config, list[tuple[Config, float]]]] = {}
_ALLOCATOR_SET = False


def device() -> str:
    """``"cuda"`` if torch sees a GPU, else ``"cpu"`` (the Triton interpreter)."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cache_dir() -> Path:
    """Where generated kernel files are written."""
    env = os.environ.get("INDEXALG_TRITON_CACHE")
    path = Path(env) if env else Path(tempfile.gettempdir()) / "indexalg_triton_cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def compile_kernel(src: KernelSource, *, interpret: bool | None = None) -> Any:
    """The ``@triton.jit`` function of ``src`` (imported once per source and mode)."""
    return compile_source(src.source, src.kernel_name, interpret=interpret)


def compile_source(source: str, kernel_name: str, *, interpret: bool | None = None) -> Any:
    """The ``@triton.jit`` function ``kernel_name`` of a module's ``source`` (imported once
    per source and mode; the file is named by the source's SHA-256)."""
    if interpret is None:
        interpret = device() == "cpu"
    hit = _KERNELS.get((source, kernel_name, interpret))
    if hit is not None:  # the launch path: no hashing of the source per launch
        return hit
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    key = (digest, interpret)
    mod = _MODULES.get(key)
    if mod is None:
        if interpret:
            os.environ["TRITON_INTERPRET"] = "1"
        path = cache_dir() / f"{kernel_name}_{digest}.py"
        if not path.exists():
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(source)
            tmp.replace(path)
        spec = importlib.util.spec_from_file_location(
            f"indexalg_kernel_{digest}_{int(interpret)}", path
        )
        if spec is None or spec.loader is None:  # pragma: no cover - a file we just wrote
            raise LaunchError(f"cannot import the generated kernel {path}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _MODULES[key] = mod
    kernel = getattr(mod, kernel_name)
    _KERNELS[(source, kernel_name, interpret)] = kernel
    return kernel


def set_allocator(dev: str) -> None:
    """In-kernel tensor descriptors need scratch memory from the host on a GPU."""
    global _ALLOCATOR_SET
    if _ALLOCATOR_SET or dev == "cpu":
        return
    import torch
    import triton

    def alloc(size: int, alignment: int, stream: object) -> Any:
        return torch.empty(size, dtype=torch.int8, device=dev)

    triton.set_allocator(alloc)
    _ALLOCATOR_SET = True


def run_kernel(
    name: str,
    kernel: Any,
    grid: tuple[int, ...],
    args: Sequence[tuple[str, Any]],
    meta: Mapping[str, Any],
) -> Any:
    """Launch ``kernel[grid](*values, **meta)``; ``args`` are the ``(name, value)`` pairs of
    its arguments in order.  The debug printer, when active for ``name``, dumps every argument
    before and after the launch (see :mod:`indexalg_triton.debug`).  Returns what the launch
    returns (Triton's compiled kernel on a GPU; None in the interpreter)."""
    printer = active_printer()
    if printer is not None and not printer.wants(name):
        printer = None
    if printer is not None:
        printer.dump("before_launch", name, args)
    compiled = kernel[grid](*[v for _, v in args], **meta)
    if printer is not None:
        printer.dump("after_launch", name, args)
    return compiled


class DirectLauncher:
    """The compiled launcher of one kernel specialisation, called without Triton's JIT.

    Built from the compiled kernel a first launch through :func:`run_kernel` returned (see
    :func:`direct_launcher`): its ``CompiledKernel.run``, function handle, packed metadata
    and grid, and the specialisation the JIT compiled for, per argument its dtype and whether
    its data pointer is 16-byte aligned (Triton specialises pointer arguments on exactly
    these).  A launch passes the data pointers as ints, as ``JITFunction.run`` ends, so there
    is no binding, specialisation, cache-key hashing or ``data_ptr()`` call in Triton's
    launcher.  :meth:`launch` first checks that tensors given per call match that
    specialisation (else it declines and the caller takes the JIT path).  Neither runs while
    the debug printer is active or a Triton launch hook is installed (they need the central
    path and the launch metadata)."""

    __slots__ = ("run", "grid3", "rest", "stream", "device", "knobs", "signature")

    def __init__(
        self,
        run: Any,
        grid: tuple[int, ...],
        function: Any,
        packed: Any,
        device: int,
        knobs: Any,
        signature: tuple[tuple[Any, bool], ...],
    ) -> None:
        g = [*grid, 1, 1, 1][:3]
        self.run = run
        self.grid3 = (g[0], g[1], g[2])
        # run(gx, gy, gz, stream, function, packed_metadata, launch_metadata, enter_hook,
        #     exit_hook, *args); the hooks are idle (None or empty) whenever this runs
        self.rest = (function, packed, None, None, None)
        self.stream = _stream_getter()
        self.device = device
        self.knobs = knobs
        self.signature = signature

    def ready(self) -> bool:
        """No debug printer in force and no launch hook installed."""
        return active_printer() is None and _hooks_idle(self.knobs)

    def launch_pointers(self, pointers: tuple[int, ...]) -> None:
        """Launch on data pointers of the compiled specialisation (the caller's promise)."""
        g0, g1, g2 = self.grid3
        self.run(g0, g1, g2, self.stream(self.device), *self.rest, *pointers)

    def launch(self, values: Sequence[Any]) -> bool:
        """Launch on ``values`` (tensors) if they match the compiled specialisation (count,
        dtypes, 16-byte alignment, device) and :meth:`ready`; False, launching nothing, if
        not."""
        sig = self.signature
        if len(values) != len(sig) or not self.ready():
            return False
        ptrs = []
        for v, (dtype, aligned) in zip(values, sig):
            p = v.data_ptr()
            if v.dtype is not dtype or (p % 16 == 0) is not aligned:
                return False
            ptrs.append(p)
        if values and values[0].get_device() != self.device:
            return False
        self.launch_pointers(tuple(ptrs))
        return True


def direct_launcher(
    kernel: Any, compiled: Any, grid: tuple[int, ...], values: Sequence[Any]
) -> DirectLauncher | None:
    """The :class:`DirectLauncher` of ``compiled`` (what launching ``kernel`` on ``values``
    through :func:`run_kernel` returned), or None where this path does not apply: no compiled
    kernel (the interpreter), a ``constexpr`` parameter or a non-tensor argument (the launcher
    would need Triton's own argument handling), or a Triton whose compiled kernel differs."""
    params = getattr(kernel, "params", None)
    if (
        compiled is None
        or params is None
        or len(params) != len(values)
        or any(getattr(p, "is_constexpr", True) for p in params)
        or not all(hasattr(v, "data_ptr") and hasattr(v, "dtype") for v in values)
    ):
        return None
    try:
        from triton import knobs

        run, function, packed = compiled.run, compiled.function, compiled.packed_metadata
        device = values[0].get_device() if values else 0
    except Exception:  # another Triton layout: stay on the JIT path
        return None
    sig = tuple((v.dtype, v.data_ptr() % 16 == 0) for v in values)
    return DirectLauncher(run, grid, function, packed, device, knobs.runtime, sig)


class BoundLaunch:
    """One kernel launch with its arguments, grid and meta fixed (:func:`bind_kernel`);
    call it to launch.  The first call goes through :func:`run_kernel` (Triton's JIT:
    specialisation, compile or cache lookup); later calls go to the :class:`DirectLauncher`
    of the compiled kernel it returned, with the pointer tuple precomputed (no per-call
    allocation but the call's own argument tuple), wherever :func:`direct_launcher` applies
    and the launcher is :meth:`~DirectLauncher.ready`.  The tensors are held and must keep
    their storage."""

    __slots__ = ("name", "kernel", "grid", "args", "meta", "direct", "_pointers")

    def __init__(
        self,
        name: str,
        kernel: Any,
        grid: tuple[int, ...],
        args: Sequence[tuple[str, Any]],
        meta: Mapping[str, Any],
    ) -> None:
        self.name = name
        self.kernel = kernel
        self.grid = grid
        self.args = tuple(args)
        self.meta = dict(meta)
        self.direct: DirectLauncher | None = None
        self._pointers: tuple[int, ...] = ()

    @property
    def fast(self) -> bool:
        """Whether calls take the direct launcher."""
        return self.direct is not None

    def __call__(self) -> None:
        direct = self.direct
        if direct is not None and direct.ready():
            direct.launch_pointers(self._pointers)
            return
        compiled = run_kernel(self.name, self.kernel, self.grid, self.args, self.meta)
        if direct is None:
            values = [v for _, v in self.args]
            self.direct = direct_launcher(self.kernel, compiled, self.grid, values)
            if self.direct is not None:
                self._pointers = tuple(int(v.data_ptr()) for v in values)


def _stream_getter() -> Callable[[int], Any]:
    """The function giving the current stream of a device (what ``JITFunction.run`` asks for
    on every launch; called per launch, so CUDA-graph capture and stream contexts are
    honoured)."""
    from triton.runtime.driver import driver

    get: Callable[[int], Any] = driver.active.get_current_stream
    return get


def _hooks_idle(runtime_knobs: Any) -> bool:
    """No Triton launch hook installed (they need launch metadata the direct path skips)."""
    for hook in (runtime_knobs.launch_enter_hook, runtime_knobs.launch_exit_hook):
        if hook is not None and getattr(hook, "calls", True):
            return False
    return True


def bind_kernel(
    name: str,
    kernel: Any,
    grid: tuple[int, ...],
    args: Sequence[tuple[str, Any]],
    meta: Mapping[str, Any],
) -> BoundLaunch:
    """A :class:`BoundLaunch` of ``kernel`` on ``args`` (launched through :func:`run_kernel`
    the first time, directly afterwards where it can be)."""
    return BoundLaunch(name, kernel, grid, args, meta)


def launch_user_kernel(kernel: Any, grid: tuple[int, ...], *args: Any, **meta: Any) -> None:
    """Launch a user-defined ``@triton.jit`` kernel through :func:`run_kernel`, named after
    its Python function, its arguments after its parameters."""
    fn = getattr(kernel, "fn", kernel)
    name = str(getattr(fn, "__name__", "user_kernel"))
    params = list(getattr(kernel, "arg_names", []))
    names = [params[i] if i < len(params) else f"arg{i}" for i in range(len(args))]
    run_kernel(name, kernel, grid, list(zip(names, args)), meta)


def launch(src: KernelSource, tensors: Mapping[str, Any]) -> None:
    """Run ``src`` once on ``tensors`` (by buffer name; outputs preallocated)."""
    missing = [n for n in src.arg_names if n not in tensors]
    if missing:
        raise LaunchError(f"launch of {src.kernel_name}: no tensor for {missing}")
    dev = str(tensors[src.arg_names[0]].device.type)
    if src.stages:  # a split reduction: its kernels in order, over fresh workspaces
        import torch

        scratch = {
            b.name: torch.empty(
                [int(s.payload) for s in b.view.sizes],  # type: ignore[attr-defined]
                dtype=getattr(torch, b.dtype),
                device=tensors[src.arg_names[0]].device,
            )
            for b in src.workspaces
        }
        for stage in src.stages:
            launch(stage, {**tensors, **scratch})
        return
    set_allocator(dev)
    kernel = compile_kernel(src, interpret=dev == "cpu")
    args = [(n, tensors[n]) for n in src.arg_names]
    run_kernel(
        src.kernel_name,
        kernel,
        (src.grid,),
        args,
        {**dict(src.config.blocks), "num_warps": src.config.num_warps},
    )


def make_outputs(spec: KernelSpec, dev: str, *, poison: bool = True) -> dict[str, Any]:
    """Output tensors of the spec's layouts, poisoned (NaN, or the integer dtype's max)."""
    import torch

    out: dict[str, Any] = {}
    for b in spec.outputs:
        dt = getattr(torch, b.dtype)
        sizes = [int(s.payload) for s in b.view.sizes]  # type: ignore[union-attr]
        strides = [int(s.payload) for s in b.view.strides]  # type: ignore[union-attr]
        t = torch.empty_strided(sizes, strides, dtype=dt, device=dev)
        if poison:
            if is_float(b.dtype):
                t.fill_(float("nan"))
            elif b.dtype == "bool":
                t.fill_(True)
            else:
                t.fill_(torch.iinfo(dt).max)
        out[b.name] = t
    return out


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: ``ok``, the error measured and its bound."""

    ok: bool
    error: float
    tolerance: float
    detail: str


def compare(out: Any, ref64: Any, eager: Any, *, reduction: bool) -> Comparison:
    """Compare a kernel output with the eager result (``eager``, same dtype) and the float64
    eager result (``ref64``); see the module docstring for the tolerances."""
    import torch

    if out.shape != eager.shape:
        return Comparison(
            False, float("inf"), 0.0, f"shape {tuple(out.shape)} != {tuple(eager.shape)}"
        )
    if not out.dtype.is_floating_point:
        bad = int((out != eager).sum())
        return Comparison(bad == 0, float(bad), 0.0, f"{bad} elements differ (exact)")
    unwritten = int((torch.isnan(out) & ~torch.isnan(eager)).sum())
    if unwritten:
        return Comparison(False, float("inf"), 0.0, f"{unwritten} elements unwritten or NaN")
    if out.dtype in (torch.bfloat16, torch.float16) and bool(torch.equal(out, eager)):
        return Comparison(True, 0.0, 1.0, f"max error 0 ulp of {out.dtype} (equal to eager)")
    o = out.double()
    r = ref64.double()
    if out.dtype in (torch.bfloat16, torch.float16):
        # within one unit in the last place, plus eager's own error (eager rounds every
        # intermediate 16-bit result: x.float() ... .to(bf16) * w rounds twice)
        rounded = r.to(out.dtype).double()
        ulp = _ulp(rounded, out.dtype)
        if not o.numel():
            return Comparison(True, 0.0, 1.0, "empty")
        mine = _absdiff(o, r) / ulp  # against the exact value: correct rounding is <= 0.5
        theirs = _absdiff(eager.double(), r) / ulp
        err = float(mine.max())
        excess = float((mine - theirs).max())
        ok = excess <= 1.0
        return Comparison(
            ok,
            err,
            1.0,
            f"max error {err:.3g} ulp of {out.dtype}"
            + ("" if err <= 1.0 else f" (eager's own error + {excess:.3g})"),
        )
    diff = _absdiff(o, r)
    if reduction:
        scale = float(_finite(r).abs().max()) if r.numel() else 1.0
        err = float(diff.max()) / max(scale, 1e-30) if r.numel() else 0.0
        tol = 1e-4
        what = "of the largest magnitude"
    else:
        # 1e-5 of each element, widened by eager's own float32 error (a chain of float32
        # ops rounds at every step: near a cancellation both eager and the kernel are far
        # from float64 in relative terms) and by 1e-6 of the largest magnitude
        if not r.numel():
            return Comparison(True, 0.0, 1.0, "empty")
        e = eager.double()
        scale = float(_finite(r).abs().max())
        allowed = 1e-5 * _finite(r).abs() + 2 * _absdiff(e, r) + 1e-6 * scale
        err = float((diff / allowed.clamp_min(1e-300)).max())
        return Comparison(
            err <= 1.0,
            err,
            1.0,
            f"error {err:.3g} of the allowed (1e-5 per element + eager's own "
            "error + 1e-6 of the largest magnitude)",
        )
    return Comparison(err <= tol, err, tol, f"relative error {err:.3g} {what} (<= {tol:g})")


def _absdiff(a: Any, b: Any) -> Any:
    """|a - b|, 0 where they are equal (equal infinities included)."""
    import torch

    return torch.where(a == b, torch.zeros_like(a), (a - b).abs())


def _finite(x: Any) -> Any:
    import torch

    return torch.where(torch.isfinite(x), x, torch.zeros_like(x))


def _ulp(x: Any, dt: Any) -> Any:
    import torch

    bits = {torch.bfloat16: 7, torch.float16: 10}[dt]
    mag = x.abs().clamp_min(torch.finfo(dt).tiny)
    _, exp = torch.frexp(mag)  # mag = m * 2^exp, m in [0.5, 1): exact, unlike floor(log2)
    return torch.ldexp(torch.ones_like(mag), exp - 1 - bits)


@dataclass
class Verification:
    """One verified kernel: the comparison per output and what ran."""

    name: str
    ok: bool
    device: str
    config: str
    index_dtype: str
    kinds: tuple[str, ...]
    comparisons: list[Comparison] = field(default_factory=list)
    error: str = ""

    def line(self) -> str:
        status = "ok  " if self.ok else "FAIL"
        kinds = ",".join(sorted(dict.fromkeys(self.kinds)))
        what = "; ".join(c.detail for c in self.comparisons) or self.error
        return (
            f"{status} {self.name:<28} {self.device:<11} {self.index_dtype:<5} "
            f"[{kinds}] {self.config}: {what}"
        )


def verify(
    name: str,
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    spec: KernelSpec,
    config: Config | None = None,
    *,
    kinds: Sequence[str] | None = None,
    index_dtype: str | None = None,
) -> Verification:
    """Launch ``spec`` (compiled from ``fn`` by the caller) on ``inputs`` with poisoned
    outputs and compare with ``fn`` in eager mode.  Inputs are passed in spec buffer order."""
    import torch

    dev = str(inputs[0].device.type) if inputs else device()
    src = generate(spec, config, kinds=kinds, index_dtype=index_dtype)
    tensors = dict(zip([b.name for b in spec.inputs], inputs))
    outs = make_outputs(spec, dev)
    tensors.update(outs)
    v = Verification(
        name,
        False,
        "gpu" if dev == "cuda" else "interpreter",
        src.config.describe(),
        src.index_dtype,
        src.kinds,
    )
    try:
        launch(src, tensors)
        if dev == "cuda":
            torch.cuda.synchronize()
    except Exception as err:  # reported as a failed verification
        v.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        return v
    eager = fn(*inputs)
    eager_list = list(eager) if isinstance(eager, (tuple, list)) else [eager]
    ref = reference64(fn, inputs)
    ref_list = list(ref) if isinstance(ref, (tuple, list)) else [ref]
    for b, e, r in zip(spec.outputs, eager_list, ref_list):
        v.comparisons.append(compare(outs[b.name], r, e, reduction=spec.is_reduction))
    v.ok = all(c.ok for c in v.comparisons) and len(v.comparisons) == len(spec.outputs)
    return v


def reference64(fn: Callable[..., Any], inputs: Sequence[Any]) -> Any:
    """``fn`` on float64 copies of the float inputs, with its explicit float casts of float64
    tensors (``.to(dtype)``, ``.type(dtype)``, ``.type_as``, ``.float()``, ``.half()``,
    ``.bfloat16()`` to a narrower float) kept at float64: the exact result that :func:`compare`
    measures eager and the kernel against.

    Without this, a function that names its dtype (``h.to(torch.bfloat16) * w``) rounds in
    the reference where eager rounds, so eager's own error there reads as 0, and a kernel
    whose float32 value before that cast differs from eager's by float32 noise (another
    summation order) but straddles a bfloat16 tie is charged the whole flip: one bf16 ulp of
    ``h`` times ``|w|``, up to 2 ulps of the output (issue 25: RMSNorm at hidden 5120 failed
    with "eager's own error + 2").  Against the unrounded value the flip costs at most 1 ulp
    more than eager's error, the bound :func:`compare` allows."""
    up = [x.double() if x.dtype.is_floating_point else x for x in inputs]
    with _keep_float64_mode()():
        return fn(*up)


def _narrow_float(a: Any) -> bool:
    import torch

    dt = a.dtype if isinstance(a, torch.Tensor) else a
    return isinstance(dt, torch.dtype) and dt.is_floating_point and dt.itemsize < 8


@functools.cache
def _keep_float64_mode() -> type:
    """The torch function mode of :func:`reference64` (a class made once, on first use:
    this module imports torch lazily)."""
    from torch.overrides import TorchFunctionMode

    class KeepFloat64(TorchFunctionMode):  # type: ignore[misc]
        def __torch_function__(
            self,
            func: Any,
            types: Any,
            args: Sequence[Any] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            import torch

            kwargs = dict(kwargs or {})
            name = getattr(func, "__name__", "")
            x = args[0] if args else None
            if isinstance(x, torch.Tensor) and x.dtype == torch.float64:
                if name in ("float", "half", "bfloat16"):
                    return x
                if name in ("to", "type", "type_as"):
                    if name == "type_as" and _narrow_float(args[1]):
                        return x
                    args = [x, *(torch.float64 if _narrow_float(a) else a for a in args[1:])]
                    if _narrow_float(kwargs.get("dtype")):
                        kwargs["dtype"] = torch.float64
            return func(*args, **kwargs)

    return KeepFloat64


def bench_kernel(
    src: KernelSource, tensors: Mapping[str, Any], *, rep: int = 100, warmup: int = 25
) -> float:
    """Median time in milliseconds of one launch (``triton.testing.do_bench``)."""
    from triton.testing import do_bench

    launch(src, tensors)
    return float(
        do_bench(lambda: launch(src, tensors), warmup=warmup, rep=rep, return_mode="median")
    )


def autotune(
    spec: KernelSpec,
    tensors: Mapping[str, Any],
    *,
    kinds: Sequence[str] | None = None,
    configs: Sequence[Config] | None = None,
    rep: int = 40,
) -> tuple[Config, list[tuple[Config, float]]]:
    """The fastest config of ``spec`` on ``tensors`` (GPU only), with every timing (ms);
    a config that fails to compile or launch is skipped.  Cached per spec and kind set."""
    key = (spec, ",".join(kinds) if kinds is not None else "")
    hit = _TUNED.get(key)
    if hit is not None:
        return hit
    timings: list[tuple[Config, float]] = []
    for cfg in configs or default_configs(spec, None if kinds is None else tuple(kinds)):
        src = generate(spec, cfg, kinds=kinds)
        try:
            timings.append((cfg, bench_kernel(src, tensors, rep=rep, warmup=10)))
        except Exception:  # an untunable config is skipped
            continue
    if not timings:
        raise VerificationError(f"no config of {spec.name} ran")
    best = min(timings, key=lambda t: t[1])[0]
    _TUNED[key] = (best, timings)
    return best, timings
