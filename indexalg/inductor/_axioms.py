"""The ShapeEnv's axioms (the guards already taken) as facts for indexalg's prover.

``ShapeEnv._maybe_evaluate_static`` decides a claim *under the guards taken so far*: with
``axioms=None`` it substitutes ``self.axioms`` (``{Eq(Mod(s27, 4), 0): True,
Ne((s27//4), 1): True, ...}``) into the claim before its range analysis.  A dynamic compile
asks most of its claims about sizes that only these guards bound (pixel shuffle: ``s27 // (2 *
(s27 // 4)) >= 1`` needs ``4 | s27`` and ``s27 // 4 >= 2``), so indexalg reads the same facts:

* ``Eq(Mod(s, k), 0)`` (``s`` a size symbol, ``k > 1``): ``s`` is replaced by ``k*q`` with a
  fresh ``q`` (the least common multiple when there are several);
* a true comparison of an expression with a constant (``e <= c``, ``c < e``, ``Eq(e, c)``),
  after that substitution: a bound of ``e`` (a symbol's range, or an expression-keyed fact);
* ``Ne(e, c)`` where ``c`` is a bound of ``e``: that bound moved by one (repeated, so
  ``Ne(q, 0)``, ``Ne(q, 1)`` with ``q >= 0`` give ``q >= 2``);
* a bound of an expression of one symbol that is non-decreasing in it (sums, products by
  positive constants, floor and ceiling divisions by positive constants, Min, Max): that
  symbol's range, the exact preimage found by binary search on evaluated values
  (``(s87 - 3)//2 == 2`` with ``s87 >= 2`` gives ``7 <= s87 <= 8``, so ``s87 // 2 <= 3``).

Sound: every fact is a guard the compiled graph already checks, and the ShapeEnv assumes the
same facts for the same call.  Anything else in the axioms is left out (an assumption less).
Built once per state of the ShapeEnv (its version counter and the number of axioms).
"""

from __future__ import annotations

import contextlib
import math
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import indexalg as ia
from indexalg.evaluate import evaluate
from indexalg.expr import (
    Add,
    And,
    CeilDiv,
    CleanDiv,
    Eq,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Lt,
    Max,
    Min,
    Mod,
    Mul,
    Ne,
    Symbol,
    integer,
)

from . import _convert
from ._state import Fallback

__all__ = [
    "EMPTY",
    "AxiomFacts",
    "axiom_facts",
    "clear",
    "floor_for_clean",
    "meet",
    "non_decreasing",
    "preimage",
]

Bounds = tuple[int | None, int | None]


class AxiomFacts:
    """What the axioms say: ``subs`` (size symbol -> ``k*q``), ``ranges`` (symbol name ->
    inclusive bounds, the fresh quotients included) and ``facts`` (expression -> bounds)."""

    __slots__ = ("subs", "ranges", "facts")

    def __init__(
        self, subs: dict[Expr, Expr], ranges: dict[str, Bounds], facts: dict[Expr, Bounds]
    ) -> None:
        self.subs = subs
        self.ranges = ranges
        self.facts = facts

    def apply(self, e: Expr) -> Expr:
        return e.subs(self.subs) if self.subs and (e.symbol_set & self.subs.keys()) else e


EMPTY = AxiomFacts({}, {}, {})
#: shape environment (held weakly, never by id) -> (its state, the facts read from it)
_MEMO: weakref.WeakKeyDictionary[Any, tuple[tuple[Any, ...], AxiomFacts]] = (
    weakref.WeakKeyDictionary()
)


#: an axiom (a sympy claim) -> its indexalg form, or _UNREADABLE
_CONVERTED: dict[Any, Expr] = {}
_UNREADABLE = Symbol("_ia_unreadable_axiom")


def clear() -> None:
    _MEMO.clear()
    _FLOORED.clear()
    _CONVERTED.clear()


def axiom_facts(
    shape_env: Any,
    symbol_range: Callable[[Any, Any], Bounds],
    replace: Callable[[Expr], Expr],
) -> AxiomFacts:
    """The facts of ``shape_env.axioms`` (memoised per state of the ShapeEnv).

    ``symbol_range(shape_env, sympy_symbol)`` gives a size symbol's range; ``replace``
    applies the ShapeEnv's replacements to an indexalg expression."""
    axioms = getattr(shape_env, "axioms", None)
    if not axioms:
        return EMPTY
    key = (getattr(shape_env, "_version_counter", None), len(axioms))
    try:
        hit = _MEMO.get(shape_env)
    except TypeError:  # not weakly referenceable: read every time
        hit = None
    if hit is not None and hit[0] == key:
        return hit[1]
    claims: list[Expr] = []
    for claim, value in axioms.items():
        if not (value is True or (getattr(value, "is_Boolean", False) and bool(value))):
            continue
        # the conversion of an axiom is kept (a new guard bumps the version and the facts
        # are read again: without this each read converted every axiom again)
        read = _CONVERTED.get(claim)
        if read is None:
            try:
                read = _convert.to_ia(claim)
            except Fallback:
                read = _UNREADABLE
            if len(_CONVERTED) >= _convert.MEMO_LIMIT:
                _CONVERTED.clear()
            _CONVERTED[claim] = read
        if read is _UNREADABLE:
            continue
        try:
            c = floor_for_clean(replace(read))
        except Fallback:
            continue
        claims.extend(c.args if type(c) is And else (c,))  # each conjunct holds
    out = _build(claims, shape_env, symbol_range)
    if len(_MEMO) > 64:
        _MEMO.clear()
    with contextlib.suppress(TypeError):
        _MEMO[shape_env] = (key, out)
    return out


def _build(
    claims: list[Expr], shape_env: Any, symbol_range: Callable[[Any, Any], Bounds]
) -> AxiomFacts:
    divisors: dict[Expr, int] = {}
    for c in claims:
        found = _divisibility(c)
        if found is not None:
            s, k = found
            divisors[s] = math.lcm(divisors.get(s, 1), k)
    subs: dict[Expr, Expr] = {}
    ranges: dict[str, Bounds] = {}
    for s, k in sorted(divisors.items(), key=lambda kv: kv[0].payload):
        lo, hi = symbol_range(shape_env, _convert.symbol_for(s.payload))
        q = Symbol(f"_ia_q{k}_{s.payload}")
        subs[s] = integer(k) * q
        ranges[q.payload] = (
            None if lo is None else -((-lo) // k),
            None if hi is None else hi // k,
        )
    facts: dict[Expr, Bounds] = {}
    nes: list[tuple[Expr, int]] = []
    for c in claims:
        if _divisibility(c) is not None:
            continue
        if subs and (c.symbol_set & subs.keys()):
            c = ia.simplify(c.subs(subs))
        _read_comparison(c, facts, nes)
    out = AxiomFacts(subs, ranges, facts)
    if nes:
        _apply_ne(out, nes, shape_env, symbol_range)
    for e in [e for e in facts if type(e) is Symbol]:
        name = e.payload
        base = ranges.get(name)
        if base is None:
            base = symbol_range(shape_env, _convert.symbol_for(name))
        ranges[name] = meet(base, facts.pop(e))
    for fe, bounds in sorted(facts.items(), key=lambda kv: kv[0].key):
        syms = fe.symbol_set
        if len(syms) != 1:
            continue
        (one,) = syms
        sname: str = one.payload
        known = ranges.get(sname)
        if known is None:
            obj = _convert.symbol_for(sname)
            known = symbol_range(shape_env, obj) if obj is not None else (None, None)
        pre = preimage(fe, one, known, bounds)
        if pre is not None:
            ranges[sname] = meet(known, pre)
    return out


def floor_for_clean(e: Expr) -> Expr:
    """``e`` with every ``CleanDiv(a, b)`` written ``a // b``: the same value everywhere (a
    CleanDiv evaluates as the floor division; its producer only asserted the divisibility),
    so a guard on ``CleanDiv(2*s23, s23 // 4)`` (the form the ShapeEnv's axioms take once it
    knows the divisibility) bounds the ``2*s23 // (s23 // 4)`` of a claim.  Each node is
    rewritten once (a shared subterm is not walked again; memoised across calls)."""
    if not e.args:
        return e
    hit = _FLOORED.get(e)
    if hit is not None:
        return hit
    if len(_FLOORED) >= _convert.MEMO_LIMIT:
        _FLOORED.clear()
    memo = _FLOORED
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        node, ready = stack.pop()
        if node in memo:
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a.args and a not in memo)
            continue
        args = tuple(memo.get(a, a) for a in node.args)
        if type(node) is CleanDiv:
            memo[node] = FloorDiv.make(*args)
        elif all(a is b for a, b in zip(args, node.args)):
            memo[node] = node
        else:
            memo[node] = node.rebuild(args)
    return memo[e]


#: node -> the node with its CleanDivs written as floor divisions (:func:`floor_for_clean`)
_FLOORED: dict[Expr, Expr] = {}


def non_decreasing(e: Expr, sym: Expr) -> bool:
    """Whether ``e`` is non-decreasing in ``sym`` by its structure: ``sym``, constants, and
    sums, products by positive constants, floor and ceiling divisions by positive constants,
    Min and Max of such."""
    kind = type(e)
    if kind is Integer or e == sym:
        return True
    if kind is Symbol:
        return False  # another symbol: not a function of sym alone
    if kind is Add or kind is Min or kind is Max:
        return all(non_decreasing(a, sym) for a in e.args)
    if kind is Mul:  # coeff * factors: the coefficient is the payload, not an argument
        return e.payload > 0 and len(e.args) == 1 and non_decreasing(e.args[0], sym)
    if kind is FloorDiv or kind is CeilDiv:
        a, b = e.args
        return type(b) is Integer and b.payload > 0 and non_decreasing(a, sym)
    return False


#: The preimage search goes no further than this (sizes beyond it are left unbounded).
_SEARCH_LIMIT = 1 << 62


def preimage(e: Expr, sym: Expr, base: Bounds, bounds: Bounds) -> Bounds | None:
    """The values of ``sym`` in ``base`` where ``e`` (a function of ``sym`` alone) lies in
    ``bounds``, as an interval, when ``e`` is :func:`non_decreasing` in ``sym`` and ``base``
    has a lower end: the first value reaching ``bounds[0]`` and the last not passing
    ``bounds[1]``, each found by binary search (exact, since the values are evaluated and the
    function is monotone).  None when ``e`` is not monotone, the search leaves its limit or
    the preimage is empty (then the axioms contradict each other; nothing is concluded)."""
    lo_s, hi_s = base
    lo_e, hi_e = bounds
    if lo_s is None or not non_decreasing(e, sym):
        return None
    name = sym.payload  # type: ignore[attr-defined]

    def value(v: int) -> int:
        return int(evaluate(e, {name: v}))

    def first(pred: Callable[[int], bool]) -> int | None:
        """The least v >= lo_s (and <= hi_s) where the monotone ``pred`` holds."""
        assert lo_s is not None
        if pred(lo_s):
            return lo_s
        step = 1
        while True:  # find a value where pred holds (exponential steps)
            top = lo_s + step
            if hi_s is not None and top >= hi_s:
                top = hi_s
                if not pred(top):
                    return None
                break
            if top > _SEARCH_LIMIT:
                return None
            if pred(top):
                break
            step *= 2
        low = lo_s  # pred(low) is False, pred(top) is True
        while top - low > 1:
            mid = (low + top) // 2
            if pred(mid):
                top = mid
            else:
                low = mid
        return top

    new_lo, new_hi = lo_s, hi_s
    try:
        if lo_e is not None:
            v = first(lambda x: value(x) >= lo_e)
            if v is None:
                return None
            new_lo = v
        if hi_e is not None:
            v = first(lambda x: value(x) > hi_e)  # within base, so v - 1 < hi_s
            if v is not None:
                new_hi = v - 1
    except ia.IndexAlgError:
        return None
    if new_hi is not None and new_hi < new_lo:
        return None
    return (new_lo, new_hi)


def _divisibility(c: Expr) -> tuple[Expr, int] | None:
    """``Eq(Mod(s, k), 0)`` as ``(s, k)`` for a symbol ``s`` and an integer ``k > 1``."""
    if type(c) is not Eq:
        return None
    a, b = c.args
    if type(a) is Integer and type(b) is Mod:
        a, b = b, a
    if type(b) is not Integer or b.payload != 0 or type(a) is not Mod:
        return None
    s, k = a.args
    if type(s) is Symbol and type(k) is Integer and k.payload > 1:
        return s, int(k.payload)
    return None


def meet(a: Bounds, b: Bounds) -> Bounds:
    lo = a[0] if b[0] is None else b[0] if a[0] is None else max(a[0], b[0])
    hi = a[1] if b[1] is None else b[1] if a[1] is None else min(a[1], b[1])
    return (lo, hi)


def _read_comparison(c: Expr, facts: dict[Expr, Bounds], nes: list[tuple[Expr, int]]) -> None:
    kind = type(c)
    if kind not in (Lt, Le, Eq, Ne):
        return
    a, b = c.args
    if type(a) is Integer and type(b) is not Integer:
        e, k, const_left = b, int(a.payload), True
    elif type(b) is Integer and type(a) is not Integer:
        e, k, const_left = a, int(b.payload), False
    else:
        return
    if kind is Ne:
        nes.append((e, k))
        return
    if kind is Eq:
        new: Bounds = (k, k)
    elif kind is Le:
        new = (k, None) if const_left else (None, k)
    else:  # Lt
        new = (k + 1, None) if const_left else (None, k - 1)
    facts[e] = meet(facts.get(e, (None, None)), new)


def _apply_ne(
    out: AxiomFacts,
    nes: list[tuple[Expr, int]],
    shape_env: Any,
    symbol_range: Callable[[Any, Any], Bounds],
) -> None:
    """``Ne(e, c)`` with ``c`` at an end of ``e``'s bounds moves that end by one."""
    spec: dict[Any, Any] = {}
    for e, _ in nes:
        for s in e.symbol_set:
            if s.payload in out.ranges or s.payload in spec:
                continue
            obj = _convert.symbol_for(s.payload)
            spec[s.payload] = symbol_range(shape_env, obj) if obj is not None else (None, None)
    spec.update(out.ranges)
    ranges = ia.as_ranges(spec)
    pending = sorted(nes, key=lambda ek: (ek[0].key, ek[1]))
    for _ in range(4):
        changed = False
        for e, k in pending:
            known = out.facts.get(e)
            if known is None:
                known = _int_bounds(ia.bounds(e, ranges))
            lo, hi = known
            if lo == k:
                out.facts[e] = meet(known, (k + 1, None))
                changed = True
            elif hi == k:
                out.facts[e] = meet(known, (None, k - 1))
                changed = True
        if not changed:
            break


def _int_bounds(b: Mapping[int, Any] | tuple[Any, Any]) -> Bounds:
    lo, hi = b[0], b[1]
    return (
        lo if isinstance(lo, int) and not isinstance(lo, bool) else None,
        hi if isinstance(hi, int) and not isinstance(hi, bool) else None,
    )
