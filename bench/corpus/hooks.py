"""Instrumentation of torch Inductor for the corpus harvester.

Everything here patches private Inductor internals of torch 2.13, so it is
isolated in one module.  ``install()`` patches, once per process:

* ``SizeVarAllocator._simplify_with_ranges`` (torch/_inductor/sizevars.py):
  the uncached worker behind ``V.graph.sizevars.simplify_with_ranges``.  Every
  cache miss is recorded as (expression before, var_ranges, Inductor's result),
  with the Inductor function that asked for it.
* ``TritonKernel.indexing`` (torch/_inductor/codegen/triton.py): each load /
  store access of a generated Triton kernel.  Records the raw index, the
  kernel's range trees and Inductor's decision (plain index, block pointer or
  tensor descriptor with shape / strides / offsets).
* ``BlockPatternMatcher.match_affine_block_expr`` and
  ``BlockPatternMatcher.match_mod_div_block_expr``
  (torch/_inductor/codegen/block_analysis.py): the matcher's raw inputs and
  results, attached to the access being generated (or to tiling analysis).
* ``TritonScheduling.define_kernel``: the kernel source, to count kernels and
  block pointers / descriptors in the generated code.
* ``TritonKernel.tma_compatibility_checker_cls``: a checker that behaves as on
  a CUDA device of compute capability 9.0 (so tensor descriptors can be decided
  on a CPU-only machine); it only matters when
  ``config.triton.use_tensor_descriptor`` is set.
* ``torch._inductor.graph.should_assume_input_aligned``: with
  ``use_tensor_descriptor`` set, graph inputs count as 16-byte aligned as they
  would on a GPU with ``assume_aligned_inputs`` (CPU inputs never are).
* ``torch.utils._triton.triton_hash_with_backend``: a constant (no GPU backend).
* ``GraphLowering._compile_to_module_lines``: raises ``CodegenComplete`` once
  the wrapper and kernels of a graph are generated; nothing is compiled or run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from types import FrameType
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

JSONValue = Any  # a JSON-serialisable value

_INDUCTOR_DIR = os.sep + os.path.join("torch", "_inductor") + os.sep
_DIVMOD_NAMES = frozenset(
    {
        "FloorDiv",
        "ModularIndexing",
        "PythonMod",
        "Mod",
        "CeilDiv",
        "CleanDiv",
        "IntTrueDiv",
        "FloorToInt",
        "CeilToInt",
        "floor",
        "ceiling",
    }
)


class CodegenComplete(Exception):
    """Raised after Inductor generated a graph's code, to skip compiling it."""


# --------------------------------------------------------------------------
# Serialisation helpers
# --------------------------------------------------------------------------


def _int_or_none(value: Any) -> int | None:
    """A finite integer bound as int, an infinite one as None."""
    try:
        if value.is_integer and value.is_finite:  # sympy numbers
            return int(value)
    except AttributeError:
        pass
    if isinstance(value, int):
        return value
    return None


def _size_json(size: sympy.Expr) -> int | str:
    """A var_ranges size: an int when constant, else its str()."""
    if isinstance(size, (int, sympy.Integer)):
        return int(size)
    return str(size)


def functions_used(expr: sympy.Basic) -> tuple[str, ...]:
    """Qualified class names of the function applications in ``expr``.

    srepr() names a class only by its bare name, and two differ in module
    (torch.utils._sympy.functions.Mod and sympy's Mod): these resolve them.
    """
    names = {
        f"{type(node).__module__}.{type(node).__name__}"
        for node in sympy.preorder_traversal(expr)
        if isinstance(node, sympy.Function) or type(node).__module__.startswith("torch.")
    }
    return tuple(sorted(names))


def count_divmod(expr: sympy.Basic) -> int:
    """Number of division / modulo-like function nodes in ``expr``."""
    return sum(1 for node in sympy.preorder_traversal(expr) if type(node).__name__ in _DIVMOD_NAMES)


def _caller() -> str:
    """First Inductor frame outside sizevars.py, as 'path:function'."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if _INDUCTOR_DIR in filename and not filename.endswith("sizevars.py"):
            rel = filename.split(_INDUCTOR_DIR, 1)[1]
            return f"{rel}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "unknown"


def symbol_info(sizevars: Any, symbols: Iterable[sympy.Symbol]) -> dict[str, JSONValue]:
    """Range and hint of non-loop symbols (s0, ps0, u0, tmp3, ...).

    The range is the one ``_simplify_with_ranges`` uses: the shape env's
    ``var_to_range`` entry, or [0, inf) for a symbol it does not know.
    """
    shape_env = sizevars.shape_env
    out: dict[str, JSONValue] = {}
    for sym in sorted(symbols, key=str):
        info: dict[str, JSONValue] = {}
        vr = shape_env.var_to_range.get(sym)
        if vr is None:
            info["range"] = [0, None]
            info["range_source"] = "default"
        else:
            info["range"] = [_int_or_none(vr.lower), _int_or_none(vr.upper)]
            info["range_source"] = "shape_env"
        hint = shape_env.backed_var_to_val.get(sym)
        if hint is not None and _int_or_none(hint) is not None:
            info["hint"] = int(hint)
        defined = sizevars.inv_precomputed_replacements.get(sym)
        if defined is not None:
            info["precomputed"] = str(defined)
            hint_expr = sizevars.shape_env.backed_var_to_val
            value = defined.xreplace(hint_expr)
            if _int_or_none(value) is not None:
                info["hint"] = int(value)
        out[str(sym)] = info
    return out


def ranges_json(
    sizevars: Any, expr: sympy.Expr, var_ranges: Mapping[sympy.Symbol, sympy.Expr]
) -> tuple[dict[str, JSONValue], dict[str, JSONValue], dict[str, JSONValue]]:
    """(var_ranges, var_sizes, symbols) for the free symbols of ``expr``.

    var_ranges holds inclusive bounds [0, size - 1] (upper a string when the
    size is symbolic); var_sizes holds the sizes as Inductor has them.
    """
    free = expr.free_symbols
    loop_vars = sorted((s for s in free if s in var_ranges), key=str)
    ranges: dict[str, JSONValue] = {}
    sizes: dict[str, JSONValue] = {}
    others: set[sympy.Symbol] = {s for s in free if s not in var_ranges}
    for var in loop_vars:
        size = sympy.sympify(var_ranges[var])
        sizes[str(var)] = _size_json(size)
        upper = size - 1
        ranges[str(var)] = [0, _size_json(upper)]
        others |= size.free_symbols
    return ranges, sizes, symbol_info(sizevars, others)


class _CallPrinter(StrPrinter):  # type: ignore[misc]
    """sympy's str(), except that torch's functions print as Name(args).

    torch's FloorDiv prints itself as ``(x//8)`` and Identity as ``(x)`` under
    str(); this printer gives ``FloorDiv(x, 8)`` and ``Identity(x)`` for every
    class of ``torch.utils._sympy``.
    """

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if (
            type(expr).__module__.startswith("torch.utils._sympy")
            and isinstance(expr, sympy.Basic)
            and expr.args
        ):
            args = ", ".join(self._print(arg) for arg in expr.args)
            return f"{type(expr).__name__}({args})"
        return str(super()._print(expr, **kwargs))


_CALL_PRINTER = _CallPrinter()


def call_str(expr: sympy.Basic) -> str:
    return str(_CALL_PRINTER.doprint(expr))


@dataclasses.dataclass(frozen=True)
class Printed:
    """The printed forms of one expression (printing dominates hook cost)."""

    text: str  # str()
    fn: str  # call_str()
    srepr: str
    divmod_ops: int
    functions: tuple[str, ...]  # qualified names of the function classes used


# Expressions recur across cases and modes: print each once per process.
_PRINTED: dict[sympy.Basic, Printed] = {}


def printed(expr: sympy.Basic) -> Printed:
    out = _PRINTED.get(expr)
    if out is None:
        out = _PRINTED[expr] = Printed(
            str(expr), call_str(expr), sympy.srepr(expr), count_divmod(expr), functions_used(expr)
        )
    return out


def expr_json(expr: sympy.Expr) -> dict[str, JSONValue]:
    p = printed(expr)
    return {"expr": p.text, "expr_fn": p.fn, "srepr": p.srepr}


# --------------------------------------------------------------------------
# Recorder
# --------------------------------------------------------------------------


@dataclasses.dataclass
class Recorder:
    """Collects what the hooks see while one case compiles."""

    simplifications: list[dict[str, JSONValue]] = dataclasses.field(default_factory=list)
    accesses: list[dict[str, JSONValue]] = dataclasses.field(default_factory=list)
    tiling_matches: list[dict[str, JSONValue]] = dataclasses.field(default_factory=list)
    kernel_sources: list[str] = dataclasses.field(default_factory=list)
    access_stack: list[dict[str, JSONValue]] = dataclasses.field(default_factory=list)
    # Set while the harvester itself calls simplify_with_ranges.
    suppress: bool = False

    def reset(self) -> None:
        self.simplifications.clear()
        self.accesses.clear()
        self.tiling_matches.clear()
        self.kernel_sources.clear()
        self.access_stack.clear()
        self.suppress = False


RECORDER = Recorder()
# Pseudo-caller of the flattened access expressions (see _record_flattened).
FLATTENED_CALLER = "bench.corpus.hooks:flattened_access"
_installed = False


# --------------------------------------------------------------------------
# Hooks
# --------------------------------------------------------------------------


def _wrap_simplify_with_ranges(orig: Callable[..., sympy.Expr]) -> Callable[..., sympy.Expr]:
    @functools.wraps(orig)
    def simplify_with_ranges(self: Any, expr: sympy.Expr, var_ranges: Any) -> sympy.Expr:
        result = orig(self, expr, var_ranges)
        if not RECORDER.suppress:
            try:
                _record_simplification(self, expr, var_ranges, result, _caller())
            except Exception as exc:  # recording must never break compilation
                RECORDER.simplifications.append({"error": repr(exc)})
        return result

    return simplify_with_ranges


def _record_simplification(
    sizevars: Any,
    expr: sympy.Expr,
    var_ranges: Mapping[sympy.Symbol, sympy.Expr],
    result: sympy.Expr,
    caller: str,
) -> None:
    expr = sympy.sympify(expr)
    if not expr.free_symbols:
        return
    ranges, sizes, symbols = ranges_json(sizevars, expr, var_ranges)
    before, after = printed(expr), printed(sympy.sympify(result))
    RECORDER.simplifications.append(
        {
            "expr": before.text,
            "expr_fn": before.fn,
            "srepr": before.srepr,
            "var_ranges": ranges,
            "var_sizes": sizes,
            "symbols": symbols,
            "simplified": after.text,
            "simplified_fn": after.fn,
            "simplified_srepr": after.srepr,
            "divmod_ops": before.divmod_ops,
            "simplified_divmod_ops": after.divmod_ops,
            "functions": sorted(set(before.functions) | set(after.functions)),
            "caller": caller,
        }
    )


def _flatten_access(
    kernel: Any, index: sympy.Expr
) -> tuple[sympy.Expr, dict[sympy.Symbol, sympy.Expr]]:
    """The access index in terms of the range-tree roots (xindex, r0_index, ...).

    This is the expression Inductor's block matcher works on
    (``index_relative_to_xyr_index`` in ``TritonKernel.indexing``); the
    ModularIndexing / FloorDiv of the tiling live here, not in ``index``.
    """
    from torch._inductor.utils import sympy_subs

    flat = sympy_subs(index, {v: node.expr for v, node in kernel.range_tree_nodes.items()})
    roots = {tree.symbol(): tree.numel for tree in kernel.active_range_trees()}
    return flat, roots


def _record_flattened(kernel: Any, index: sympy.Expr, record: dict[str, JSONValue]) -> None:
    """Record the flattened access and Inductor's simplification of it."""
    from torch._inductor.virtualized import V

    sizevars = V.graph.sizevars
    flat, roots = _flatten_access(kernel, index)
    RECORDER.suppress = True
    try:
        simplified = sizevars.simplify_with_ranges(flat, roots)
    finally:
        RECORDER.suppress = False
    _record_simplification(sizevars, flat, roots, simplified, FLATTENED_CALLER)
    ranges, sizes, symbols = ranges_json(sizevars, flat, roots)
    record["flat"] = {
        **expr_json(flat),
        "var_ranges": ranges,
        "var_sizes": sizes,
        "symbols": symbols,
        "simplified": printed(simplified).text,
    }


def _range_trees_json(kernel: Any) -> list[dict[str, JSONValue]]:
    trees: list[dict[str, JSONValue]] = []
    for tree in kernel.active_range_trees():
        nodes = [
            {
                "symbol": str(sym),
                "expr": str(node.expr),
                "divisor": _size_json(node.divisor),
                "length": _size_json(node.length),
            }
            for sym, node in kernel.range_tree_nodes.items()
            if node.root is tree
        ]
        nodes.sort(key=lambda n: n["symbol"])
        trees.append(
            {
                "prefix": tree.prefix,
                "symbol": str(tree.symbol()),
                "numel": _size_json(tree.numel),
                "is_reduction": bool(tree.is_reduction),
                "nodes": nodes,
            }
        )
    return trees


def _exprs(values: Iterable[Any]) -> list[str]:
    return [str(v) for v in values]


def _decision_json(result: Any) -> dict[str, JSONValue]:
    from torch._inductor.codegen.triton import (
        BlockDescriptorOptions,
        BlockPtrOptions,
        TensorDescriptorOptions,
    )

    if isinstance(result, BlockDescriptorOptions):
        kind = (
            "block_ptr"
            if isinstance(result, BlockPtrOptions)
            else "tensor_descriptor"
            if isinstance(result, TensorDescriptorOptions)
            else type(result).__name__
        )
        out: dict[str, JSONValue] = {
            "kind": kind,
            "shape": _exprs(result.shape),
            "strides": _exprs(result.strides),
            "offsets": _exprs(result.offsets),
            "block_shape": _exprs(result.block_shape),
            "constant_offset": str(result.constant_offset),
            "order": [int(i) for i in result.order],
            "broadcast_shape": _exprs(result.broadcast_shape),
            "final_shape": _exprs(result.final_shape),
            "mask_vars": sorted(str(m) for m in result.mask_vars),
        }
        if result._boundary_check is not None:
            out["boundary_check"] = [int(i) for i in result._boundary_check]
        return out
    return {
        "kind": "index",
        "index": str(getattr(result, "index", "")),
        "index_str": getattr(result, "index_str", None),
        "mask_vars": sorted(str(m) for m in getattr(result, "mask_vars", ())),
    }


def _wrap_indexing(orig: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(orig)
    def indexing(self: Any, index: sympy.Expr, **kwargs: Any) -> Any:
        from torch._inductor.virtualized import V

        record: dict[str, JSONValue] | None = None
        try:
            index = sympy.sympify(index)
            ranges, sizes, symbols = ranges_json(V.graph.sizevars, index, self.var_ranges())
            checker = kwargs.get("tma_compatibility_checker")
            record = {
                **expr_json(index),
                "var_ranges": ranges,
                "var_sizes": sizes,
                "symbols": symbols,
                "range_trees": _range_trees_json(self),
                "access": (
                    "store"
                    if checker is not None and checker.for_store
                    else "load"
                    if checker is not None
                    else "other"
                ),
                "block_ptr_requested": bool(kwargs.get("block_ptr", False)),
                "tma_checker": checker is not None,
                "dtype": str(checker.dtype) if checker is not None else None,
                "index_dtype": self.index_dtype,
                "indirect": bool(self.is_indirect_indexing(index)),
                "load_mask": self._load_mask is not None,
                "matcher_calls": [],
                "tma_rejections": [],
            }
            _record_flattened(self, index, record)
            RECORDER.access_stack.append(record)
        except Exception as exc:
            RECORDER.accesses.append({"error": repr(exc)})
            record = None
        try:
            result = orig(self, index, **kwargs)
        finally:
            if record is not None:
                RECORDER.access_stack.pop()
        if record is not None:
            try:
                record["decision"] = _decision_json(result)
            except Exception as exc:
                record["decision"] = {"kind": "error", "error": repr(exc)}
            RECORDER.accesses.append(record)
        return result

    return indexing


def _matcher_sink() -> list[dict[str, JSONValue]]:
    if RECORDER.access_stack:
        calls: list[dict[str, JSONValue]] = RECORDER.access_stack[-1]["matcher_calls"]
        return calls
    return RECORDER.tiling_matches


def _affine_entry(index: sympy.Expr, index_var: sympy.Symbol, result: Any) -> dict[str, Any]:
    return {
        "matcher": "affine",
        "index": printed(index).text,
        "index_srepr": printed(index).srepr,
        "index_var": str(index_var),
        "result": None if result is None else {"stride": str(result)},
    }


def _mod_div_entry(
    index: sympy.Expr, index_var: sympy.Symbol, numel: sympy.Expr, num_dims: int, result: Any
) -> dict[str, Any]:
    entry: dict[str, JSONValue] = {
        "matcher": "mod_div",
        "index": printed(index).text,
        "index_srepr": printed(index).srepr,
        "index_var": str(index_var),
        "numel": str(numel),
        "num_dims": int(num_dims),
        "result": None,
    }
    if result is not None:
        dims, strides, block_index_exprs = result
        entry["result"] = {
            "dims": _exprs(dims),
            "strides": _exprs(strides),
            "block_index_exprs": _exprs(block_index_exprs),
        }
    return entry


def _wrap_affine(orig: Callable[..., Any]) -> classmethod[Any, Any, Any]:
    def match_affine_block_expr(cls: type, index: sympy.Expr, index_var: sympy.Symbol) -> Any:
        result = orig(index, index_var)
        with contextlib.suppress(Exception):  # recording must never break compilation
            _matcher_sink().append(_affine_entry(index, index_var, result))
        return result

    return classmethod(match_affine_block_expr)


def _wrap_mod_div(orig: Callable[..., Any]) -> classmethod[Any, Any, Any]:
    def match_mod_div_block_expr(
        cls: type,
        index: sympy.Expr,
        index_var: sympy.Symbol,
        numel: sympy.Expr,
        num_dims: int,
    ) -> Any:
        result = orig(index, index_var, numel, num_dims)
        with contextlib.suppress(Exception):
            _matcher_sink().append(_mod_div_entry(index, index_var, numel, num_dims, result))
        return result

    return classmethod(match_mod_div_block_expr)


def _make_hopper_checker(base: type) -> type:
    """A TMA checker that answers as a CUDA device with compute capability 9.0."""

    class EmulatedHopperTMAChecker(base):  # type: ignore[misc, valid-type]
        def can_use_tma(self) -> bool:
            import torch._inductor.codegen.triton as triton_codegen
            from torch._inductor import config

            if self.force:
                return True
            if not (config.triton.use_tensor_descriptor and config.assume_aligned_inputs):
                return False
            if self.for_store and self.kernel.no_x_dim:
                return False
            supported = getattr(triton_codegen, "_TMA_SUPPORTED_DTYPES", ())
            return self.dtype in supported

    return EmulatedHopperTMAChecker


def _patch(owner: Any, name: str, value: Any) -> None:
    setattr(owner, name, value)


def install() -> None:
    """Patch Inductor (idempotent)."""
    global _installed
    if _installed:
        return

    import torch._inductor.codegen.triton as triton_codegen
    import torch._inductor.graph as inductor_graph
    import torch._inductor.sizevars as sizevars
    import torch.utils._triton as utils_triton
    from torch._inductor.codegen.block_analysis import BlockPatternMatcher

    _patch(utils_triton, "triton_hash_with_backend", lambda: "INDEXALG-CORPUS")

    allocator = sizevars.SizeVarAllocator
    _patch(
        allocator,
        "_simplify_with_ranges",
        _wrap_simplify_with_ranges(allocator._simplify_with_ranges),
    )

    kernel_cls = triton_codegen.TritonKernel
    _patch(kernel_cls, "indexing", _wrap_indexing(kernel_cls.indexing))
    _patch(
        kernel_cls,
        "tma_compatibility_checker_cls",
        _make_hopper_checker(kernel_cls.tma_compatibility_checker_cls),
    )

    matcher = BlockPatternMatcher
    _patch(matcher, "match_affine_block_expr", _wrap_affine(matcher.match_affine_block_expr))
    _patch(matcher, "match_mod_div_block_expr", _wrap_mod_div(matcher.match_mod_div_block_expr))

    scheduling = triton_codegen.TritonScheduling
    orig_define: Callable[..., Any] = scheduling.define_kernel

    @functools.wraps(orig_define)
    def define_kernel(self: Any, src_code: str, node_schedule: Any, kernel: Any) -> Any:
        RECORDER.kernel_sources.append(src_code)
        return orig_define(self, src_code, node_schedule, kernel)

    _patch(scheduling, "define_kernel", define_kernel)

    def compile_to_module_lines(self: Any, wrapper_code: Any) -> Any:
        raise CodegenComplete()

    _patch(inductor_graph.GraphLowering, "_compile_to_module_lines", compile_to_module_lines)

    orig_aligned = getattr(inductor_graph, "should_assume_input_aligned")  # noqa: B009

    def should_assume_input_aligned(example_input: Any) -> bool:
        from torch._inductor import config

        if config.triton.use_tensor_descriptor and config.assume_aligned_inputs:
            return True
        return bool(orig_aligned(example_input))

    _patch(inductor_graph, "should_assume_input_aligned", should_assume_input_aligned)
    _installed = True


class _TMARejectionHandler(logging.Handler):
    """Attaches Inductor's 'Cannot use TMA descriptor' debug messages to the access."""

    def emit(self, record: logging.LogRecord) -> None:
        if not RECORDER.access_stack:
            return
        try:
            message = record.getMessage()
        except Exception:
            return
        if "Cannot use TMA descriptor" in message:
            reason = message.split("since:", 1)[-1].strip()
            RECORDER.access_stack[-1]["tma_rejections"].append(reason)


def install_tma_log_capture() -> None:
    """Route torch/_inductor/codegen/triton.py's debug log to the recorder only."""
    logger = logging.getLogger("torch._inductor.codegen.triton")
    if any(isinstance(h, _TMARejectionHandler) for h in logger.handlers):
        return
    logger.addHandler(_TMARejectionHandler(logging.DEBUG))
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
