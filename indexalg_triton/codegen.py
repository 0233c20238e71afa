"""Triton source for a :class:`~indexalg_triton.spec.KernelSpec`: deterministic and readable.

:func:`generate` turns a spec and a :class:`Config` (known block sizes, warps, whether
structured accesses are allowed) into a :class:`KernelSource`: one ``@triton.jit`` kernel,
preceded by the floor-division helpers of :data:`indexalg.printing.triton.TRITON_PREAMBLE`.
The decisions it rests on, each recorded in the source as a comment:

* **tiling** (pointwise kernels): :func:`~indexalg_triton.tiling.choose_tiling` picks the
  loop groups once, with symbolic block sizes, so every config of a kernel shares them; the
  accesses are then planned (:func:`~indexalg_triton.access.plan_accesses`) at the config's
  block sizes, which fold every block shape and offset to numbers.  A reduction kernel fuses
  its pointwise loops into ``x`` and reads the reduction loop as ``r``, in a
  ``[XBLOCK, RBLOCK]`` tile: *persistent* (one chunk, each value computed once) when
  ``RBLOCK >= rnumel``, else one loop over ``r`` per reduction (and one for stores of inner
  values), each recomputing the inner values it needs;
* **index dtype**: :func:`indexalg.decisions.index_dtype` over every access' index (at loop
  and tile level), the launched (padded) iteration space and the buffers' extents.  With
  int64 the program id is widened first; a structured access whose coordinates could pass
  int32 (a descriptor dimension over 2^31 elements) becomes a pointer access;
* **bounds checks** (indirect loads): :func:`indexalg.decisions.bounds_checks` per ``check``
  op, with the index value ranged by its dtype; only unproven sides are asserted
  (``tl.device_assert``, active when Triton runs in debug mode or the interpreter).

Every access is preceded by a comment with its index expression, its kind and (for a
structured one) the reason a richer kind was not used.  Output is byte-identical across runs
and ``PYTHONHASHSEED`` values: nothing is iterated in set order.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from indexalg.errors import InvalidOperationError
from indexalg.expr import Expr, Integer, Symbol, integer
from indexalg_triton.access import Access, AccessPlan, plan_access
from indexalg_triton.spec import (
    FLOAT_MATH,
    MULTI_OUTPUT,
    REDUCTIONS,
    KernelSpec,
    Op,
    Operand,
    is_float,
)
from indexalg_triton.tiling import Tiling, choose_tiling, make_tiling

__all__ = [
    "Config",
    "KernelSource",
    "default_configs",
    "generate",
    "tiling_groups",
]

_INT32_MAX = 2**31 - 1
_TL_DTYPE = {
    "bool": "tl.int1", "int8": "tl.int8", "uint8": "tl.uint8", "int16": "tl.int16",
    "uint16": "tl.uint16", "int32": "tl.int32", "uint32": "tl.uint32", "int64": "tl.int64",
    "uint64": "tl.uint64", "float16": "tl.float16", "bfloat16": "tl.bfloat16",
    "float32": "tl.float32", "float64": "tl.float64",
}
_BINARY = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "and": "&", "or": "|", "xor": "^",
    "lshift": "<<", "rshift": ">>", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
    "gt": ">", "ge": ">=",
}
_FLOAT_ARITH = frozenset({"add", "sub", "mul", "truediv", "neg", "exp", "abs", "maximum",
                          "minimum", *FLOAT_MATH})
#: Unary float math with a ``tl`` builtin (not a ``@triton.jit`` function of the standard
#: library, which the interpreter cannot call when triton was imported before
#: ``TRITON_INTERPRET`` was set: ``tl.sigmoid`` is one, so sigmoid is written out).
_TL_MATH = {"exp": "tl.exp", "abs": "tl.abs", "erf": "tl.erf", "rsqrt": "tl.rsqrt",
            "sqrt": "tl.sqrt", "log": "tl.log", "sin": "tl.sin", "cos": "tl.cos",
            "floor": "tl.floor"}


# --- configs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """One compiled variant: block sizes by name (``XBLOCK``, ``YBLOCK``, ``RBLOCK``), warps,
    and whether structured accesses (descriptors, block pointers) may be used."""

    blocks: tuple[tuple[str, int], ...]
    num_warps: int = 4
    structured: bool = True
    flat: bool = False  # a pointwise kernel tiled 1-D whatever the cost model chose

    @staticmethod
    def of(num_warps: int = 4, structured: bool = True, flat: bool = False,
           **blocks: int) -> Config:
        """``Config.of(8, XBLOCK=64, YBLOCK=64)``; see :meth:`make`."""
        return Config.make(blocks, num_warps, structured, flat)

    @staticmethod
    def make(blocks: Mapping[str, int], num_warps: int = 4, structured: bool = True,
             flat: bool = False) -> Config:
        """A config; block sizes must be powers of two, warps a power of two <= 32."""
        for k, v in blocks.items():
            if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
                raise InvalidOperationError(f"block size {k} must be a power of two, got {v!r}")
        if num_warps not in (1, 2, 4, 8, 16, 32):
            raise InvalidOperationError(f"num_warps must be a power of two <= 32, got {num_warps}")
        return Config(tuple(sorted(blocks.items())), num_warps, structured, flat)

    def block(self, name: str) -> int:
        for k, v in self.blocks:
            if k == name:
                return v
        raise InvalidOperationError(f"config {self.describe()} has no {name}")

    def describe(self) -> str:
        b = " ".join(f"{k}={v}" for k, v in self.blocks)
        return (f"{b} warps={self.num_warps}" + ("" if self.structured else " pointers-only")
                + (" 1-D" if self.flat else ""))


@dataclass(frozen=True)
class KernelSource:
    """Generated source and the decisions behind it."""

    spec: KernelSpec
    config: Config
    source: str
    kernel_name: str
    grid: int
    index_dtype: str
    index_reason: str
    kinds: tuple[str, ...]  # the access kind of each load/store, in source order
    tiling: str
    asserts: tuple[str, ...] = field(default_factory=tuple)
    body: str = ""  # the kernel definition alone, without the helper preamble

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.spec.buffers)


# --- the tiling, shared by every config ----------------------------------------------------


def _accesses(spec: KernelSpec) -> tuple[list[Access], list[object]]:
    """The direct loads and the stores as Access objects, with the op/store they belong to."""
    acc: list[Access] = []
    owners: list[object] = []
    for o in spec.ops:
        if o.kind == "load" and not spec.indirect_symbols(o):
            assert o.index is not None
            acc.append(Access(o.index, o.dtype))
            owners.append(o)
    for st in spec.stores:
        acc.append(Access(st.index, spec.buffer(st.buffer).dtype, store=True))
        owners.append(st)
    return acc, owners


@functools.lru_cache(maxsize=256)
def tiling_groups(spec: KernelSpec, kinds: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The loop groups (outermost first) of a pointwise kernel's tiling, chosen by the cost
    model with symbolic block sizes; a reduction kernel has one group."""
    if spec.is_reduction:
        return (tuple(n for n, _ in spec.loops),)
    accesses, _ = _accesses(spec)
    choice = choose_tiling(list(spec.loops), accesses, max_tiles=2, allow=kinds)
    return tuple(reversed([ax.loops for ax in choice.tiling.axes]))


def default_configs(spec: KernelSpec, kinds: tuple[str, ...] | None = None) -> list[Config]:
    """The small autotuning space: the first entry is the default config."""
    ks = _kinds(kinds)
    if spec.is_reduction:
        return _reduction_configs(spec)
    ndim = len(tiling_groups(spec, ks))
    shapes: list[dict[str, int]]
    if ndim == 1:
        shapes = [{"XBLOCK": 1024}, {"XBLOCK": 2048}, {"XBLOCK": 4096}]
        warps = [4, 8, 8]
    else:
        shapes = [{"XBLOCK": 64, "YBLOCK": 64}, {"XBLOCK": 32, "YBLOCK": 32},
                  {"XBLOCK": 128, "YBLOCK": 32}, {"XBLOCK": 32, "YBLOCK": 128}]
        warps = [8, 4, 8, 8]
    out = [Config.make(s, w, True) for s, w in zip(shapes, warps)]
    if ks:
        out += [Config.make(s, w, False) for s, w in zip(shapes, warps)]
    if ndim > 1:  # the 1-D tiling stays in the space: tuning can never end slower than it
        out += [Config.of(4, False, True, XBLOCK=1024), Config.of(8, False, True, XBLOCK=2048)]
    return out


def _reduction_configs(spec: KernelSpec) -> list[Config]:
    assert spec.reduction is not None
    rnumel = spec.reduction[1]
    rpow = 1 << max(0, (rnumel - 1).bit_length())
    if _reduces_contiguously(spec):
        out = []
        if rpow <= 32768:  # one program per row holds it: 64 floats per thread at 16 warps
            out.append(Config.of(16 if rpow >= 8192 else 8, XBLOCK=1, RBLOCK=rpow))
            if rpow <= 4096:
                out.append(Config.of(8, XBLOCK=max(1, 4096 // rpow), RBLOCK=rpow))
        out += [Config.of(8, XBLOCK=1, RBLOCK=min(rpow, 4096)),
                Config.of(8, XBLOCK=4, RBLOCK=min(rpow, 1024)),
                Config.of(4, XBLOCK=8, RBLOCK=min(rpow, 512))]
        return _unique(out)
    # column reductions: narrow x blocks as well, so that few columns still make enough
    # programs (16384 columns at XBLOCK=64 are 256 programs for 132 SMs)
    return _unique([Config.of(8, XBLOCK=64, RBLOCK=min(rpow, 64)),
                    Config.of(8, XBLOCK=128, RBLOCK=min(rpow, 32)),
                    Config.of(4, XBLOCK=32, RBLOCK=min(rpow, 64)),
                    Config.of(8, XBLOCK=256, RBLOCK=min(rpow, 16)),
                    Config.of(8, XBLOCK=32, RBLOCK=min(rpow, 128)),
                    Config.of(4, XBLOCK=16, RBLOCK=min(rpow, 128))])


def _unique(cs: list[Config]) -> list[Config]:
    return list(dict.fromkeys(cs))


def _reduces_contiguously(spec: KernelSpec) -> bool:
    """Whether some load reads along the reduction variable innermost (a row reduction):
    stride 1, or a small stride below every pointwise loop's (``x[:, ::2].sum(1)`` is a
    row reduction read at stride 2, not a column reduction)."""
    assert spec.reduction is not None
    from indexalg.simplify import simplify

    r = Symbol(spec.reduction[0])
    ranges: dict[str, object] = dict(spec.loops)

    def stride(index: Expr, v: Expr) -> int | None:
        c = simplify(index.subs({v: integer(1)}) - index.subs({v: integer(0)}),
                     ranges)  # type: ignore[arg-type]
        return c.payload if type(c) is Integer else None

    for o in spec.ops:
        if o.kind == "load" and o.index is not None and r in o.index.free_symbols:
            sr = stride(o.index, r)
            if sr == 1:
                return True
            if sr is None or not 1 < sr <= 8:
                continue
            others = [stride(o.index, Symbol(n)) for n, _ in spec.loops
                      if Symbol(n) in o.index.free_symbols]
            if all(s is not None and abs(s) > sr for s in others):
                return True
    return False


def _kinds(kinds: Sequence[str] | None) -> tuple[str, ...]:
    if kinds is None:
        from indexalg_triton.access import supported_kinds

        return supported_kinds()
    return tuple(kinds)


# --- generation ---------------------------------------------------------------------------


def generate(
    spec: KernelSpec, config: Config | None = None, *, kinds: Sequence[str] | None = None,
    index_dtype: str | None = None, part: bool = False,
) -> KernelSource:
    """The Triton source of ``spec`` under ``config`` (default: the first of
    :func:`default_configs`).  ``kinds``: the structured access kinds the target supports
    (default: the installed Triton's); ``index_dtype`` forces ``"int32"`` or ``"int64"``
    (tests only; the decision is otherwise proven).  ``part`` (pointwise kernels only): a
    ``@triton.jit`` function for a combo kernel, with a ``pid_base`` argument after the
    buffers; its programs are ``tl.program_id(0) - pid_base`` (see
    :mod:`indexalg_triton.combo`).  Every generated name is recorded for the debug printer's
    kernel filter (:func:`indexalg_triton.debug.record_kernel`)."""
    from indexalg_triton.debug import record_kernel

    ks = _kinds(kinds)
    cfg = config or default_configs(spec, ks)[0]
    if part and spec.is_reduction:
        raise InvalidOperationError(f"kernel {spec.name}: only pointwise kernels can be parts "
                                    "of a combo kernel")
    gen = _Gen(spec, cfg, ks if cfg.structured else (), ks, index_dtype)
    gen.part = part
    src = gen.run()
    if not part:
        record_kernel(src.kernel_name)
    return src


def _axis_names(n: int) -> tuple[str, ...]:
    return ("x", "y", "z")[:n]


class _Gen:
    def __init__(self, spec: KernelSpec, cfg: Config, allow: tuple[str, ...],
                 kinds: tuple[str, ...], forced: str | None) -> None:
        self.spec = spec
        self.cfg = cfg
        self.allow = allow
        self.kinds = kinds
        self.forced = forced
        self.lines: list[str] = []
        self.kinds_used: list[str] = []
        self.asserts: list[str] = []
        self.reg: dict[str, str] = {}  # value -> register dtype
        self.axes_of: dict[str, frozenset[int]] = {}
        self.index_dtype = "int32"
        self.part = False
        self.helpers: dict[str, str] = {}  # helper name -> source, in first-use order
        self.guard_flat: dict[str, Expr] = {}  # guarded load -> its guard over the tile axes

    # -- helpers ----------------------------------------------------------------------------

    def emit(self, line: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + line)

    def run(self) -> KernelSource:
        if self.spec.is_reduction:
            return self._reduction()
        return self._pointwise()

    def _header(self, blocks: Sequence[str], comments: Sequence[str]) -> None:
        args = [b.name for b in self.spec.buffers] + (["pid_base"] if self.part else []) \
            + [f"{b}: tl.constexpr" for b in blocks]
        self.emit(f"# kernel {self.spec.name}: {self.spec.describe()}", 0)
        for b in self.spec.buffers:
            v = b.view
            sizes = ", ".join(str(s) for s in v.sizes)
            strides = ", ".join(str(s) for s in v.strides)
            role = "output" if b.output else "input"
            self.emit(f"# {role} {b.name}: {v.dtype} sizes ({sizes}) strides ({strides})", 0)
        for c in comments:
            self.emit(f"# {c}", 0)
        self.emit("@triton.jit", 0)
        self.emit(f"def {self.spec.name}({', '.join(args)}):", 0)

    def _finish(self, grid: int, dtype: str, reason: str, tiling: str) -> KernelSource:
        from indexalg.printing.triton import TRITON_PREAMBLE

        body = "\n".join(self.lines)
        helpers = (_COMBINE if self.spec.is_reduction else "") + "".join(self.helpers.values())
        source = f"{TRITON_PREAMBLE}{helpers}\n\n{body}\n"
        return KernelSource(self.spec, self.cfg, source, self.spec.name, grid, dtype, reason,
                            tuple(self.kinds_used), tiling, tuple(self.asserts), f"{body}\n")

    def _nonneg(self, ranges: Mapping[str, tuple[int, int]]) -> object:
        from indexalg.analysis import bounds

        rng = dict(ranges)

        def nonneg(e: Expr) -> bool:
            try:
                lo, _ = bounds(e, rng)  # type: ignore[arg-type]
            except Exception:  # an unanalysable subterm is not known >= 0
                return False
            return lo is not None and type(lo) is Integer and lo.payload >= 0

        return nonneg

    def _print(self, e: Expr, ranges: Mapping[str, tuple[int, int]]) -> str:
        from indexalg.printing.triton import to_triton

        return to_triton(e, nonneg=self._nonneg(ranges))  # type: ignore[arg-type]

    def _value_ranges(self) -> dict[str, tuple[int, int]]:
        """Ranges of integer values used as indices: by their ``check`` (asserted), else by
        their dtype."""
        from indexalg.decisions import dtype_range

        out: dict[str, tuple[int, int]] = {}
        for o in self.spec.ops:
            if not is_float(o.dtype) and o.dtype != "bool":
                out[o.name] = dtype_range(o.dtype)
        for o in self.spec.ops:
            if o.kind == "check" and o.size is not None:
                v = str(o.args[0])
                lo, hi = out.get(v, (0, o.size - 1))
                out[v] = (max(lo, 0), min(hi, o.size - 1))
        return out

    def _decide_dtype(self, exprs: list[Expr], ranges: dict[str, tuple[int, int]],
                      numels: list[int]) -> tuple[str, str]:
        if self.forced is not None:
            return self.forced, "forced by the caller"
        from indexalg.decisions import index_dtype

        d = index_dtype(
            exprs, ranges=ranges, numel=numels,  # type: ignore[arg-type]
            buffer_sizes=[b.storage_numel for b in self.spec.buffers],
        )
        return d.dtype, d.reason

    # -- values -----------------------------------------------------------------------------

    def _operand(self, a: Operand, want_float: bool) -> str:
        if isinstance(a, bool):
            return "True" if a else "False"
        if isinstance(a, int):
            return str(a)
        if isinstance(a, float):
            if math.isinf(a):
                return 'float("inf")' if a > 0 else 'float("-inf")'
            if math.isnan(a):
                return 'float("nan")'
            return repr(a)
        reg = self.reg[a]
        if want_float and reg in ("float16", "bfloat16"):
            return f"{a}.to(tl.float32)"
        return a

    def _elementwise(self, o: Op) -> str:
        fl = o.kind in _FLOAT_ARITH and is_float(o.dtype)
        args = [self._operand(a, fl) for a in o.args]
        k = o.kind
        if k == "cast":
            src = o.args[0]
            src_reg = self.reg.get(src, "") if isinstance(src, str) else ""
            src_dtype = self.spec.op(src).dtype if isinstance(src, str) else ""
            if o.dtype == src_reg or (o.dtype == src_dtype == "bfloat16"):
                text = args[0]
            elif o.dtype == "bfloat16" and src_reg == "float32":
                # a value rounded to bfloat16 and kept in float32 (the next op computes in
                # float32 anyway): round-to-nearest-even by bits, as torch and the GPU round
                # (Triton's interpreter truncates a float32 -> bfloat16 conversion)
                self.helpers.setdefault("ia_round_bf16", _ROUND_BF16)
                self.reg[o.name] = "float32"
                return f"ia_round_bf16({args[0]})"
            elif o.dtype in ("float16", "bfloat16") and not is_float(src_reg):
                # through float32, as torch converts integers to 16-bit floats (and the
                # interpreter would reinterpret the bits of a direct conversion)
                text = f"{args[0]}.to(tl.float32).to({_TL_DTYPE[o.dtype]})"
            else:
                text = f"{args[0]}.to({_TL_DTYPE[o.dtype]})"
            self.reg[o.name] = o.dtype
            return text
        if k in _BINARY:
            text = f"{args[0]} {_BINARY[k]} {args[1]}"
        elif k == "neg":
            text = f"-{args[0]}"
        elif k in _TL_MATH:
            text = f"{_TL_MATH[k]}({args[0]})"
        elif k == "sigmoid":
            text = f"1.0 / (1.0 + tl.exp(-{args[0]}))"
        elif k == "tanh":
            self.helpers.setdefault("ia_tanh", _TANH)
            text = f"ia_tanh({args[0]})"
        elif k == "not":
            text = f"~{args[0]}"
        elif k in ("maximum", "minimum"):
            text = f"tl.{k}({args[0]}, {args[1]})"
        elif k == "where":
            regs = {self.reg[a] for a in o.args[1:] if isinstance(a, str)}
            if len(regs) > 1 and is_float(o.dtype):
                args = [args[0]] + [self._operand(a, True) for a in o.args[1:]]
            text = f"tl.where({args[0]}, {args[1]}, {args[2]})"
        else:  # pragma: no cover - the spec validates kinds
            raise InvalidOperationError(f"no Triton form for {k}")
        if o.dtype in ("float16", "bfloat16") and k != "where":
            self.reg[o.name] = "float32"
        elif k == "where" and o.dtype in ("float16", "bfloat16"):
            regs2 = [self.reg[a] for a in o.args[1:] if isinstance(a, str)]
            self.reg[o.name] = regs2[0] if regs2 and all(r == regs2[0] for r in regs2) \
                else "float32"
        else:
            self.reg[o.name] = o.dtype
        return text

    def _axes(self, o: Op) -> frozenset[int]:
        out: frozenset[int] = frozenset()
        for a in o.args:
            if isinstance(a, str):
                out |= self.axes_of.get(a, frozenset())
        return out

    def _store_cast(self, value: str, dtype: str) -> str:
        reg = self.reg[value]
        return value if reg == dtype else f"{value}.to({_TL_DTYPE[dtype]})"

    def _load_cast(self, name: str, dtype: str) -> str:
        if dtype in ("float16", "bfloat16"):
            self.reg[name] = "float32"
            return ".to(tl.float32)"
        self.reg[name] = dtype
        return ""

    def _check(self, o: Op, mask: str | None, ranges: Mapping[str, tuple[int, int]],
               depth: int) -> None:
        from indexalg.decisions import bounds_checks, dtype_range

        v = str(o.args[0])
        assert o.size is not None
        vr = dtype_range(self.spec.op(v).dtype)
        d = bounds_checks(Symbol(v), o.size, ranges={v: vr})
        if not d.asserts:
            self.emit(f"# {v} in [0, {o.size}): proven, no assert", depth)
            return
        for claim in d.asserts:
            text = self._print(claim, ranges)
            cond = f"({text}) | ~({mask})" if mask else text
            self.emit(f'tl.device_assert({cond}, "index out of bounds: {claim}")', depth)
            self.asserts.append(str(claim))

    # -- pointwise --------------------------------------------------------------------------

    def _pointwise(self) -> KernelSource:
        spec = self.spec
        groups = tiling_groups(spec, self.kinds)
        if self.cfg.flat:
            groups = (tuple(n for n, _ in spec.loops),)
        names = _axis_names(len(groups))
        blocks = {f"{n.upper()}BLOCK": self.cfg.block(f"{n.upper()}BLOCK") for n in names}
        tiling = make_tiling(list(spec.loops), [list(g) for g in groups], blocks)
        accesses, owners = _accesses(spec)
        plans = [_no_unit_block_pointer(a, plan_access(a, tiling, allow=self._allow_for(ow)),
                                        tiling) for a, ow in zip(accesses, owners)]
        numels = [_const(ax.numel) for ax in tiling.axes]
        bl = [blocks[f"{n.upper()}BLOCK"] for n in names]
        progs = [-(-n // b) for n, b in zip(numels, bl)]
        padded = [p * b for p, b in zip(progs, bl)]
        vranges = self._value_ranges()
        subst = tiling.substitution()
        ranges: dict[str, tuple[int, int]] = {
            f"{n}index": (0, p - 1) for n, p in zip(names, padded)}
        ranges.update({f"{n}offset": (0, p - 1) for n, p in zip(names, padded)})
        loop_r = {n: (0, s - 1) for n, s in spec.loops}
        exprs: list[Expr] = [a.index for a in accesses] + [p.flat_index for p in plans]
        indirect = [o for o in spec.ops if o.kind == "load" and spec.indirect_symbols(o)]
        index_ops = [o for o in spec.ops if o.kind == "index"]
        ind_flat: dict[str, Expr] = {}
        from indexalg.simplify import simplify

        simp_r: dict[str, object] = {**{k: v for k, v in ranges.items()}, **vranges}
        for o in [*indirect, *index_ops]:
            assert o.index is not None
            ind_flat[o.name] = simplify(o.index.subs(subst), simp_r)  # type: ignore[arg-type]
            if not o.index.is_bool:
                exprs += [o.index, ind_flat[o.name]]
        self.guard_flat = {o.name: simplify(o.guard.subs(subst), simp_r)  # type: ignore[arg-type]
                           for o in spec.ops if o.guard is not None}
        dtype, reason = self._decide_dtype(
            exprs, {**loop_r, **ranges, **vranges}, [*padded, math.prod(padded)])
        self.index_dtype = dtype
        if dtype == "int64":
            plans = [self._fit_int32(a, p, tiling) for a, p in zip(accesses, plans)]
        plan_of = {id(ow): p for ow, p in zip(owners, plans)}
        print_r = {**ranges, **vranges}
        comments = [
            f"tiling: {tiling.describe()}; config {self.cfg.describe()}",
            f"index dtype: {dtype} ({reason})",
        ]
        self._header(list(blocks), comments)
        depth = 1
        for n, num in zip(names, numels):
            self.emit(f"{n}numel = {num}", depth)
        pid = "tl.program_id(0)" + (".to(tl.int64)" if dtype == "int64" else "")
        if self.part:
            pid += " - pid_base"
        self.emit(f"pid = {pid}", depth)
        if len(names) == 1:
            self.emit("xoffset = pid * XBLOCK", depth)
            self.emit("xindex = xoffset + tl.arange(0, XBLOCK)", depth)
        else:
            self.emit(f"xoffset = (pid % {progs[0]}) * XBLOCK", depth)
            self.emit(f"yoffset = (pid // {progs[0]}) * YBLOCK", depth)
            self.emit("xindex = xoffset + tl.arange(0, XBLOCK)[:, None]", depth)
            self.emit("yindex = yoffset + tl.arange(0, YBLOCK)[None, :]", depth)
        for n, num, b in zip(names, numels, bl):
            if num % b:
                self.emit(f"{n}mask = {n}index < {n}numel", depth)
        masks = [f"{n}mask" for n, num, b in zip(names, numels, bl) if num % b]
        all_mask = " & ".join(masks) if masks else None
        digits = ", ".join(f"{k} = {v}" for k, v in sorted(
            ((str(k), str(v)) for k, v in subst.items())))
        self.emit(f"# loops as digits of the tile axes: {digits}", depth)
        tile = [f"{n.upper()}BLOCK" for n in names]
        for o in spec.ops:
            if o.kind == "load" and id(o) in plan_of:
                self._load(o, plan_of[id(o)], tile, print_r, names)
            elif o.kind == "load":
                flat = ind_flat[o.name]
                mask = " & ".join(
                    f"{n}mask" for n in names if f"{n}mask" in masks
                    and Symbol(f"{n}index") in flat.free_symbols) or all_mask
                self.emit(f"# load {o.buffer}[{o.index}]: pointer (indirect)", depth)
                if o.guard is not None:
                    g = self._print(self.guard_flat[o.name], print_r)
                    mask = f"{mask} & ({g})" if mask else f"({g})"
                m = f", {mask}, other=0" if o.guard is not None else (f", {mask}" if mask else "")
                cast = self._load_cast(o.name, o.dtype)
                self.emit(f"{o.name} = tl.load({o.buffer} + ({self._print(flat, print_r)}){m})"
                          f"{cast}", depth)
                self.kinds_used.append("pointer")
                self.axes_of[o.name] = _axes_in(flat, names)
            elif o.kind == "index":
                flat = ind_flat[o.name]
                self.emit(f"# index {o.index}", depth)
                self.emit(f"{o.name} = {self._print(flat, print_r)}", depth)
                self.reg[o.name] = o.dtype if o.dtype == "bool" else dtype
                self.axes_of[o.name] = _axes_in(flat, names)
            elif o.kind == "check":
                self._check(o, all_mask, print_r, depth)
            else:
                self.emit(f"{o.name} = {self._elementwise(o)}", depth)
                self.axes_of[o.name] = self._axes(o)
        for st in spec.stores:
            self._store(st, plan_of[id(st)], tile, print_r, names, all_mask)
        grid = math.prod(progs)
        return self._finish(grid, dtype, reason, tiling.describe())

    def _allow_for(self, owner: object) -> tuple[str, ...]:
        """Structured kinds allowed for one access: none for a guarded load (its guard is a
        mask a descriptor or block pointer cannot apply)."""
        return () if isinstance(owner, Op) and owner.guard is not None else self.allow

    def _fit_int32(self, a: Access, p: AccessPlan, tiling: Tiling) -> AccessPlan:
        """A structured plan in an int64 kernel stays only if its coordinates fit int32."""
        if p.kind == "pointer":
            return p
        if all(type(s) is Integer and s.payload <= _INT32_MAX for s in p.shape):
            return p
        q = plan_access(a, tiling, allow=())
        return replace(q, reasons=(*q.reasons, f"{p.kind}: a dimension passes int32 "
                                   "coordinates in this int64 kernel"))

    def _plan_comment(self, what: str, p: AccessPlan, depth: int) -> None:
        self.emit(f"# {what}: {p.kind}", depth)
        for r in p.reasons:
            self.emit(f"#   why not: {r}", depth)

    def _offsets(self, p: AccessPlan, ranges: Mapping[str, tuple[int, int]]) -> str:
        """Structured-access coordinates are int32 in Triton; in an int64 kernel they are
        narrowed (each fits: :meth:`_fit_int32` kept only such plans)."""
        texts = [self._print(o, ranges) for o in p.offsets]
        if self.index_dtype == "int64":
            texts = [t if type(o) is Integer else f"({t}).to(tl.int32)"
                     for t, o in zip(texts, p.offsets)]
        return ", ".join(texts)

    def _load(self, o: Op, p: AccessPlan, tile: list[str], ranges: Mapping[str, tuple[int, int]],
              names: Sequence[str]) -> None:
        d = 1
        self._plan_comment(f"load {o.buffer}[{o.index}]", p, d)
        self.kinds_used.append(p.kind)
        cast = self._load_cast(o.name, o.dtype)
        if p.kind == "pointer":
            masks = list(p.mask)
            spread = _spread(p, tile, names)
            if o.guard is not None:
                gflat = self.guard_flat[o.name]
                masks.append(f"({self._print(gflat, ranges)})")
                if not _axes_in(gflat, names) <= _axes_in(p.flat_index, names):
                    spread = f" + tl.full([{', '.join(tile)}], 0, tl.int32)"
            m = f", {' & '.join(masks)}" if masks else ""
            if o.guard is not None:
                m += ", other=0"
            self.emit(f"{o.name} = tl.load({o.buffer} + ({self._print(p.flat_index, ranges)})"
                      f"{spread}{m}){cast}", d)
            self.axes_of[o.name] = frozenset(range(len(tile))) if spread \
                else _axes_in(p.flat_index, names)
            return
        base = _base(o.buffer or "", p)
        shape = _list(p.shape)
        strides = _list(p.strides)
        block = _list(p.block_shape)
        offs = self._offsets(p, ranges)
        v = o.name
        if p.kind == "tensor_descriptor":
            self.emit(f"{v}_desc = tl.make_tensor_descriptor({base}, shape={shape}, "
                      f"strides={strides}, block_shape={block})", d)
            self.emit(f"{v} = {v}_desc.load([{offs}])", d)
        else:
            self.emit(f"{v} = tl.load(tl.make_block_ptr({base}, shape={shape}, strides={strides}, "
                      f"offsets=[{offs}], block_shape={block}, order={list(p.order)}), "
                      f"boundary_check={list(p.boundary_check)}, padding_option=\"zero\")", d)
        if p.permute is not None:
            self.emit(f"{v} = tl.permute({v}, {tuple(p.permute)})", d)
        if p.reshape is not None:
            self.emit(f"{v} = tl.reshape({v}, {_list(p.reshape)})", d)
        if p.broadcast_shape is not None:
            self.emit(f"{v} = tl.broadcast_to({v}, {_list(p.broadcast_shape)})", d)
        if p.final_shape is not None:
            self.emit(f"{v} = tl.reshape({v}, {_list(p.final_shape)})", d)
        if p.slices is not None:
            self.emit(f"{v} = {v}{p.slices}", d)
        if cast:
            self.emit(f"{v} = {v}{cast}", d)
        if p.slices is not None:
            parts = p.slices[1:-1].split(", ")
            self.axes_of[v] = frozenset(i for i, s in enumerate(parts) if s != "None")
        else:
            self.axes_of[v] = frozenset(range(len(tile)))

    def _store(self, st: object, p: AccessPlan, tile: list[str],
               ranges: Mapping[str, tuple[int, int]], names: Sequence[str],
               all_mask: str | None) -> None:
        from indexalg_triton.spec import Store

        assert isinstance(st, Store)
        d = 1
        buf = self.spec.buffer(st.buffer)
        self._plan_comment(f"store {st.buffer}[{st.index}]", p, d)
        self.kinds_used.append(p.kind)
        val = self._store_cast(st.value, buf.dtype)
        if p.kind == "pointer":
            m = f", {' & '.join(p.mask)}" if p.mask else ""
            spread = _spread(p, tile, names)
            self.emit(f"tl.store({st.buffer} + ({self._print(p.flat_index, ranges)}){spread}, "
                      f"{val}{m})", d)
            return
        v = f"{st.value}_out"
        full = self.axes_of.get(st.value, frozenset()) == frozenset(range(len(tile)))
        self.emit(f"{v} = {val}" if full else f"{v} = tl.broadcast_to({val}, [{', '.join(tile)}])",
                  d)
        # undo the load-side chain: tile -> the kept blocks in tile order -> descriptor order
        tile_order = list(p.block_shape)
        if p.permute is not None:
            tile_order = [p.block_shape[i] for i in p.permute]
        if p.final_shape is not None:
            self.emit(f"{v} = tl.reshape({v}, {_list(tuple(tile_order))})", d)
        if p.permute is not None:
            inv = tuple(sorted(range(len(p.permute)), key=lambda i: p.permute[i]))  # type: ignore[index]
            self.emit(f"{v} = tl.permute({v}, {inv})", d)
        base = _base(st.buffer, p)
        shape = _list(p.shape)
        strides = _list(p.strides)
        block = _list(p.block_shape)
        offs = self._offsets(p, ranges)
        if p.kind == "tensor_descriptor":
            self.emit(f"{v}_desc = tl.make_tensor_descriptor({base}, shape={shape}, "
                      f"strides={strides}, block_shape={block})", d)
            self.emit(f"{v}_desc.store([{offs}], {v})", d)
        else:
            self.emit(f"tl.store(tl.make_block_ptr({base}, shape={shape}, strides={strides}, "
                      f"offsets=[{offs}], block_shape={block}, order={list(p.order)}), {v}, "
                      f"boundary_check={list(p.boundary_check)})", d)

    # -- reductions -------------------------------------------------------------------------

    def _reduction(self) -> KernelSource:
        spec = self.spec
        assert spec.reduction is not None
        rname, rnumel = spec.reduction
        xb, rb = self.cfg.block("XBLOCK"), self.cfg.block("RBLOCK")
        tiling = make_tiling(list(spec.loops), [[n for n, _ in spec.loops]], {"XBLOCK": xb})
        xnumel = _const(tiling.axes[0].numel)
        progs = -(-xnumel // xb)
        persistent = rb >= rnumel
        rpad = rb if persistent else -(-rnumel // rb) * rb
        subst = {**tiling.substitution(), Symbol(rname): Symbol("rindex")}
        vranges = self._value_ranges()
        ranges = {"xindex": (0, progs * xb - 1), "rindex": (0, rpad - 1),
                  "xoffset": (0, progs * xb - 1), "roffset": (0, rpad - 1)}
        simp_r: dict[str, object] = {**ranges, **vranges}
        from indexalg.simplify import simplify

        flat: dict[int, Expr] = {}
        exprs: list[Expr] = []
        for o in spec.ops:
            if o.index is not None:
                flat[id(o)] = simplify(o.index.subs(subst), simp_r)  # type: ignore[arg-type]
                if not o.index.is_bool:
                    exprs += [o.index, flat[id(o)]]
        for st in spec.stores:
            flat[id(st)] = simplify(st.index.subs(subst), simp_r)  # type: ignore[arg-type]
            exprs += [st.index, flat[id(st)]]
        self.guard_flat = {o.name: simplify(o.guard.subs(subst), simp_r)  # type: ignore[arg-type]
                           for o in spec.ops if o.guard is not None}
        loop_r = {n: (0, s - 1) for n, s in [*spec.loops, spec.reduction]}
        dtype, reason = self._decide_dtype(exprs, {**loop_r, **ranges, **vranges},
                                           [progs * xb, rpad, progs * xb * rpad])
        mode = "persistent (one chunk of r)" if persistent else "looped over r"
        comments = [
            f"reduction tiling: x=({', '.join(n for n, _ in spec.loops)}) numel {xnumel}; "
            f"r=({rname}) numel {rnumel}; {mode}; config {self.cfg.describe()}",
            f"index dtype: {dtype} ({reason})",
        ]
        self._header(["XBLOCK", "RBLOCK"], comments)
        xmask = xnumel % xb != 0
        rmask = rnumel % rb != 0 and not (persistent and rb == rnumel)
        self.emit(f"xnumel = {xnumel}")
        self.emit(f"rnumel = {rnumel}")
        pid = "tl.program_id(0)" + (".to(tl.int64)" if dtype == "int64" else "")
        self.emit(f"xoffset = {pid} * XBLOCK")
        self.emit("xindex = xoffset + tl.arange(0, XBLOCK)[:, None]")
        if xmask:
            self.emit("xmask = xindex < xnumel")
        self.emit("rbase = tl.arange(0, RBLOCK)[None, :]")
        digits = ", ".join(f"{k} = {v}" for k, v in sorted(
            ((str(k), str(v)) for k, v in subst.items())))
        self.emit(f"# loops as digits of the tile axes: {digits}")
        inner_mask = " & ".join(m for m, on in (("xmask", xmask), ("rmask", rmask)) if on) or None
        outer_mask = "xmask" if xmask else None
        print_r = {**ranges, **vranges}
        env = _RedEnv(self, flat, print_r, inner_mask, outer_mask, dtype)
        if persistent:
            self.emit("rindex = rbase")
            if rmask:
                self.emit("rmask = rindex < rnumel")
            for o in spec.ops:
                env.value(o, 1, persistent=True)
            for st in spec.stores:
                env.store(st, 1)
        else:
            env.looped(spec, rmask)
        return self._finish(progs, dtype, reason,
                            f"reduction x={xnumel} r={rnumel} {mode}")


class _RedEnv:
    """Emission state of a reduction kernel."""

    def __init__(self, g: _Gen, flat: dict[int, Expr], ranges: Mapping[str, tuple[int, int]],
                 inner_mask: str | None, outer_mask: str | None, dtype: str) -> None:
        self.g = g
        self.flat = flat
        self.ranges = ranges
        self.inner_mask = inner_mask
        self.outer_mask = outer_mask
        self.index_dtype = dtype
        self.done: set[str] = set()
        self.inner = g.spec.inner_values()

    def value(self, o: Op, depth: int, *, persistent: bool) -> None:
        g = self.g
        if o.kind == "load":
            f = self.flat[id(o)]
            mask = self.inner_mask if o.name in self.inner else self.outer_mask
            if o.guard is not None:
                gtext = f"({g._print(g.guard_flat[o.name], self.ranges)})"
                mask = f"{mask} & {gtext}" if mask else gtext
            m = f", {mask}, other=0" if mask else ""
            g.emit(f"# load {o.buffer}[{o.index}]: pointer", depth)
            g.kinds_used.append("pointer")
            cast = g._load_cast(o.name, o.dtype)
            g.emit(f"{o.name} = tl.load({o.buffer} + ({g._print(f, self.ranges)}){m}){cast}",
                   depth)
        elif o.kind == "index":
            g.emit(f"# index {o.index}", depth)
            g.emit(f"{o.name} = {g._print(self.flat[id(o)], self.ranges)}", depth)
            g.reg[o.name] = o.dtype if o.dtype == "bool" else self.index_dtype
        elif o.kind == "check":
            mask = self.inner_mask if str(o.args[0]) in self.inner else self.outer_mask
            g._check(o, mask, self.ranges, depth)
        elif o.kind in REDUCTIONS:
            src = str(o.args[0])
            acc_dtype, init = _acc(o)
            g.reg[o.name] = acc_dtype
            comb = "ia_sum_combine" if o.kind == "sum" else "ia_max_combine"
            v = g._operand(src, True) if is_float(acc_dtype) else src
            if is_float(acc_dtype) and g.reg[src] != acc_dtype:
                v = f"{src}.to({_TL_DTYPE[acc_dtype]})"
            if persistent:
                if self.inner_mask:
                    v = f"tl.where({self.inner_mask}, {v}, {init})"
                g.emit(f"{o.name} = tl.reduce({v}, 1, {comb}, keep_dims=True)", depth)
            else:
                g.emit(f"{o.name} = tl.reduce({o.name}_acc, 1, {comb}, keep_dims=True)", depth)
        elif o.kind in MULTI_OUTPUT:  # mean_var, persistent (the looped form is in looped())
            mean, var = o.results
            x = self._as_f32(str(o.args[0]))
            g.emit(f"# {o.kind} of {o.args[0]}: one operation, results {mean}, {var}", depth)
            g.emit(f"{o.name}_x = {self._masked(x, '0.0')}", depth)
            g.emit(f"{mean} = tl.reduce({o.name}_x, 1, ia_sum_combine, keep_dims=True) / rnumel",
                   depth)
            g.emit(f"{o.name}_d = {self._masked(f'{o.name}_x - {mean}', '0.0')}", depth)
            g.emit(f"{var} = tl.reduce({o.name}_d * {o.name}_d, 1, ia_sum_combine, "
                   "keep_dims=True) / rnumel", depth)
            g.reg[mean] = g.reg[var] = "float32"
        else:
            g.emit(f"{o.name} = {g._elementwise(o)}", depth)
        self.done.add(o.name)

    def _as_f32(self, src: str) -> str:
        reg = self.g.reg[src]
        return src if reg == "float32" else f"{src}.to(tl.float32)"

    def _masked(self, v: str, other: str) -> str:
        return f"tl.where({self.inner_mask}, {v}, {other})" if self.inner_mask else v

    def store(self, st: object, depth: int) -> None:
        from indexalg_triton.spec import Store

        assert isinstance(st, Store)
        g = self.g
        buf = g.spec.buffer(st.buffer)
        mask = self.inner_mask if st.value in self.inner else self.outer_mask
        f = self.flat[id(st)]
        g.emit(f"# store {st.buffer}[{st.index}]: pointer", depth)
        g.kinds_used.append("pointer")
        val = g._store_cast(st.value, buf.dtype)
        m = f", {mask}" if mask else ""
        inner = st.value in self.inner
        syms = {s.payload for s in f.free_symbols}
        spread = ""  # an index missing a tile axis (a scalar result) needs the value's shape
        if "xindex" not in syms or (inner and "rindex" not in syms):
            spread = f" + tl.full([XBLOCK, {'RBLOCK' if inner else 1}], 0, tl.int32)"
        g.emit(f"tl.store({st.buffer} + ({g._print(f, self.ranges)}){spread}, {val}{m})", depth)

    def _deps(self, names: Sequence[str], expand: str | None = None) -> list[Op]:
        """The ops needed to compute ``names``, in spec order; a reduction's operands are
        followed only for ``expand`` (others are computed once, outside)."""
        spec = self.g.spec
        values = {v for p in spec.ops for v in p.values}
        need: dict[str, None] = {}  # operation names
        stack = list(names)
        while stack:
            o = spec.op(stack.pop())
            if o.name in need:
                continue
            need[o.name] = None
            if o.reduces and o.name != expand:
                continue
            stack += [a for a in o.args if isinstance(a, str)]
            if o.index is not None:
                stack += [s.payload for s in o.index.free_symbols if s.payload in values]
        return [o for o in spec.ops if o.name in need]

    def _checks_for(self, names: set[str]) -> list[Op]:
        return [o for o in self.g.spec.ops if o.kind == "check" and str(o.args[0]) in names]

    def _pass(self, deps: list[Op], rmask: bool, acc: str, init: str, acc_dtype: str,
              update: Callable[[], str], pre: Callable[[], str] | None = None) -> None:
        """One loop over r: the inner values of ``deps`` recomputed, then ``acc = update()``
        (``acc`` initialised first unless ``init`` is empty)."""
        g = self.g
        if init:
            g.emit(f"{acc} = tl.full([XBLOCK, RBLOCK], {init}, {_TL_DTYPE[acc_dtype]})")
        g.emit("for roffset in range(0, rnumel, RBLOCK):")
        g.emit("rindex = roffset + rbase", 2)
        if rmask:
            g.emit("rmask = rindex < rnumel", 2)
        body = [o for o in deps if o.name in self.inner]
        names = {o.name for o in body}
        body += [c for c in self._checks_for(names) if c not in body]
        for o in g.spec.ops:
            if o in body:
                self.value(o, 2, persistent=False)
        if pre is not None:
            g.emit(pre(), 2)
        g.emit(f"{acc} = {update()}", 2)
        for o in body:
            self.done.discard(o.name)

    def _mean_var_looped(self, red: Op, deps: list[Op], rmask: bool) -> None:
        """mean_var over a loop: one pass for the mean, a second for the squared deviations
        from it (numerically the two-pass formula, not E[x^2] - E[x]^2)."""
        g = self.g
        src = str(red.args[0])
        mean, var = red.results
        g.emit(f"# {red.kind} of {src}: one operation, results {mean}, {var} (two passes over r)")
        self._pass(deps, rmask, f"{red.name}_sum", "0.0", "float32",
                   lambda: f"{red.name}_sum + {self._masked(self._as_f32(src), '0.0')}")
        g.emit(f"{mean} = tl.reduce({red.name}_sum, 1, ia_sum_combine, keep_dims=True) / rnumel")
        g.reg[mean] = "float32"
        g.emit(f"{red.name}_m2 = tl.full([XBLOCK, RBLOCK], 0.0, tl.float32)")
        self._pass(deps, rmask, f"{red.name}_m2", "", "float32",
                   lambda: f"{red.name}_m2 + {red.name}_d * {red.name}_d",
                   pre=lambda: f"{red.name}_d = "
                   f"{self._masked(f'{self._as_f32(src)} - {mean}', '0.0')}")
        g.emit(f"{var} = tl.reduce({red.name}_m2, 1, ia_sum_combine, keep_dims=True) / rnumel")
        g.reg[var] = "float32"
        self.done.add(red.name)

    def looped(self, spec: KernelSpec, rmask: bool) -> None:
        g = self.g
        reductions = [o for o in spec.ops if o.reduces]
        for red in reductions:
            deps = self._deps([red.name], red.name)
            for o in deps:  # outer values the loop body needs, computed once before it
                if o.name not in self.inner and o.name != red.name and o.name not in self.done:
                    self.value(o, 1, persistent=False)
            if red.kind in MULTI_OUTPUT:
                self._mean_var_looped(red, deps, rmask)
                continue
            acc_dtype, init = _acc(red)

            def update(red: Op = red, acc_dtype: str = acc_dtype, init: str = init) -> str:
                src = str(red.args[0])
                v = f"{src}.to({_TL_DTYPE[acc_dtype]})" if g.reg[src] != acc_dtype else src
                v = self._masked(v, init)
                if red.kind == "sum":
                    return f"{red.name}_acc + {v}"
                return f"tl.maximum({red.name}_acc, {v})"

            self._pass(deps, rmask, f"{red.name}_acc", init, acc_dtype, update)
            self.value(red, 1, persistent=False)
        outer_stores = [st for st in spec.stores if st.value not in self.inner]
        inner_stores = [st for st in spec.stores if st.value in self.inner]
        for st in outer_stores:
            for o in self._deps([st.value]):
                if o.name not in self.done:
                    self.value(o, 1, persistent=False)
            self.store(st, 1)
        if inner_stores:
            need: dict[str, None] = {}
            for st in inner_stores:
                for o in self._deps([st.value]):
                    need[o.name] = None
            for o in spec.ops:
                if o.name in need and o.name not in self.inner and o.name not in self.done:
                    self.value(o, 1, persistent=False)
            g.emit("for roffset in range(0, rnumel, RBLOCK):")
            g.emit("rindex = roffset + rbase", 2)
            if rmask:
                g.emit("rmask = rindex < rnumel", 2)
            body = [o for o in spec.ops if o.name in need and o.name in self.inner]
            names = {o.name for o in body}
            body += [c for c in self._checks_for(names) if c not in body]
            for o in spec.ops:
                if o in body:
                    self.value(o, 2, persistent=False)
            for st in inner_stores:
                self.store(st, 2)


#: Combine functions of the reductions, defined in the kernel's own module (``tl.sum`` and
#: ``tl.max`` are jit functions bound when triton was imported, which breaks the
#: interpreter when triton was imported before ``TRITON_INTERPRET`` was set).
_COMBINE = '''

@triton.jit
def ia_sum_combine(a, b):
    return a + b


@triton.jit
def ia_max_combine(a, b):
    return tl.maximum(a, b)
'''


#: tanh without libdevice (which the interpreter lacks): (1 - e) / (1 + e) with
#: e = exp(-2|x|), odd; below |x| = 0.05 its cancellation would cost digits, so the Taylor
#: series x - x^3/3 + 2x^5/15 - 17x^7/315 (truncation < 1e-9 relative there).
_TANH = '''

@triton.jit
def ia_tanh(x):
    a = tl.abs(x)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    x2 = x * x
    small = x * (1.0 + x2 * (-0.3333333333333333 + x2 * (0.13333333333333333
                                                        - x2 * 0.05396825396825397)))
    return tl.where(a < 0.05, small, tl.where(x < 0, -t, t))
'''


#: float32 -> the nearest bfloat16 (ties to even), as a float32; NaN stays NaN.
_ROUND_BF16 = '''

@triton.jit
def ia_round_bf16(x):
    b = x.to(tl.uint32, bitcast=True)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return tl.where(x != x, x, b.to(tl.float32, bitcast=True))
'''


def _acc(o: Op) -> tuple[str, str]:
    """Accumulator dtype and initial value of a reduction."""
    from indexalg.decisions import dtype_range

    if is_float(o.dtype):
        return "float32", "0.0" if o.kind == "sum" else 'float("-inf")'
    if o.kind == "sum":
        return "int64", "0"
    return o.dtype, str(dtype_range(o.dtype)[0])


def _no_unit_block_pointer(a: Access, p: AccessPlan, tiling: Tiling) -> AccessPlan:
    """A block pointer whose block holds one element fails to compile on Triton 3.6
    (TritonRewriteTensorPointer: "mask type matches ptr type", seen on an H200); such an
    access is a pointer access.  So is a 16-bit block-pointer load whose broadcast is
    restored by reshapes (gelu_bias_residual's bf16 bias: "PassManager::run failed" on
    Triton 3.6, H200)."""
    if p.kind != "block_pointer":
        return p
    if all(type(b) is Integer and b.payload == 1 for b in p.block_shape):
        why = "a one-element block (Triton 3.6 fails to compile it)"
    elif p.broadcast_shape is not None and a.dtype in ("bfloat16", "float16"):
        why = ("a 16-bit block restored by reshape and broadcast (Triton 3.6 fails to "
               "compile it)")
    else:
        return p
    q = plan_access(a, tiling, allow=())
    return replace(q, reasons=(*p.reasons, f"block_pointer: {why}"))


def _spread(p: AccessPlan, tile: Sequence[str], names: Sequence[str]) -> str:
    """A masked pointer access whose index mentions no tile axis (a loop of size 1 folds
    the index to a constant) needs a pointer tile the mask's shape: `` + tl.full(...)``
    (not ``tl.zeros``: a jit function, which the interpreter cannot call when triton was
    imported before ``TRITON_INTERPRET`` was set)."""
    if not p.mask or _axes_in(p.flat_index, names):
        return ""
    return f" + tl.full([{', '.join(tile)}], 0, tl.int32)"


def _axes_in(e: Expr, names: Sequence[str]) -> frozenset[int]:
    syms = {s.payload for s in e.free_symbols}
    return frozenset(i for i, n in enumerate(names) if f"{n}index" in syms)


def _const(e: Expr) -> int:
    if type(e) is not Integer:
        raise InvalidOperationError(f"a kernel spec needs integer sizes, got {e}")
    v: int = e.payload
    return v


def _list(xs: Sequence[Expr]) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _base(buffer: str, p: AccessPlan) -> str:
    if type(p.base_offset) is Integer and p.base_offset.payload == 0:
        return buffer
    return f"{buffer} + {p.base_offset}"
