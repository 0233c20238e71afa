"""The Inductor entry points indexalg answers, each with its fallback to Inductor's code.

Every replacement has the signature of the function it replaces and the shape::

    try:
        return <indexalg's answer>
    except Fallback as f:        # indexalg cannot read it / cannot answer it soundly
        count f.reason;  return <Inductor's own function>(...)
    except Exception as exc:     # a bug in indexalg: never Inductor's failure
        count "error:<type>";  return <Inductor's own function>(...)

so the plug-in can make a call cheaper or its answer more precise, never fail it.

The entry points (:data:`ENTRY_POINTS`): ``SizeVarAllocator._simplify_with_ranges``,
``stride_at_vec_range``, ``ShapeEnv._maybe_evaluate_static`` (claims), and the size hints
``SizeVarAllocator.optimization_hint`` / ``guarding_hint_or_throw`` (answered only where the
value is provably Inductor's own: backed sizes, divisions on their non-negative domain).
"""

from __future__ import annotations

import itertools
import os
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import indexalg as ia
from indexalg.analysis import context_for, decide
from indexalg.analysis.refine import empty_domain
from indexalg.analysis.witness import points_disagree
from indexalg.expr import (
    Add,
    BoolConst,
    CeilDiv,
    CleanDiv,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    Symbol,
    integer,
)
from indexalg.ops import ceildiv, floordiv, mod
from indexalg.ranges import Ranges

from . import _axioms, _convert, _zones
from ._state import IN_STOCK, EntryStats, Fallback, clock, stats_for

__all__ = ["ENTRY_POINTS", "EntryPoint", "expression_keys_supported"]

#: Node kinds indexalg may put into an answer even where Inductor's input had none: they
#: print exactly in every Inductor printer (FloorDiv and PythonMod with floor semantics,
#: ModularIndexing only on a non-negative dividend, checked below).
_ALWAYS_PRINTABLE = frozenset({Integer, Symbol, Add, Mul, FloorDiv, Mod, ModularIndexing})


def _debug() -> bool:
    return os.environ.get("INDEXALG_INDUCTOR_DEBUG") == "1"


def _guarded(name: str, fast: Callable[..., Any], original: Callable[..., Any]) -> Any:
    """The replacement for ``original``: ``fast`` with the fallback protocol around it
    (and Inductor's own answer inside a stock zone, :mod:`._zones`)."""
    zoned = name in _zones.zoned_entries()
    depth = _zones.DEPTH
    in_stock = IN_STOCK

    def replacement(*args: Any, **kwargs: Any) -> Any:
        st = stats_for(name)
        st.calls += 1
        t0 = clock()
        try:
            if in_stock[0]:
                # Inductor's own code after a fallback asks its inner questions here: they
                # are answered by Inductor too, in the one semantics its code reasons in
                # (its range analysis reads ModularIndexing as printed, C's %; mixing it
                # with indexalg's floor-semantics answers drops terms)
                raise Fallback("inside_stock_fallback")
            if zoned and depth[0]:
                raise Fallback("stock_zone")
            out = fast(st, *args, **kwargs)
            st.answered += 1
            st.seconds += clock() - t0
            return out
        except Fallback as f:
            st.fallbacks[f.reason] += 1
        except Exception as exc:  # indexalg must never turn Inductor's success into failure
            if _debug():
                raise
            reason = f"error:{type(exc).__name__}"
            st.fallbacks[reason] += 1
            st.record_error(reason, exc)
        t1 = clock()
        in_stock[0] += 1
        try:
            return original(*args, **kwargs)
        finally:
            in_stock[0] -= 1
            t2 = clock()
            st.fallback_seconds += t2 - t1
            st.seconds += t2 - t0

    return _named(replacement, name, original)


def _named(replacement: Any, name: str, original: Callable[..., Any]) -> Any:
    replacement.__name__ = getattr(original, "__name__", name)
    replacement.__qualname__ = getattr(original, "__qualname__", name)
    replacement.__doc__ = (
        f"indexalg's {name} (falls back to Inductor's on anything it cannot answer)"
    )
    replacement.__wrapped_original__ = original  # type: ignore[attr-defined]
    for attr in ("cache_clear", "cache_info"):  # the ShapeEnv clears its lru caches
        if hasattr(original, attr):
            setattr(replacement, attr, getattr(original, attr))
    return replacement


_MISS = object()


def _versioned(name: str, guarded: Callable[..., Any], original: Callable[..., Any]) -> Any:
    """``guarded`` (a method of the ShapeEnv) behind a memo of its answers per ShapeEnv,
    emptied when the ShapeEnv's ``_version_counter`` moves: the contract of the
    ``@_lru_cache`` that Inductor's own method sits behind.  Without it every repeated
    call pays indexalg's conversion and decision again where Inductor's answers from its
    cache (issue 24: ``_maybe_evaluate_static`` 14 -> 22.5 s on mobilenet_v3_small).  A call
    nested in a fallback or a stock zone is not memoised: it is Inductor's to answer."""
    memos: weakref.WeakKeyDictionary[Any, tuple[int, dict[Any, Any]]]
    memos = weakref.WeakKeyDictionary()
    depth = _zones.DEPTH
    in_stock = IN_STOCK

    def replacement(self: Any, *args: Any, **kwargs: Any) -> Any:
        version = getattr(self, "_version_counter", None)
        if type(version) is not int or in_stock[0] or depth[0]:
            return guarded(self, *args, **kwargs)
        try:
            key = (args, tuple(sorted(kwargs.items())))
            entry = memos.get(self)
        except TypeError:  # an unhashable argument, or a ShapeEnv not weakly referenceable
            return guarded(self, *args, **kwargs)
        if entry is None or entry[0] != version:
            entry = memos[self] = (version, {})
        table = entry[1]
        hit = table.get(key, _MISS)
        if hit is not _MISS:
            st = stats_for(name)
            st.calls += 1
            st.notes["memo_hit"] += 1
            return hit
        out = guarded(self, *args, **kwargs)
        if len(table) < _convert.MEMO_LIMIT and getattr(self, "_version_counter", None) == version:
            table[key] = out
        return out

    named = _named(replacement, name, original)
    inner_clear = getattr(original, "cache_clear", None)

    def cache_clear() -> None:  # the ShapeEnv clears its caches on some state changes
        memos.clear()
        if inner_clear is not None:
            inner_clear()

    named.cache_clear = cache_clear
    return named


# =======================================================================================
# Ranges as Inductor gives them


def _expr_keys_probe() -> bool:
    """Whether ``ia.as_ranges`` takes a range keyed by an expression (``{x + 3*y: 15}``)."""
    try:
        ia.as_ranges({ia.parse("x + 3*y"): 15})
    except ia.IndexAlgError:
        return False
    return True


_EXPR_KEYS: list[bool] = []


def expression_keys_supported() -> bool:
    if not _EXPR_KEYS:
        _EXPR_KEYS.append(_expr_keys_probe())
    return _EXPR_KEYS[0]


def _int_bound(v: Any) -> int | None:
    """A finite sympy / int bound as int; infinities and anything else as None."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if getattr(v, "is_Integer", False):
        return int(v)
    return None


def _size_spec(size: Any, what: str) -> int | Expr:
    """Inductor's var_ranges size as an indexalg range spec (0 <= v < size)."""
    n = _int_bound(size)
    if n is not None:
        if n < 1:
            raise Fallback("empty_range")
        return n
    if getattr(size, "is_number", False):
        raise Fallback("unreadable_range")
    return _convert.to_ia(size)


def _symbol_range(shape_env: Any, sym: Any, default: tuple[int | None, int | None]) -> Any:
    """A size symbol's range from the shape environment (``default`` when it has none)."""
    var_to_range = getattr(shape_env, "var_to_range", None)
    vr = None if var_to_range is None else var_to_range.get(sym)
    if vr is None:
        return default
    if getattr(vr, "is_bool", False):
        raise Fallback("boolean_symbol")
    lo, hi = _int_bound(vr.lower), _int_bound(vr.upper)
    if lo is not None and hi is not None and lo > hi:
        raise Fallback("empty_range")
    return (lo, hi)


def _inductor_ranges(
    st: EntryStats, shape_env: Any, e: Expr, var_ranges: Mapping[Any, Any]
) -> dict[Any, Any]:
    """indexalg ranges for ``e`` under Inductor's ``var_ranges`` and shape environment.

    Iteration variables: ``0 <= v < size`` (the size an int or a symbolic Expr).  A key that
    is an expression (``x2 + 3*y1``) is the fact ``0 <= key < size``: passed on where
    ``ia.as_ranges`` takes expression keys, dropped otherwise (sound: an assumption less) and
    counted.  Any other symbol: the shape environment's range, or ``[0, inf)`` where it has
    none, which is what ``SizeVarAllocator._simplify_with_ranges`` itself assumes.
    """
    names = e.symbol_set
    spec: dict[Any, Any] = {}
    pending: list[Expr] = []
    for key, size in var_ranges.items():
        if getattr(key, "is_Symbol", False):
            k = _convert.to_ia(key)
            if k not in names:
                continue
            s = _size_spec(size, str(key))
            spec[k.payload] = s
            if isinstance(s, Expr):
                pending.append(s)
            continue
        kx = _convert.to_ia(key)
        if not kx.symbol_set <= names:
            continue
        if not kx.symbol_set:  # a key that converts to a constant: no fact about e's symbols
            st.dropped["constant_range_key"] += 1
            continue
        if not expression_keys_supported():
            st.dropped["expression_range_key"] += 1
            continue
        s = _size_spec(size, str(key))
        spec[kx] = s
        if isinstance(s, Expr):
            pending.append(s)
    others: set[Expr] = set(names)
    for p in pending:
        others |= p.symbol_set
    for sym in others:
        name = sym.payload
        if name in spec:
            continue
        obj = _convert.symbol_for(name)
        spec[name] = _symbol_range(shape_env, obj, (0, None))
    return spec


#: one stand-in symbol per size term for the process (numbered by a counter that a clear
#: does not reset, so that no two terms in one call share a name)
_STAND_INS: dict[Expr, Expr] = {}
_STAND_IN_COUNT = itertools.count()


class _SizeSpelling:
    """Inductor's spelling of the size terms of one call, kept through the simplifier.

    Inductor carries a size in the form the shape environment built it, often not the
    simplest (``((s53//4)**2) // (s53//4)``, which is ``s53//4``), and compares sizes and
    strides syntactically: ``_simplify_loops`` merges two loops only where one's stride times
    its size *is* the other's stride, so an index whose strides indexalg rewrote into the
    simplest form no longer matches the loop sizes, and the kernel keeps a ``//`` and a ``%``
    per merged loop (issue 24: convnext_tiny, dynamic, on the GPU: 53 -> 120 div/mod).  Each
    maximal loop-free subterm of the loop sizes that is not in the simplifier's form is
    therefore replaced,
    in the index and in the ranges alike, by a symbol bounded by the term's bounds; the
    answer is rewritten back.  Sound: the answer equals the index for every value of that
    symbol in its bounds, so for the term's own value too."""

    def __init__(self, loops: frozenset[str], spec: Mapping[Any, Any]) -> None:
        self.loops = loops
        self.sizes = ia.as_ranges(
            {k: v for k, v in spec.items() if isinstance(k, str) and k not in loops}
        )
        #: the terms Inductor carries in its loop sizes: only those keep their spelling (a
        #: term of the index alone is simplified: ``ModularIndexing(s, 1, 16)`` is ``s``
        #: where ``s <= 10``)
        self.carried = frozenset(
            node for v in spec.values() if isinstance(v, Expr) for node in v.walk()
        )
        #: the symbol standing for each term replaced, and its bounds
        self.back: dict[Expr, Expr] = {}
        self.bounds: dict[str, tuple[int | None, int | None]] = {}
        self._memo: dict[Expr, Expr] = {}

    def freeze(self, e: Expr) -> Expr:
        table: dict[Expr, Expr] = {}
        stack = [e]
        while stack:
            node = stack.pop()
            if node in table or not node.args or not node.symbol_set:
                continue
            if type(node) in (Add, Mul) or any(s.payload in self.loops for s in node.symbol_set):
                stack.extend(node.args)
                continue
            if node not in self.carried:
                continue
            stand_in = self._stand_in(node)
            if stand_in is not None:
                table[node] = stand_in
        return e.subs(table) if table else e

    def _stand_in(self, term: Expr) -> Expr | None:
        hit = self._memo.get(term)
        if hit is None:
            try:
                canonical = ia.simplify(term, self.sizes) is term
                lo, hi = ia.bounds(term, self.sizes)
            except ia.IndexAlgError:
                canonical, lo, hi = True, None, None
            if canonical:
                self._memo[term] = term
                return None
            name = _STAND_INS.get(term)
            if name is None:
                if len(_STAND_INS) >= _convert.MEMO_LIMIT:
                    _STAND_INS.clear()
                name = _STAND_INS[term] = Symbol(f"ia_size{next(_STAND_IN_COUNT)}")
            self.back[name] = term
            self.bounds[name.payload] = (
                lo if type(lo) is int else None,
                hi if type(hi) is int else None,
            )
            hit = self._memo[term] = name
        return None if hit is term else hit

    def ranges(self, spec: Mapping[Any, Any]) -> Ranges:
        """``spec`` with its size terms replaced, and the bounds of every stand-in."""
        out: dict[Any, Any] = {}
        for k, v in spec.items():
            out[self.freeze(k) if isinstance(k, Expr) else k] = (
                self.freeze(v) if isinstance(v, Expr) else v
            )
        out.update(self.bounds)
        return ia.as_ranges(out)

    def thaw(self, e: Expr) -> Expr:
        return e.subs(self.back) if self.back else e


def _apply_replacements(replacements: Mapping[Any, Any] | None, e: Expr) -> Expr:
    """``e`` with the shape environment's replacements (``s1 -> s0``) applied, as
    ``SizeVarAllocator.simplify`` does before simplifying."""
    if not replacements:
        return e
    for _ in range(8):
        table: dict[Expr, Expr] = {}
        for sym in e.symbol_set:
            obj = _convert.symbol_for(sym.payload)
            if obj is None:
                continue
            rep = replacements.get(obj)
            if rep is None or rep is obj or rep == obj:
                continue
            table[sym] = _convert.to_ia(rep)
        if not table:
            return e
        e = e.subs(table)
    raise Fallback("replacement_cycle")


def _check_printable(out: Expr, before: Expr, ranges: Any) -> frozenset[Expr]:
    """Refuse an answer Inductor's printers cannot print, and name the ModularIndexing
    nodes they would print wrongly.

    A node kind the input did not have (other than the always-printable ones) is refused.
    Inductor prints ``ModularIndexing(a, d, m)`` with truncating ``//`` and C's ``%`` (C++:
    ``div_floor_integer(a, d) % m``; Triton: ``(a // d) % m``), right only when ``a >= 0``,
    ``d >= 1`` and ``m >= 1``.  The nodes of ``out`` not proven so under ``ranges`` (the
    input's own included: stock often wraps them in a PythonMod that repairs the sign, an
    outer Mod indexalg drops as redundant) are returned, for :func:`_convert.to_torch` to
    build in the ``PythonMod(FloorDiv(a, d), m)`` form that prints right for every sign.
    """
    unsafe: list[Expr] = []
    before_kinds: set[type] | None = None
    for node in out.walk():
        kind = type(node)
        if kind is ModularIndexing:
            if not _prints_exactly(node, ranges):
                unsafe.append(node)
        elif kind not in _ALWAYS_PRINTABLE:
            if before_kinds is None:
                before_kinds = {type(b) for b in before.walk()}
            if kind not in before_kinds:
                raise Fallback("new_node_kind")
    return frozenset(unsafe)


def _prints_exactly(node: Expr, ranges: Any) -> bool:
    """``ModularIndexing(a, d, m)`` with ``a >= 0``, ``d >= 1``, ``m >= 1`` at every point."""
    a, d, m = node.args
    return all(decide(Le(integer(k), v), ranges)[0] is True for v, k in ((a, 0), (d, 1), (m, 1)))


# =======================================================================================
# SizeVarAllocator._simplify_with_ranges

_DIVMOD_KINDS = (FloorDiv, ModularIndexing, Mod)


def _divmod_weight(e: Expr, loops: frozenset[str]) -> tuple[int, int]:
    """(divisions of sizes alone outside Min/Max/Where, all divisions), each counted at every
    occurrence (as printed): the first is what Inductor prints in a kernel rather than
    lifting into a precomputed size argument."""
    memo: dict[Expr, tuple[int, int]] = {}
    lifted = (ia.Min, ia.Max, ia.Where)

    def go(node: Expr) -> tuple[int, int]:
        hit = memo.get(node)
        if hit is not None:
            return hit
        parts = [go(a) for a in node.args]
        bare = sum(p[0] for p in parts)
        total = sum(p[1] for p in parts)
        if isinstance(node, _DIVMOD_KINDS):
            total += 1
            if not any(s.payload in loops for s in node.symbol_set):
                bare += 1
        if isinstance(node, lifted):
            bare = 0
        memo[node] = (bare, total)
        return bare, total

    bare, total = go(e)
    return bare, total


#: per shape environment (held weakly: a new ShapeEnv at a freed one's address must not
#: find its ranges), (var_ranges, symbols) -> [its _SizeSpelling, the range spec, the
#: Ranges with the stand-ins bounded, how many stand-ins those bound]
_RANGES: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], list[Any]]]
_RANGES = weakref.WeakKeyDictionary()
_RANGES_NO_ENV: dict[tuple[Any, ...], list[Any]] = {}


def _ranges_memo(shape_env: Any) -> dict[tuple[Any, ...], list[Any]] | None:
    """The ranges memo of one shape environment (None when it cannot be held weakly)."""
    if shape_env is None:
        return _RANGES_NO_ENV
    try:
        memo = _RANGES.get(shape_env)
        if memo is None:
            memo = _RANGES[shape_env] = {}
    except TypeError:  # not weakly referenceable, or unhashable
        return None
    return memo


def _fast_simplify_with_ranges(st: EntryStats, self: Any, expr: Any, var_ranges: Any) -> Any:
    t0 = clock()
    e0 = _convert.to_ia(expr)
    e = _apply_replacements(getattr(self, "replacements", None), e0)
    shape_env = getattr(self, "shape_env", None)
    loops = frozenset(k.payload for k in map(_convert.to_ia, var_ranges) if type(k) is Symbol)
    # the ranges of one loop nest serve all its indices; a size symbol's range read from
    # the shape environment once is at worst wider than its current one (ranges narrow)
    memo = _ranges_memo(shape_env)
    key = (tuple(var_ranges.items()), e.symbol_set)
    hit = None if memo is None else memo.get(key)
    if hit is None:
        spec = _inductor_ranges(st, shape_env, e, var_ranges)
        spelling = _SizeSpelling(loops, spec)
        hit = [spelling, spec, spelling.ranges(spec), len(spelling.bounds)]
        if memo is not None:
            if len(memo) >= _convert.MEMO_LIMIT:
                memo.clear()
            memo[key] = hit
    spelling = hit[0]
    frozen = spelling.freeze(e)
    if len(spelling.bounds) != hit[3]:  # a stand-in the ranges lack: bound it there too
        hit[2], hit[3] = spelling.ranges(hit[1]), len(spelling.bounds)
    ranges = hit[2]
    st.convert_seconds += clock() - t0
    try:
        out = spelling.thaw(ia.simplify(frozen, ranges))
    except ia.RangeError:
        # a loop of no iterations at every point of the shape environment's ranges (a size
        # ``(s53 - 1)//32`` where s53 <= 32): any answer holds there; Inductor's is kept
        raise Fallback("empty_range") from None
    # Inductor's own answer is never the input as given but SizeVarAllocator.simplify's
    # expanded form of it (s0*(2*q1 + 1) -> 2*q1*s0 + s0), which its stride and tiling
    # analyses read: indexalg's node is that form, so it is built even when unchanged
    unsafe = _check_printable(out, e0, ranges)
    if out is e0 and not unsafe and _convert.is_faithful(expr):
        return expr
    if _divmod_weight(out, loops) > _divmod_weight(e0, loops):
        # indexalg's canonical form can drop a Max(1, size) and distribute the size over a
        # sum (s*(a + b) -> a*s + b*s): Inductor lifts a size under Max into one kernel
        # argument, but prints a bare size division in the kernel, at every occurrence
        raise Fallback("more_divmod_printed")
    if unsafe:
        st.notes["modular_indexing_as_python_mod"] += 1
    t1 = clock()
    result = _convert.to_torch(out, unsafe)
    st.convert_seconds += clock() - t1
    return result


# =======================================================================================
# stride_at_vec_range (CPU vectorisation): the lane-to-lane stride of an index


def _divisible_by(d: Expr, n: int) -> bool:
    """``n`` divides ``d`` for every value of its symbols (literal or literal coefficient)."""
    if type(d) is Integer:
        return bool(d.payload % n == 0)
    if type(d) is Mul:
        return bool(d.payload % n == 0)
    return n == 1


class _Freezer:
    """Stock's reading of a vector of ``vec_length`` lanes starting at a multiple of it:
    ``v // d`` and ``ModularIndexing(v, d, m)`` with ``vec_length | d`` are the same on every
    lane (a fresh symbol); ``ModularIndexing(v, 1, m)`` with ``vec_length | m`` is ``v`` plus
    one (fresh).  Only nodes whose dividend is ``v`` itself, as in Inductor."""

    def __init__(self, var: Expr, vec_length: int) -> None:
        self.var = var
        self.n = vec_length
        self.fresh: list[Expr] = []

    def new(self) -> Expr:
        s = Symbol(f"_ia_lane_c{len(self.fresh)}")
        self.fresh.append(s)
        return s

    def freeze(self, e: Expr) -> Expr:
        memo: dict[Expr, Expr] = {}
        v, n = self.var, self.n

        def go(node: Expr) -> Expr:
            if not node.args or v not in node.symbol_set:
                return node
            done = memo.get(node)
            if done is not None:
                return done
            kind = type(node)
            out: Expr | None = None
            if kind is FloorDiv and node.args[0] is v and _divisible_by(node.args[1], n):
                out = self.new()
            elif kind is ModularIndexing and node.args[0] is v:
                _, d, m = node.args
                if _divisible_by(d, n):
                    out = self.new()
                elif d is integer(1) and _divisible_by(m, n):
                    out = v + self.new()
            if out is None:
                out = node.rebuild(tuple(go(a) for a in node.args))
            memo[node] = out
            return out

        return go(e)


def _assumption_range(obj: Any) -> tuple[int | None, int | None]:
    if obj is not None and getattr(obj, "is_positive", None):
        return (1, None)
    if obj is not None and getattr(obj, "is_nonnegative", None):
        return (0, None)
    return (None, None)


_STRIDES: dict[tuple[Any, ...], Any] = {}
_NO_ANSWER = object()


def _fast_stride_at_vec_range(
    st: EntryStats, index: Any, var: Any, vec_length: int | None = None
) -> Any:
    key = (index, var, vec_length)
    hit = _STRIDES.get(key)
    if hit is not None:
        if hit is _NO_ANSWER:
            raise Fallback("stride_not_uniform")
        return hit
    try:
        out = _stride(st, index, var, vec_length)
    except Fallback as f:
        if f.reason == "stride_not_uniform":
            _STRIDES[key] = _NO_ANSWER
        raise
    if len(_STRIDES) >= _convert.MEMO_LIMIT:
        _STRIDES.clear()
    _STRIDES[key] = out
    return out


def _stride(st: EntryStats, index: Any, var: Any, vec_length: int | None) -> Any:
    t0 = clock()
    e = _convert.to_ia(index)
    v = _convert.to_ia(var)
    st.convert_seconds += clock() - t0
    if type(v) is not Symbol:
        raise Fallback("not_a_symbol")
    if v not in e.symbol_set:
        return _zero()
    ranges: dict[str, Any] = {}
    for sym in e.symbol_set:
        ranges[sym.payload] = _assumption_range(_convert.symbol_for(sym.payload))
    g = e
    fz: _Freezer | None = None
    if vec_length:
        fz = _Freezer(v, int(vec_length))
        for _ in range(4):
            frozen = fz.freeze(g)
            if frozen is g:
                break
            g = ia.simplify(frozen, ranges)
    diff = ia.simplify(g.subs({v: v + 1}) - g, ranges)
    syms = diff.symbol_set
    if fz is not None and any(f in syms for f in fz.fresh):
        # Inductor's own answer has its fresh symbols here; ours are not its names
        raise Fallback("stride_not_uniform")
    if v in syms:
        # The stride changes from lane to lane: Inductor's answer is then also an expression
        # in the variable (not a number, not 0 or 1, has(var)); this one is its exact value.
        st.notes["stride_varies_across_lanes"] += 1
    unsafe = _check_printable(diff, e, ranges)
    t1 = clock()
    out = _convert.to_torch(diff, unsafe)
    st.convert_seconds += clock() - t1
    return out


def _zero() -> Any:
    import sympy

    return sympy.S.Zero


# =======================================================================================
# ShapeEnv._maybe_evaluate_static on claims: decided by indexalg's analysis where it can


def _env_symbol_range(shape_env: Any, obj: Any) -> tuple[int | None, int | None]:
    if obj is None:
        return (None, None)
    try:
        lo, hi = _symbol_range(shape_env, obj, _assumption_range(obj))
    except Fallback:
        return (None, None)
    return (lo, hi)


def _is_claim(expr: Any) -> bool:
    return bool(getattr(expr, "is_Relational", False) or getattr(expr, "is_Boolean", False))


_CLAIMS: dict[tuple[Any, ...], Any] = {}


def _decide_claim(c: Expr, ranges: Ranges) -> bool | None:
    """True / False when the interval and congruence analyses or the simplifier decide ``c``
    at every point of a non-empty domain: the prover's cheap tiers, without Z3 (the
    ShapeEnv is asked far too often for an SMT call each, and ``ia.prove`` confirms a
    refutation with a counterexample, from Z3 when no candidate point has one)."""
    verdict: bool | None
    if type(c) is BoolConst:
        verdict = bool(c.payload)
    else:
        verdict, _ = decide(c, ranges)
        if verdict is None and points_disagree(c, context_for(ranges)):
            return None  # true at one point of the ranges, false at another: undecidable
        if verdict is None:
            try:
                s = ia.simplify(c, ranges)
            except ia.RewriteLimitError:
                s = c
            verdict = bool(s.payload) if type(s) is BoolConst else None
    if verdict is None or empty_domain(c, context_for(ranges)) is not None:
        return None
    return verdict


def _fast_maybe_evaluate_static(
    st: EntryStats,
    self: Any,
    expr: Any,
    *,
    unbacked_only: bool = False,
    compute_hint: bool = False,
    size_oblivious: bool = False,
    axioms: Any = None,
    var_to_range: Any = None,
) -> Any:
    """A claim (``s0*s1 >= 2``, ``Eq(ModularIndexing(x, 1, s0), x)``) proven or refuted for
    every value of its symbols in their ranges is True or False whatever the flags ask for:
    size-oblivious reasoning narrows the ranges, axioms add hypotheses, and both only keep a
    claim proven.  Anything else (a value, a hint, an undecided claim) goes to the ShapeEnv."""
    if compute_hint or not _is_claim(expr) or expr.is_Atom:
        raise Fallback("not_a_claim")
    t0 = clock()
    c = _convert.to_ia(expr)
    replacements = getattr(self, "replacements", None)
    c = _axioms.floor_for_clean(_apply_replacements(replacements, c))
    st.convert_seconds += clock() - t0
    facts = (
        _axioms.axiom_facts(self, _env_symbol_range, lambda e: _apply_replacements(replacements, e))
        if axioms is None
        else _axioms.EMPTY
    )
    c = facts.apply(c)
    table = dict(var_to_range) if var_to_range is not None else None
    spec: dict[Any, Any] = {}
    for sym in c.symbol_set:
        name = sym.payload
        obj = _convert.symbol_for(name)
        if table is not None and obj in table:
            vr = table[obj]
            base = (_int_bound(vr.lower), _int_bound(vr.upper))
        elif obj is None:
            base = (None, None)  # a fresh quotient of the axioms: its range is below
        else:
            base = _symbol_range(self, obj, _assumption_range(obj))
        known = facts.ranges.get(name)
        spec[name] = base if known is None else _axioms.meet(base, known)
    names = c.symbol_set
    used = [(k, v) for k, v in facts.facts.items() if k.symbol_set <= names]
    key = (c, tuple(sorted(spec.items())), frozenset(used))
    hit = _CLAIMS.get(key, _NO_ANSWER)
    if hit is _NO_ANSWER:
        for k, v in used:
            spec[k] = v
        # None is remembered too: the ShapeEnv asks the same claim many times
        hit = _decide_claim(c, ia.as_ranges(spec))
        if len(_CLAIMS) >= _convert.MEMO_LIMIT:
            _CLAIMS.clear()
        _CLAIMS[key] = hit
    if hit is None:
        raise Fallback("undecided")
    import sympy

    return sympy.true if hit else sympy.false


# =======================================================================================
# Size hints: SizeVarAllocator.optimization_hint / guarding_hint_or_throw on backed sizes


def _hint_division(t: type[Expr], a: int, d: int) -> int:
    if t is FloorDiv or t is CleanDiv:
        return floordiv(a, d)
    if t is Mod:
        return mod(a, d)
    return ceildiv(a, d)


_HINT_DIVISIONS = (FloorDiv, CleanDiv, Mod, CeilDiv)


def _hint_value(e: Expr, point: Mapping[str, int], memo: dict[Expr, int]) -> int:
    """The value of ``e`` at ``point``, on the nodes whose value there Inductor's sympy
    computes exactly whatever order it substitutes and folds in.  Every division's dividend
    must be >= 0 and its divisor (and modulus) >= 1 at the point: torch's own folding of
    ``FloorDiv`` / ``ModularIndexing`` / ``Mod`` is exact on that domain only (it folds
    ``FloorDiv(FloorDiv(n, 2), -3)`` to ``n // -6``; its ``Mod`` asserts a non-negative
    dividend), and a zero divisor is Inductor's error to raise.  Anything else (a ``Where``,
    whose other branch sympy would still build, a comparison) falls back."""
    t = type(e)
    if t is Symbol:
        return point[e.payload]
    if t is Integer:
        v: int = e.payload
        return v
    got = memo.get(e)
    if got is not None:
        return got
    if t is Add:
        v = e.payload
        for arg in e.args:
            v += _hint_value(arg, point, memo)
    elif t is Mul:
        v = e.payload
        for arg in e.args:
            v *= _hint_value(arg, point, memo)
    elif t in _HINT_DIVISIONS:
        x, y = e.args
        n, d = _hint_value(x, point, memo), _hint_value(y, point, memo)
        if n < 0 or d < 1:
            raise Fallback("division_outside_nonnegative")
        v = _hint_division(t, n, d)
    elif t is ModularIndexing:
        x, y, z = e.args
        n, d, m = (_hint_value(w, point, memo) for w in (x, y, z))
        if n < 0 or d < 1 or m < 1:
            raise Fallback("division_outside_nonnegative")
        v = (n // d) % m
    elif t is Min or t is Max:
        vals = [_hint_value(arg, point, memo) for arg in e.args]
        v = min(vals) if t is Min else max(vals)
    else:
        raise Fallback("hint_unsupported_node")
    memo[e] = v
    return v


def _backed_hint(shape_env: Any, obj: Any) -> int:
    """A size symbol's hint (``backed_var_to_val``): an int, else :class:`Fallback` (an
    unbacked or unknown symbol goes to Inductor's heuristics or its error)."""
    table = getattr(shape_env, "backed_var_to_val", None)
    if table is None:
        raise Fallback("no_hint_table")
    v = table.get(obj)
    if v is None:
        raise Fallback("no_backed_hint")
    n = _int_bound(v)
    if n is None or type(v) is bool:
        raise Fallback("no_backed_hint")
    return n


def _fast_hint(st: EntryStats, shape_env: Any, expr: Any) -> int:
    """The integer value of ``expr`` at the shape environment's hint point, as Inductor's
    ``_size_hinting`` computes it for an expression over backed size symbols: each symbol
    replaced once by its ShapeEnv replacement (one simultaneous ``xreplace``, as Inductor's),
    every symbol left then valued by its hint, and the whole evaluated exactly.  A Python
    int or anything indexalg cannot read, a claim, a symbol without a backed hint (unbacked,
    precomputed, loop index), a node outside :func:`_hint_value`'s domain: Inductor's own."""
    if type(expr) is int:  # Inductor's answer for a Python int: int(sympify(expr)), itself
        return expr
    t0 = clock()
    e = _convert.to_ia(expr)
    st.convert_seconds += clock() - t0
    if e.is_bool:
        raise Fallback("not_an_integer")
    if not e.symbol_set:
        return _hint_value(e, {}, {})
    replacements = getattr(shape_env, "replacements", None) or {}
    point: dict[str, int] = {}
    for sym in e.symbol_set:
        name = sym.payload
        obj = _convert.symbol_for(name)
        if obj is None:
            raise Fallback("unknown_symbol")
        rep = replacements.get(obj)
        if rep is None:
            point[name] = _backed_hint(shape_env, obj)
            continue
        r = _convert.to_ia(rep)
        if r.is_bool:
            raise Fallback("not_an_integer")
        inner = {
            s.payload: _backed_hint(shape_env, _convert.symbol_for(s.payload)) for s in r.symbol_set
        }
        point[name] = _hint_value(r, inner, {})
    return _hint_value(e, point, {})


def _fast_optimization_hint(
    st: EntryStats, self: Any, expr: Any, fallback: int | None = None
) -> int:
    """``SizeVarAllocator.optimization_hint``: on backed sizes, the value at the hint point
    (``fallback`` only ever serves unbacked symbols, which go to Inductor)."""
    return _fast_hint(st, self.shape_env, expr)


def _fast_guarding_hint_or_throw(st: EntryStats, self: Any, expr: Any) -> int:
    """``SizeVarAllocator.guarding_hint_or_throw``: the value at the hint point on backed
    sizes; an unbacked symbol goes to Inductor, which raises its data-dependent error."""
    return _fast_hint(st, self.shape_env, expr)


# =======================================================================================
# The table


class EntryPoint:
    """One patchable Inductor function: where it lives and what replaces it.

    ``owner`` is a module name and ``attr`` a dotted path inside it (``Class.method`` or a
    function).  A module-level function is also replaced in every already-imported
    ``torch._inductor`` module that imported it by name (``from ..sizevars import f``).
    """

    def __init__(
        self,
        name: str,
        owner: str,
        attr: str,
        fast: Callable[..., Any],
        *,
        by_name: bool,
        versioned: bool = False,
        calls: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        #: names Inductor's function must call for this replacement to be its equal (the
        #: implementation it was checked against); a torch whose function does not is
        #: reported missing, not patched
        self.calls = calls
        #: memoised per ShapeEnv and its version counter, as Inductor's ``@_lru_cache``
        self.versioned = versioned
        self.owner = owner
        self.attr = attr
        self.fast = fast
        self.by_name = by_name
        #: (object patched, attribute, original value) for uninstall
        self.patched: list[tuple[Any, str, Any]] = []
        self.replacement: Any = None
        self.original: Any = None

    def resolve(self) -> tuple[Any, str, Any] | None:
        """(object holding it, attribute name, current value), or None if this torch lacks it."""
        found = _zones.locate(self.owner, self.attr)
        if found is None:
            return None
        obj, last = found
        value = getattr(obj, last, None)
        if value is None:
            return None
        if self.calls:
            code = getattr(getattr(value, "__wrapped_original__", value), "__code__", None)
            if code is None or not set(self.calls) <= set(code.co_names):
                return None
        return obj, last, value

    def install(self) -> bool:
        if self.patched:
            return True
        found = self.resolve()
        if found is None:
            return False
        holder, last, original = found
        replacement = _guarded(self.name, self.fast, original)
        if self.versioned:
            replacement = _versioned(self.name, replacement, original)
        targets: list[tuple[Any, str]] = [(holder, last)]
        if self.by_name:
            import sys

            for mod_name, mod in sorted(sys.modules.items(), key=lambda kv: kv[0]):
                if mod is holder or not mod_name.startswith("torch._inductor"):
                    continue
                if getattr(mod, last, None) is original:
                    targets.append((mod, last))
        for obj, attr in targets:
            self.patched.append((obj, attr, getattr(obj, attr)))
            setattr(obj, attr, replacement)
        self.replacement, self.original = replacement, original
        return True

    def uninstall(self) -> None:
        for obj, attr, original in reversed(self.patched):
            if getattr(obj, attr, None) is self.replacement:
                setattr(obj, attr, original)
        if self.by_name and self.replacement is not None:
            # modules imported while installed took the replacement by name
            import sys

            last = self.attr.rsplit(".", 1)[-1]
            for mod_name, mod in sorted(sys.modules.items(), key=lambda kv: kv[0]):
                if mod_name.startswith("torch._inductor") and (
                    getattr(mod, last, None) is self.replacement
                ):
                    setattr(mod, last, self.original)
        self.patched.clear()
        self.replacement = self.original = None

    def where(self) -> list[str]:
        return [f"{getattr(o, '__name__', type(o).__name__)}.{a}" for o, a, _ in self.patched]


ENTRY_POINTS: tuple[EntryPoint, ...] = (
    EntryPoint(
        "simplify_with_ranges",
        "torch._inductor.sizevars",
        "SizeVarAllocator._simplify_with_ranges",
        _fast_simplify_with_ranges,
        by_name=False,
    ),
    EntryPoint(
        "stride_at_vec_range",
        "torch._inductor.sizevars",
        "stride_at_vec_range",
        _fast_stride_at_vec_range,
        by_name=True,
    ),
    EntryPoint(
        "maybe_evaluate_static",
        "torch.fx.experimental.symbolic_shapes",
        "ShapeEnv._maybe_evaluate_static",
        _fast_maybe_evaluate_static,
        by_name=False,
        versioned=True,
    ),
    EntryPoint(
        "optimization_hint",
        "torch._inductor.sizevars",
        "SizeVarAllocator.optimization_hint",
        _fast_optimization_hint,
        by_name=False,
        calls=("_optimization_hint_base",),
    ),
    EntryPoint(
        "guarding_hint_or_throw",
        "torch._inductor.sizevars",
        "SizeVarAllocator.guarding_hint_or_throw",
        _fast_guarding_hint_or_throw,
        by_name=False,
        calls=("_guarding_hint_or_throw_base",),
    ),
)


def clear_memos() -> None:
    _axioms.clear()
    _RANGES.clear()
    _STAND_INS.clear()
    _RANGES_NO_ENV.clear()
    _STRIDES.clear()
    _CLAIMS.clear()
    _convert.clear()


def names(entries: Iterable[EntryPoint]) -> list[str]:
    return [e.name for e in entries]
