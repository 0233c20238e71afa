"""Exhaustive evaluation on small domains: the exact oracle for the analyses.

On a domain small enough to enumerate, the exact range of an expression is known, so an
analysis can be checked for soundness (every value inside its bounds) and for tightness
(how far its bounds are from the exact ones).  This module provides:

* :func:`compile_expr`: an expression as a Python function of its symbols' values, with
  the semantics of docs/semantics.md (floor division, Python ``%``, exact ``CeilDiv`` for any sign,
  ``ModularIndexing(a, d, m) = (a // d) % m`` defined for ``d, m >= 1``).  It is a second,
  independent implementation of :data:`indexalg.evaluate.EVAL_TABLE` (one entry per node
  class, :data:`SOURCE_TABLE`), about 20 times faster than :func:`indexalg.evaluate`, so
  that millions of points can be checked (an op with no entry, a new one, is evaluated by
  :func:`indexalg.evaluate`); a point where the expression has no value raises
  :class:`Undefined`;
* :func:`domain_points`: every point of small ranges, or of a window of them (an open side
  or an unranged symbol enumerated over a few values around 0);
* :func:`exact_range`, :func:`looseness`: the exact bounds over points, and how a computed
  bound compares with them (:data:`LOOSENESS`).

Only the standard library and indexalg's core are imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Union

from indexalg.errors import IndexAlgError
from indexalg.evaluate import evaluate
from indexalg.expr import (
    Add,
    And,
    BoolConst,
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
    ModularIndexing,
    Mul,
    Ne,
    Not,
    Or,
    Symbol,
    Where,
)
from indexalg.ranges import Ranges, RangesLike, as_ranges
from indexalg.testing.oracles import resolution_order

__all__ = [
    "LOOSENESS",
    "SOURCE_TABLE",
    "Undefined",
    "bounds_looseness",
    "check_exact_bounds",
    "compile_expr",
    "domain_points",
    "exact_range",
    "finite_domain",
    "looseness",
]

Value = Union[int, bool]
Point = dict[str, int]


class Undefined(ArithmeticError):
    """The expression has no value at this point (a zero divisor, a ModularIndexing divisor
    or modulus below 1)."""


def _modular_indexing(a: int, d: int, m: int) -> int:
    if d < 1 or m < 1:
        raise Undefined(f"ModularIndexing({a}, {d}, {m})")
    return (a // d) % m


def _join(op: str, parts: Sequence[str]) -> str:
    return "(" + f" {op} ".join(parts) + ")"


_Source = Callable[[Expr, list[str]], str]

#: How each node class is written in Python, given its children's source text.
SOURCE_TABLE: dict[type[Expr], _Source] = {
    Integer: lambda e, a: f"({e.payload})",
    Add: lambda e, a: _join("+", [*a, str(e.payload)]),
    Mul: lambda e, a: _join("*", [f"({e.payload})", *a]),
    FloorDiv: lambda e, a: f"({a[0]} // {a[1]})",
    CleanDiv: lambda e, a: f"({a[0]} // {a[1]})",
    Mod: lambda e, a: f"({a[0]} % {a[1]})",
    CeilDiv: lambda e, a: f"(-((-{a[0]}) // {a[1]}))",
    ModularIndexing: lambda e, a: f"_mi({a[0]}, {a[1]}, {a[2]})",
    Min: lambda e, a: f"min({', '.join(a)})",
    Max: lambda e, a: f"max({', '.join(a)})",
    Where: lambda e, a: f"({a[1]} if {a[0]} else {a[2]})",
    BoolConst: lambda e, a: "True" if e.payload else "False",
    Lt: lambda e, a: f"({a[0]} < {a[1]})",
    Le: lambda e, a: f"({a[0]} <= {a[1]})",
    Eq: lambda e, a: f"({a[0]} == {a[1]})",
    Ne: lambda e, a: f"({a[0]} != {a[1]})",
    And: lambda e, a: "bool" + _join("and", a),
    Or: lambda e, a: "bool" + _join("or", a),
    Not: lambda e, a: f"(not {a[0]})",
}


class _NoSource(Exception):
    """An op that :data:`SOURCE_TABLE` does not write (compile_expr evaluates it instead)."""


_MAX_TREE = 4000  # nodes of the printed tree (shared subterms count each time)
_MAX_DEPTH = 60  # Python's parser limits nesting


def _tree_shape(e: Expr) -> tuple[int, int]:
    """(size, depth) of ``e`` as a tree, memoised on the DAG."""
    memo: dict[Expr, tuple[int, int]] = {}

    def go(n: Expr) -> tuple[int, int]:
        hit = memo.get(n)
        if hit is None:
            kids = [go(a) for a in n.args]
            hit = (1 + sum(k[0] for k in kids), 1 + max((k[1] for k in kids), default=0))
            memo[n] = hit
        return hit

    return go(e)


def compile_expr(e: Expr, names: Sequence[str]) -> Callable[..., Value]:
    """``f(*values)``: the value of ``e`` with ``names[i]`` bound to ``values[i]``.

    Raises :class:`Undefined` where ``e`` has no value (and ``KeyError``-free: a symbol of
    ``e`` missing from ``names`` is an error here, at compile time).  Falls back to
    :func:`indexalg.evaluate` for expressions too large or deep to print as one Python
    expression.
    """
    missing = [s.payload for s in e.free_symbols if s.payload not in names]
    if missing:
        raise ValueError(f"compile_expr: no value for {', '.join(missing)}")
    size, depth = _tree_shape(e)
    if size > _MAX_TREE or depth > _MAX_DEPTH:
        return _evaluator(e, names)
    index = {n: i for i, n in enumerate(names)}

    def src(n: Expr) -> str:
        if type(n) is Symbol:
            return f"v{index[n.payload]}"
        source = SOURCE_TABLE.get(type(n))
        if source is None:
            raise _NoSource(type(n).__name__)
        return source(n, [src(a) for a in n.args])

    params = ", ".join(f"v{i}" for i in range(len(names)))
    try:
        code = f"lambda {params}: {src(e)}"
        fn: Callable[..., Value] = eval(code, {"_mi": _modular_indexing, "min": min, "max": max})
    except (ValueError, SyntaxError, RecursionError, MemoryError, _NoSource):
        # a literal past Python's int/str digit limit, source Python cannot parse, or an op
        # with no source of its own
        return _evaluator(e, names)

    def run(*values: int) -> Value:
        try:
            return fn(*values)
        except ZeroDivisionError:
            raise Undefined(str(e)) from None

    return run


def _evaluator(e: Expr, names: Sequence[str]) -> Callable[..., Value]:
    def run(*values: int) -> Value:
        try:
            return evaluate(e, dict(zip(names, values)))
        except IndexAlgError as err:
            raise Undefined(str(err)) from None

    return run


def domain_points(
    ranges: RangesLike,
    *,
    variables: Iterable[str | Expr] | None = None,
    window: int = 6,
    limit: int = 20_000,
) -> tuple[list[Point], bool] | None:
    """``(points, exhaustive)``: every point of the domain of ``variables`` (an expression's
    symbols) under ``ranges``: the variables and, transitively, the symbols their range
    bounds mention, as :func:`indexalg.prove.domain_symbols` defines it (a ranged symbol
    the variables do not reach constrains nothing); ``variables=None`` takes every ranged
    symbol.  An open side is replaced by ``window`` values beyond the bounded one and an
    unranged symbol takes every value in ``[-window, window]``; ``exhaustive`` is False
    when some side was windowed (the points are then a subset of the domain).  Symbolic
    bounds are resolved per point.  None when there would be more than ``limit`` points."""
    r = as_ranges(ranges)
    if variables is None:
        names: tuple[str, ...] = tuple(s.payload for s in r)
    else:
        names = _closure(r, (v.payload if isinstance(v, Expr) else v for v in variables))
    order = [t for t in resolution_order(r, names) if t[0].payload in names]
    points: list[Point] = []
    exhaustive = True

    def walk(i: int, env: Point) -> bool:
        nonlocal exhaustive
        if i == len(order):
            points.append(dict(env))
            return len(points) <= limit
        sym, lo_e, hi_e = order[i]
        try:
            lo = None if lo_e is None else int(evaluate(lo_e, env))
            hi = None if hi_e is None else int(evaluate(hi_e, env))
        except IndexAlgError:
            return True  # a bound with no value here: no points below this prefix
        if lo is None or hi is None:
            exhaustive = False
            if lo is None and hi is None:
                lo, hi = -window, window
            elif lo is None:
                assert hi is not None
                lo = hi - window
            else:
                hi = lo + window
        if hi - lo + 1 > limit:
            return False
        for v in range(lo, hi + 1):
            env[sym.payload] = v
            if not walk(i + 1, env):
                return False
        env.pop(sym.payload, None)
        return True

    if not walk(0, {}):
        return None
    return points, exhaustive


def _closure(r: Ranges, names: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    stack = list(names)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        for b in r.get_bounds(Symbol(n)):
            if b is not None:
                stack.extend(s.payload for s in b.free_symbols)
    return tuple(sorted(seen))


def exact_range(
    e: Expr, points: Iterable[Mapping[str, int]], names: Sequence[str] | None = None
) -> tuple[int, int] | None:
    """The least and greatest value of ``e`` over the ``points`` where it is defined, or
    None when it is defined at none."""
    pts = list(points)
    keys = tuple(names) if names is not None else tuple(s.payload for s in e.free_symbols)
    fn = compile_expr(e, keys)
    lo: int | None = None
    hi: int | None = None
    for p in pts:
        try:
            v = int(fn(*(p[k] for k in keys)))
        except Undefined:
            continue
        if lo is None or v < lo:
            lo = v
        if hi is None or v > hi:
            hi = v
    if lo is None or hi is None:
        return None
    return lo, hi


#: The looseness categories of a bound against the exact range, tightest first.
LOOSENESS: tuple[str, ...] = ("exact", "within 1", "within 2x", "worse", "unbounded")


def looseness(bound: tuple[int | None, int | None], exact: tuple[int, int]) -> str:
    """How ``bound`` (inclusive, None for an open side) compares with the ``exact`` range
    it contains: ``"exact"``; ``"within 1"`` (each side off by at most 1); ``"within 2x"``
    (at most twice as many values as the exact range); ``"worse"``; ``"unbounded"`` (a side
    open though the exact range is finite)."""
    lo, hi = bound
    elo, ehi = exact
    if lo is None or hi is None:
        return "unbounded"
    if lo == elo and hi == ehi:
        return "exact"
    if elo - lo <= 1 and hi - ehi <= 1:
        return "within 1"
    if hi - lo + 1 <= 2 * (ehi - elo + 1):
        return "within 2x"
    return "worse"


def finite_domain(e: Expr, ranges: RangesLike) -> bool:
    """Whether every symbol of ``e``'s domain has a range bounded on both sides (so that
    :func:`domain_points` enumerates the whole domain)."""
    r = as_ranges(ranges)
    for name in _closure(r, (s.payload for s in e.free_symbols)):
        lo, hi = r.get_bounds(Symbol(name))
        if lo is None or hi is None:
            return False
    return True


def _bound_at(b: object, point: Mapping[str, int]) -> int | None:
    if b is None:
        return None
    if isinstance(b, Expr):
        v = evaluate(b, point)
        return int(v)
    if isinstance(b, int) and not isinstance(b, bool):
        return b
    raise TypeError(f"a bound must be an int, an Expr or None, got {b!r}")


def bounds_looseness(
    e: Expr,
    ranges: RangesLike,
    found: tuple[object, object],
    points: Sequence[Mapping[str, int]],
) -> str | None:
    """The :data:`LOOSENESS` category of the bounds ``found = (lo, hi)`` of ``e``: symbolic
    bounds are compared, for each value of the symbols they mention, with the exact range
    over the points having those values; the worst comparison counts.  None when the
    domain is not finite (the points are a window) or ``e`` has no value at any point."""
    if not points or not finite_domain(e, ranges):
        return None
    lo_b, hi_b = found
    used: set[str] = set()
    for b in (lo_b, hi_b):
        if isinstance(b, Expr):
            used.update(s.payload for s in b.free_symbols)
    keys = tuple(sorted(used))
    names = tuple(sorted(points[0]))
    try:
        fn = compile_expr(e, names)
    except ValueError:
        return None
    groups: dict[tuple[int, ...], list[int]] = {}
    sample: dict[tuple[int, ...], Mapping[str, int]] = {}
    for p in points:
        try:
            v = int(fn(*(p[n] for n in names)))
        except Undefined:
            continue
        k = tuple(p[n] for n in keys)
        groups.setdefault(k, []).append(v)
        sample.setdefault(k, p)
    worst: str | None = None
    for k, vals in groups.items():
        try:
            b = (_bound_at(lo_b, sample[k]), _bound_at(hi_b, sample[k]))
        except IndexAlgError:
            return None  # no value: check_bounds reports it
        kind = looseness(b, (min(vals), max(vals)))
        if worst is None or LOOSENESS.index(kind) > LOOSENESS.index(worst):
            worst = kind
    return worst


class _TooSlow(Exception):
    pass


def _raise_too_slow(signum: int, frame: object) -> None:
    raise _TooSlow


def check_exact_bounds(
    e: Expr,
    ranges: RangesLike,
    points: Sequence[Mapping[str, int]],
    *,
    prop: str = "exact",
    timeout: float | None = 10.0,
) -> tuple[object, object]:
    """``indexalg.bounds(e, ranges, exact=True)`` (Z3): every value at ``points`` lies
    inside, and when the domain is finite (``points`` are all of it) a numeric side equals
    the exact one; the answer comes within ``timeout`` seconds (checked with a timer signal
    where one is available: the main thread on Unix).  Raises
    :class:`~indexalg.testing.oracles.PropertyFailure`; returns ``(lo, hi)``."""
    import signal
    import threading

    from indexalg import bounds
    from indexalg.testing.oracles import _fail, check_bounds

    timed = (
        timeout is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )

    def exact(x: Expr, r: RangesLike) -> tuple[object, object]:
        if not timed:
            return bounds(x, r, exact=True)
        assert timeout is not None
        previous = signal.signal(signal.SIGALRM, _raise_too_slow)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return bounds(x, r, exact=True)
        except _TooSlow:
            raise _fail(
                prop,
                "exact bounds too slow",
                "bounds",
                e,
                ranges,
                None,
                f"bounds(exact=True) gave no answer within {timeout:g} s",
            ) from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    from indexalg.testing.oracles import PropertyFailure

    try:
        try:
            found = check_bounds(e, ranges, points, bounds=exact, prop=prop)
        except PropertyFailure as f:
            cause = f.__cause__
            if isinstance(cause, PropertyFailure):
                raise cause from None  # check_bounds wraps what the call raised
            raise
        if points and finite_domain(e, ranges):
            # the exact range over the whole domain: the points given may be a sample of
            # it (the compiler generator's are), and a sample's range is not the exact one
            whole = domain_points(ranges, variables=e.free_symbols)
            if whole is not None and whole[1] and whole[0]:
                _check_sides_exact(e, ranges, whole[0], found, prop)
        return found
    except PropertyFailure as f:
        import dataclasses

        # the command reproduces with --exact
        case = dataclasses.replace(f.case, command=f.case.command + " --exact")
        raise PropertyFailure(case) from None


def _check_sides_exact(
    e: Expr,
    ranges: RangesLike,
    points: Sequence[Mapping[str, int]],
    found: tuple[object, object],
    prop: str,
) -> None:
    """On a finite domain (``points`` are all of it) a numeric side of ``found`` must be the
    exact one."""
    from indexalg.testing.oracles import _fail

    ex = exact_range(e, points, tuple(sorted(points[0])))
    if ex is None:
        return
    for side, got, want in (("lo", found[0], ex[0]), ("hi", found[1], ex[1])):
        value = got.payload if isinstance(got, Expr) and type(got) is Integer else got
        if isinstance(value, int) and not isinstance(value, bool) and value != want:
            raise _fail(
                prop,
                "exact bound not exact",
                "bounds",
                e,
                ranges,
                None,
                f"exact=True gives {side} = {value}, the exact {side} is {want}",
            )
