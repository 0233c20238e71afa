"""Oracles: the checks that decide whether indexalg (or your rules) got an example right.

Every check compares against the reference evaluator (:func:`indexalg.evaluate`) at given
points and raises :class:`PropertyFailure` carrying a :class:`Case` (the expression, its
ranges, the failing point, what went wrong and a command that reproduces it).  The same
checks run in indexalg's property suite and in ``indexalg fuzz``.

**Undefined points.**  A point where the *input* has no value (a zero divisor, a
ModularIndexing divisor below 1) is skipped: transformations must preserve the value wherever
the input evaluates without error, and there the output must evaluate without error too.

Also here: :func:`exhaustive_points` (every point of small ranges, for exact checks) and
:func:`inductor_simplify` / :func:`compare_with_inductor`, which use PyTorch Inductor's
``simplify_with_ranges`` as a differential oracle when torch is installed; Inductor's own
mistakes are reported apart from indexalg's.

This module imports only the standard library and indexalg's core; the library functions
under test (simplify, bounds, congruence, prove, interop) are imported when first used.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from indexalg.errors import IndexAlgError, RangeError
from indexalg.evaluate import evaluate
from indexalg.expr import Expr, Integer, Symbol
from indexalg.ranges import Ranges, RangesLike, as_ranges

__all__ = [
    "EMPTY_DOMAIN",
    "EXHAUSTIVE_LIMIT",
    "Case",
    "InductorReport",
    "Point",
    "PropertyFailure",
    "check_bounds",
    "check_congruence",
    "check_proof",
    "check_simplify",
    "check_sympy_round_trip",
    "check_text_round_trip",
    "construction",
    "compare_with_inductor",
    "corner_points",
    "exhaustive_points",
    "inductor_simplify",
    "range_args",
    "reproduce_command",
    "resolution_order",
    "value_at",
]

Point = dict[str, int]

#: Ranges with at most this many points are checked at every point.
EXHAUSTIVE_LIMIT = 4096


# --- failing cases ------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A failing example.  ``prop`` names the property, ``kind`` the kind of failure (used to
    tell distinct bugs apart), ``expr`` is the canonical text of the input, ``ranges`` the
    ``--range`` arguments, ``point`` the failing assignment (None when no point is involved),
    ``detail`` what went wrong and ``command`` a shell command that reproduces it."""

    prop: str
    kind: str
    expr: str
    ranges: tuple[str, ...]
    point: tuple[tuple[str, int], ...] | None
    detail: str
    command: str

    def describe(self) -> str:
        """A few lines for people: what failed, the command, the point."""
        lines = [f"[{self.prop}] {self.kind}: {self.detail}", f"  $ {self.command}"]
        if self.point is not None:
            binds = " ".join(f"{k}={v}" for k, v in self.point)
            lines.append(f"  # at {binds or 'any point'}; the input's value there:")
            lines.append(f"  $ indexalg eval -- {shlex.quote(self.expr)} {binds}".rstrip())
        return "\n".join(lines)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Case:
        """The case :meth:`as_json` described."""
        point = data.get("point")
        return Case(
            prop=str(data["property"]),
            kind=str(data["kind"]),
            expr=str(data["expr"]),
            ranges=tuple(str(r) for r in data["ranges"]),
            point=None
            if point is None
            else tuple(sorted((str(k), int(v)) for k, v in point.items())),
            detail=str(data["detail"]),
            command=str(data["command"]),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "property": self.prop,
            "kind": self.kind,
            "expr": self.expr,
            "ranges": list(self.ranges),
            "point": None if self.point is None else dict(self.point),
            "detail": self.detail,
            "command": self.command,
        }


class PropertyFailure(AssertionError):
    """A check failed; ``case`` says how to reproduce it."""

    def __init__(self, case: Case) -> None:
        super().__init__(case.describe())
        self.case = case


def range_args(ranges: RangesLike) -> tuple[str, ...]:
    """The ``--range NAME=SPEC`` arguments (without ``--range``) that describe ``ranges``."""
    out: list[str] = []
    for name, (lo, hi) in as_ranges(ranges).as_spec().items():
        lo_t = "" if lo is None else str(lo)
        hi_t = "" if hi is None else str(hi)
        out.append(f"{name}={lo_t}..{hi_t}")
    return tuple(out)


def reproduce_command(subcommand: str, expr: Expr, ranges: RangesLike) -> str:
    """``indexalg SUBCOMMAND 'EXPR' --range ...``, quoted for a POSIX shell."""
    parts = ["indexalg", subcommand, shlex.quote(str(expr))]
    for arg in range_args(ranges):
        parts += ["--range", shlex.quote(arg)]
    return " ".join(parts)


def _fail(
    prop: str,
    kind: str,
    subcommand: str,
    expr: Expr,
    ranges: RangesLike,
    point: Mapping[str, int] | None,
    detail: str,
) -> PropertyFailure:
    return PropertyFailure(
        Case(
            prop=prop,
            kind=kind,
            expr=str(expr),
            ranges=range_args(ranges),
            point=None if point is None else tuple(sorted(point.items())),
            detail=detail,
            command=reproduce_command(subcommand, expr, ranges),
        )
    )


def _raised(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}".splitlines()[0]


# --- points -------------------------------------------------------------------------------


def resolution_order(
    ranges: Ranges, variables: Iterable[str] = ()
) -> list[tuple[Expr, Expr | None, Expr | None]]:
    """``(symbol, lo, hi)`` for every symbol of ``ranges``, every symbol its bounds mention
    and every name in ``variables``, each after the symbols its bounds mention (ties by
    name), so that bounds can be evaluated in order.  Raises :class:`RangeError` for bounds
    that depend on each other in a cycle."""
    bounds: dict[Expr, tuple[Expr | None, Expr | None]] = {}
    todo: list[Expr] = [*ranges, *(Symbol(n) for n in variables)]
    while todo:
        sym = todo.pop()
        if sym in bounds:
            continue
        lo, hi = ranges.get_bounds(sym)
        bounds[sym] = (lo, hi)
        for b in (lo, hi):
            if b is not None:
                todo.extend(b.free_symbols)
    ordered: list[tuple[Expr, Expr | None, Expr | None]] = []
    placed: set[Expr] = set()
    pending = sorted(bounds, key=lambda s: str(s.payload))
    while pending:
        ready = [
            s
            for s in pending
            if all(d in placed for b in bounds[s] if b is not None for d in b.free_symbols)
        ]
        if not ready:
            cycle = ", ".join(str(s) for s in pending)
            raise RangeError(f"the ranges of {cycle} depend on each other in a cycle")
        for s in ready:
            ordered.append((s, *bounds[s]))
            placed.add(s)
        pending = [s for s in pending if s not in placed]
    return ordered


def exhaustive_points(
    ranges: RangesLike, *, variables: Iterable[str | Expr] = (), limit: int = EXHAUSTIVE_LIMIT
) -> list[Point] | None:
    """Every point of ``ranges`` (binding also the names in ``variables``), in lexicographic
    order of the symbols' resolution order, or None when there are more than ``limit``
    points or some symbol is unbounded.  Symbolic bounds are resolved per point
    (``{"x": "s0", "s0": (1, 3)}`` has 1 + 2 + 3 = 6 points)."""
    names = tuple(v.payload if isinstance(v, Expr) else v for v in variables)
    order = resolution_order(as_ranges(ranges), names)
    points: list[Point] = []

    def walk(i: int, env: Point) -> bool:
        if i == len(order):
            points.append(dict(sorted(env.items())))
            return len(points) <= limit
        sym, lo_e, hi_e = order[i]
        if lo_e is None or hi_e is None:
            return False
        try:
            lo = int(evaluate(lo_e, env))
            hi = int(evaluate(hi_e, env))
        except IndexAlgError:
            return True  # no value for this bound here: no points below this prefix
        if hi - lo + 1 > limit:
            return False
        for v in range(lo, hi + 1):
            env[sym.payload] = v
            if not walk(i + 1, env):
                return False
        env.pop(sym.payload, None)
        return True

    return points if walk(0, {}) else None


def corner_points(ranges: RangesLike, *, variables: Iterable[str | Expr] = ()) -> list[Point]:
    """The all-lower and the all-upper corner of ``ranges`` (an open side and an unranged
    symbol take 0 when 0 is allowed, else the finite bound); corners whose symbolic bounds
    have no value are left out."""
    names = tuple(v.payload if isinstance(v, Expr) else v for v in variables)
    order = resolution_order(as_ranges(ranges), names)
    out: list[Point] = []
    for upper in (False, True):
        env: Point = {}
        try:
            for sym, lo_e, hi_e in order:
                lo = None if lo_e is None else int(evaluate(lo_e, env))
                hi = None if hi_e is None else int(evaluate(hi_e, env))
                if lo is not None and hi is not None and lo > hi:
                    raise RangeError("empty")
                pick = hi if upper else lo
                if pick is None:  # an open side: 0 clamped into the range
                    pick = 0 if lo is None else max(0, lo)
                    pick = pick if hi is None else min(pick, hi)
                env[sym.payload] = pick
        except IndexAlgError:
            continue
        p = dict(sorted(env.items()))
        if p not in out:
            out.append(p)
    return out


#: What the library says when the ranges provably admit no point (bounds and simplify raise
#: RangeError with it; prove answers the status "vacuous").
EMPTY_DOMAIN = "the ranges admit no point"


def _empty_domain(err: BaseException) -> bool:
    return isinstance(err, RangeError) and EMPTY_DOMAIN in str(err)


def value_at(e: Expr, point: Mapping[str, int]) -> int | bool | IndexAlgError:
    """The value of ``e`` at ``point``, or the library error that says it has none."""
    try:
        return evaluate(e, point)
    except IndexAlgError as err:
        return err


# --- checks -------------------------------------------------------------------------------


def _total_hits(stats: object) -> int | None:
    """Hits recorded in a stats object (rule name -> hits, or -> an object with .hits)."""
    if not isinstance(stats, Mapping):
        return None
    total = 0
    for v in stats.values():
        hits = v if isinstance(v, int) else getattr(v, "hits", None)
        if not isinstance(hits, int):
            return None
        total += hits
    return total


def check_simplify(
    e: Expr,
    ranges: RangesLike,
    points: Iterable[Mapping[str, int]],
    *,
    simplify: Callable[..., Any] | None = None,
    rules: object = None,
    prop: str = "simplify",
) -> Expr:
    """The three simplifier properties at ``points``; returns the simplified expression.

    1. value preservation: wherever ``e`` evaluates, the result evaluates to the same value;
    2. idempotence: simplifying the result again gives the same node (``is``);
    3. no-op identity: when the stats say no rule fired, the result is ``e`` itself.

    Also: ``simplify(e, r)`` and ``simplify(e, r, stats=True).expr`` agree, and simplify
    raises nothing.  ``simplify`` defaults to :func:`indexalg.simplify.simplify`; ``rules``,
    when given, is passed on as ``rules=``.
    """
    fn = simplify if simplify is not None else _library("indexalg.simplify", "simplify")
    extra: dict[str, Any] = {} if rules is None else {"rules": rules}

    def fail(kind: str, detail: str, point: Mapping[str, int] | None = None) -> PropertyFailure:
        return _fail(prop, kind, "simplify", e, ranges, point, detail)

    points = list(points)
    try:
        result = fn(e, ranges, stats=True, **extra)
        out: Expr = result.expr
        plain: Expr = fn(e, ranges, **extra)
    except Exception as err:
        if _empty_domain(err) and not points:
            return e
        if _empty_domain(err):
            raise fail("empty domain claimed", _raised(err), points[0]) from err
        raise fail("simplify raised", _raised(err)) from err
    if not isinstance(out, Expr):
        raise fail("bad result", f"simplify returned {out!r}")
    if out.is_bool != e.is_bool:
        raise fail("bad result", f"simplify turned {e} into {out}")
    if plain is not out:
        raise fail("stats changes the result", f"stats=True gives {out}, plain gives {plain}")
    hits = _total_hits(getattr(result, "stats", None))
    if hits == 0 and out is not e:
        raise fail("no rule fired, new node", f"stats record no hit but {out} came back")
    for point in points:
        before = value_at(e, point)
        if isinstance(before, IndexAlgError):
            continue
        after = value_at(out, point)
        if isinstance(after, IndexAlgError):
            raise fail(
                "error introduced", f"{out} raises {_raised(after)}; input = {before}", point
            )
        if after != before:
            raise fail("value changed", f"input = {before}, simplified {out} = {after}", point)
    try:
        again: Expr = fn(out, ranges, **extra)
    except Exception as err:
        raise fail("simplify raised", f"on its own output {out}: {_raised(err)}") from err
    if again is not out:
        raise fail("not idempotent", f"simplify gives {out}, then {again}")
    return out


def _bound_value(b: object, point: Mapping[str, int]) -> int | None:
    if b is None:
        return None
    if isinstance(b, Expr):
        v = evaluate(b, point)
        assert isinstance(v, int)
        return int(v)
    if isinstance(b, int) and not isinstance(b, bool):
        return b
    raise TypeError(f"a bound must be an int, an Expr or None, got {b!r}")


def check_bounds(
    e: Expr,
    ranges: RangesLike,
    points: Iterable[Mapping[str, int]],
    *,
    bounds: Callable[..., Any] | None = None,
    prop: str = "bounds",
) -> tuple[object, object]:
    """Soundness of ``bounds(e, ranges)``: at every point where ``e`` evaluates,
    ``lo <= value <= hi`` with symbolic bounds evaluated at the same point (a bound that has
    no value there fails).  ``RangeError("the ranges admit no point ...")`` is right only
    when ``points`` is empty (then ``(None, None)`` is returned).  Returns ``(lo, hi)``."""
    fn = bounds if bounds is not None else _library("indexalg.analysis", "bounds")

    def fail(kind: str, detail: str, point: Mapping[str, int] | None = None) -> PropertyFailure:
        return _fail(prop, kind, "bounds", e, ranges, point, detail)

    points = list(points)
    try:
        lo, hi = fn(e, ranges)
    except Exception as err:
        if _empty_domain(err) and not points:
            return None, None
        if _empty_domain(err):
            raise fail("empty domain claimed", _raised(err), points[0]) from err
        raise fail("bounds raised", _raised(err)) from err
    for point in points:
        v = value_at(e, point)
        if isinstance(v, IndexAlgError):
            continue
        try:
            lo_v = _bound_value(lo, point)
            hi_v = _bound_value(hi, point)
        except Exception as err:
            raise fail("bound has no value", f"[{lo}, {hi}]: {_raised(err)}", point) from err
        if (lo_v is not None and v < lo_v) or (hi_v is not None and v > hi_v):
            raise fail(
                "value out of bounds", f"value {v} outside [{lo}, {hi}] = [{lo_v}, {hi_v}]", point
            )
    return lo, hi


def check_congruence(
    e: Expr,
    ranges: RangesLike,
    points: Iterable[Mapping[str, int]],
    *,
    congruence: Callable[..., Any] | None = None,
    prop: str = "congruence",
) -> tuple[int, int]:
    """Soundness of ``congruence(e, ranges) = (m, r)``: at every point where ``e``
    evaluates, ``value == r`` when ``m == 0`` and ``value ≡ r (mod m)`` otherwise."""
    fn = congruence if congruence is not None else _library("indexalg.analysis", "congruence")

    def fail(kind: str, detail: str, point: Mapping[str, int] | None = None) -> PropertyFailure:
        return _fail(prop, kind, "bounds", e, ranges, point, detail)

    try:
        m_raw, r_raw = fn(e, ranges)
        m, r = _as_int(m_raw), _as_int(r_raw)
    except Exception as err:
        raise fail("congruence raised", _raised(err)) from err
    if m < 0:
        raise fail("bad congruence", f"modulus {m} < 0")
    for point in points:
        v = value_at(e, point)
        if isinstance(v, IndexAlgError):
            continue
        assert isinstance(v, int)
        ok = v == r if m == 0 else (v - r) % m == 0
        if not ok:
            raise fail("congruence wrong", f"value {v} is not ≡ {r} (mod {m})", point)
    return m, r


def _as_int(v: object) -> int:
    if isinstance(v, Expr) and type(v) is Integer:
        iv: int = v.payload
        return iv
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise TypeError(f"expected an integer, got {v!r}")


def check_proof(
    claim: Expr,
    ranges: RangesLike,
    points: Iterable[Mapping[str, int]],
    *,
    prove: Callable[..., Any] | None = None,
    prop: str = "prove",
) -> str:
    """Soundness of ``prove(claim, ranges)``: "proved" ⇒ the claim holds at every point
    where it evaluates; "disproved" ⇒ the counterexample lies in the ranges and the claim is
    false there; "vacuous" (the ranges admit no point where the claim has a value) ⇒ it
    has a value at none of ``points``.  Returns the status."""
    fn = prove if prove is not None else _library("indexalg.prove", "prove")

    def fail(kind: str, detail: str, point: Mapping[str, int] | None = None) -> PropertyFailure:
        return _fail(prop, kind, "prove", claim, ranges, point, detail)

    points = list(points)
    try:
        proof = fn(claim, ranges)
        status = proof.status
    except Exception as err:
        raise fail("prove raised", _raised(err)) from err
    if status not in ("proved", "disproved", "unknown", "vacuous"):
        raise fail("bad status", f"status {status!r}")
    if status == "vacuous":
        # no point where the claim has a value: wrong if one is given
        for point in points:
            if not isinstance(value_at(claim, point), IndexAlgError):
                raise fail("vacuous with a point", str(getattr(proof, "reason", "")), point)
    if status == "proved":
        for point in points:
            v = value_at(claim, point)
            if v is False:
                raise fail("proved a false claim", "the claim is false here", point)
    if status == "disproved":
        cex = _counterexample(getattr(proof, "counterexample", None))
        if cex is None:
            raise fail("no counterexample", f"disproved without a counterexample: {proof!r}")
        if not _in_ranges(as_ranges(ranges), cex):
            raise fail(
                "counterexample out of range", "the counterexample is outside the ranges", cex
            )
        v = value_at(claim, cex)
        if v is not False:
            raise fail("bad counterexample", f"the claim evaluates to {v} there", cex)
    return str(status)


def _counterexample(cex: object) -> Point | None:
    if not isinstance(cex, Mapping):
        return None
    out: Point = {}
    for k, v in cex.items():
        name = k.payload if isinstance(k, Expr) else str(k)
        out[name] = _as_int(v)
    return out


def _in_ranges(r: Ranges, point: Mapping[str, int]) -> bool:
    for sym, (lo, hi) in r.items():
        v = point.get(sym.payload)
        if v is None:
            continue
        try:
            if lo is not None and v < _bound_value(lo, point):  # type: ignore[operator]
                return False
            if hi is not None and v > _bound_value(hi, point):  # type: ignore[operator]
                return False
        except IndexAlgError:
            return False
    return True


def construction(e: Expr) -> str:
    """Python code that builds ``e`` with indexalg's constructors, independent of the text
    printer and the parser (``ia.Add(ia.Symbol('x'), ia.Mul(-1, ia.Symbol('y')))``)."""
    if type(e) is Integer:
        return str(e.payload)
    if type(e) is Symbol:
        return f"ia.Symbol({json.dumps(e.payload)})"
    if e.is_bool and not e.args:
        return "ia.true" if e.payload else "ia.false"
    args = [construction(a) for a in e.args]
    name = type(e).__name__
    if name in ("Add", "Mul") and e.payload != (0 if name == "Add" else 1):
        args.insert(0 if name == "Mul" else len(args), str(e.payload))
    return f"ia.{name}({', '.join(args)})"


def check_text_round_trip(e: Expr, *, prop: str = "text") -> None:
    """``parse(str(e)) is e``.  A failing case's command rebuilds ``e`` with constructors."""
    from indexalg.parse import parse

    text = str(e)
    code = f"import indexalg as ia; e = {construction(e)}; print(str(e)); print(ia.parse(str(e)))"
    command = f"python -c {shlex.quote(code)}"
    try:
        back: Expr | None = parse(text)
        detail = "" if back is e else f"{text!r} parses back as {back}"
    except Exception as err:
        back, detail = None, f"{text!r} does not parse: {_raised(err)}"
    if back is not e:
        kind = "does not parse" if back is None else "round trip changes"
        raise PropertyFailure(Case(prop, kind, text, (), None, detail, command))


def check_sympy_round_trip(
    e: Expr,
    points: Iterable[Mapping[str, int]],
    *,
    flavor: str = "sympy",
    prop: str = "sympy",
) -> Expr:
    """``from_sympy(to_sympy(e, flavor=flavor))`` has the value of ``e`` wherever ``e``
    evaluates.  Returns the round-tripped expression."""
    to_sympy = _library("indexalg.interop.sympy", "to_sympy")
    from_sympy = _library("indexalg.interop.sympy", "from_sympy")

    def fail(kind: str, detail: str, point: Mapping[str, int] | None = None) -> PropertyFailure:
        return _fail(prop, kind, "simplify", e, None, point, detail)

    try:
        back = from_sympy(to_sympy(e, flavor=flavor))
    except Exception as err:
        raise fail(f"{flavor} round trip raised", _raised(err)) from err
    for point in points:
        v = value_at(e, point)
        if isinstance(v, IndexAlgError):
            continue
        w = value_at(back, point)
        if w != v:
            raise fail(
                f"{flavor} round trip changes the value",
                f"{e} = {v} but the round trip {back} = {w}",
                point,
            )
    return back  # type: ignore[no-any-return]


def _library(module: str, name: str) -> Any:
    import importlib

    return getattr(importlib.import_module(module), name)


# --- Inductor as a differential oracle ----------------------------------------------------


@dataclass(frozen=True)
class InductorReport:
    """Inductor's ``simplify_with_ranges`` on one expression.  ``inductor`` is its result
    (None when torch is missing, the ranges are not Inductor's ``0 <= v < size`` form or
    Inductor raised; ``reason`` says which); ``inductor_wrong`` are points where Inductor's
    result differs from the input (Inductor's bugs, not indexalg's); ``ours_wrong`` are
    points where indexalg's result does."""

    expr: Expr
    ours: Expr
    inductor: Expr | None
    reason: str = ""
    ours_wrong: tuple[Point, ...] = field(default=())
    inductor_wrong: tuple[Point, ...] = field(default=())


def _var_ranges(r: Ranges, symbols: Sequence[Expr]) -> dict[str, Expr] | None:
    """name -> size for the symbols of ``symbols`` with a range ``[0, size - 1]``, or None
    when some symbol has a range of another form.  Size symbols (a lower bound >= 1, named in
    other symbols' bounds) and unranged symbols are left out: Inductor then knows less about
    them than indexalg does, which cannot make its answer wrong."""
    in_bounds = {
        s for lo, hi in r.values() for b in (lo, hi) if b is not None for s in b.free_symbols
    }
    sizes: dict[str, Expr] = {}
    for sym in symbols:
        if sym not in r:
            continue
        lo, hi = r[sym]
        if type(lo) is Integer and lo.payload == 0 and hi is not None:
            sizes[sym.payload] = hi + 1
        elif not (sym in in_bounds and type(lo) is Integer and lo.payload >= 1):
            return None
    return sizes


def inductor_simplify(e: Expr, ranges: RangesLike) -> tuple[Expr | None, str]:
    """``(result, reason)``: Inductor's ``SizeVarAllocator().simplify_with_ranges`` on the
    torch-flavoured sympy form of ``e``, read back into indexalg, or ``(None, why not)``."""
    try:
        import sympy
        from torch._inductor.sizevars import SizeVarAllocator
    except ImportError:
        return None, "torch is not installed"
    to_sympy = _library("indexalg.interop.sympy", "to_sympy")
    from_sympy = _library("indexalg.interop.sympy", "from_sympy")
    r = as_ranges(ranges)
    sizes = _var_ranges(r, e.free_symbols)
    if sizes is None:
        return None, "ranges are not all of the form 0 <= v < size"
    # Inductor's own assumptions: index variables are non-negative, sizes positive.
    hints = {name: "nonnegative" for name in sizes}
    for sym in e.free_symbols:
        lo, _ = r.get_bounds(sym)
        if sym.payload not in sizes and type(lo) is Integer and lo.payload >= 1:
            hints[sym.payload] = "positive"
    try:
        s_expr = to_sympy(e, flavor="torch", hints=hints)
        by_name = {str(s): s for s in s_expr.free_symbols}
        var_ranges = {}
        for name, size in sizes.items():
            if name in by_name:
                size_s = to_sympy(size, flavor="torch", hints=hints)
                size_s = size_s.xreplace({s: by_name.get(str(s), s) for s in size_s.free_symbols})
                var_ranges[by_name[name]] = sympy.sympify(size_s)
        out = SizeVarAllocator().simplify_with_ranges(s_expr, var_ranges)
        return from_sympy(out), ""
    except Exception as err:  # Inductor's failures are data here, not errors
        return None, f"Inductor raised {_raised(err)}"


def compare_with_inductor(
    e: Expr, ours: Expr, ranges: RangesLike, points: Iterable[Mapping[str, int]]
) -> InductorReport:
    """Evaluate ``e``, indexalg's ``ours`` and Inductor's result at ``points`` (where ``e``
    evaluates) and record where each result is wrong."""
    theirs, reason = inductor_simplify(e, ranges)
    ours_wrong: list[Point] = []
    theirs_wrong: list[Point] = []
    for point in points:
        v = value_at(e, point)
        if isinstance(v, IndexAlgError):
            continue
        if value_at(ours, point) != v:
            ours_wrong.append(dict(point))
        if theirs is not None and value_at(theirs, point) != v:
            theirs_wrong.append(dict(point))
    return InductorReport(e, ours, theirs, reason, tuple(ours_wrong), tuple(theirs_wrong))
