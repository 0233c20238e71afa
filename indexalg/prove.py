"""The tiered prover: cheap analyses first, Z3 last and on purpose.

``prove(claim, ranges)`` decides a claim (a comparison, or And/Or/Not of comparisons) for
every assignment of its symbols inside their ranges.  Tiers, in order:
1. ``interval``   -- interval bounds (numeric, then symbolic);
2. ``congruence`` -- congruence facts (``e ≡ r (mod m)``); tiers 1-2 are
   :func:`indexalg.analysis.decide`;
3. ``simplify``   -- the simplifier under the ranges, when it rewrites the claim to a literal;
4. ``z3``         -- Z3 under a resource limit (``rlimit``: the same answer on every run,
   unlike a wall-clock timeout), asked for a point in the ranges where the claim is false.

Semantics.  A *point* assigns an integer to every symbol of the claim and of the range bounds
it depends on, with ``lo <= v <= hi`` for every ranged symbol (symbolic bounds evaluated at
the point; a point where a bound is undefined is not in the ranges).  The claim is *proved*
when it is true at every point where it is defined (evaluating it raises no error: the same
convention as the simplifier, which keeps values only where they exist); it is *disproved*
when some point makes it false, and then :attr:`Proof.counterexample` is such a point,
checked with :func:`indexalg.evaluate` before it is returned.  Anything else is *unknown*:
the prover never guesses, and a Z3 answer it cannot confirm is reported as unknown.

:meth:`Proof.smtlib` writes the tier-4 query as an SMT-LIB 2 script (``unsat`` = proved) for
reproduction with any SMT solver; :func:`exact_bounds` gives the tightest bounds through Z3's
optimiser.  :data:`STATS` counts which tier answered.

Z3 is an optional extra (``indexalg[z3]``).  Where it cannot be imported the z3 tier decides
nothing: a claim the other tiers leave open is *unknown* (the reason says z3 is missing), and a
refuted claim whose counterexample no cheap point confirms is left to the next tier, never
guessed.  :func:`smtlib_query` and :func:`exact_bounds` beyond small domains need Z3 itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from indexalg.analysis import bounds, decide
from indexalg.analysis.context import context_for
from indexalg.analysis.interval import interval
from indexalg.analysis.refine import empty_domain
from indexalg.errors import (
    ExprTypeError,
    IndexAlgError,
    InvalidOperationError,
    RewriteLimitError,
)
from indexalg.evaluate import evaluate
from indexalg.expr import BoolConst, Expr, Integer, integer
from indexalg.limits import DEFAULT_RLIMIT
from indexalg.parse import parse
from indexalg.ranges import Bound, Ranges, RangesLike, as_ranges
from indexalg.simplify import simplify

__all__ = [
    "Proof",
    "ProverStats",
    "STATS",
    "TIERS",
    "DEFAULT_RLIMIT",
    "prove",
    "exact_bounds",
    "domain_symbols",
    "in_ranges",
    "z3_installed",
]

Status = Literal["proved", "disproved", "unknown", "vacuous"]

#: The tiers, in the order they are tried.
TIERS: tuple[str, ...] = ("interval", "congruence", "simplify", "z3")


@dataclass
class ProverStats:
    """Which tier answered how many claims, and the time spent per tier (nanoseconds).

    ``answered`` is keyed by tier name (plus ``"literal"`` for claims that were True/False
    already); ``unknown`` counts claims no tier decided.
    """

    answered: dict[str, int] = field(default_factory=dict)
    time_ns: dict[str, int] = field(default_factory=dict)
    unknown: int = 0

    def record(self, tier: str, ns: int) -> None:
        self.answered[tier] = self.answered.get(tier, 0) + 1
        self.time_ns[tier] = self.time_ns.get(tier, 0) + ns

    def reset(self) -> None:
        self.answered.clear()
        self.time_ns.clear()
        self.unknown = 0

    @property
    def total(self) -> int:
        return sum(self.answered.values()) + self.unknown

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly snapshot with sorted keys."""
        return {
            "answered": dict(sorted(self.answered.items())),
            "time_ns": dict(sorted(self.time_ns.items())),
            "unknown": self.unknown,
            "total": self.total,
        }


#: Module-level statistics of every :func:`prove` call (reset with ``STATS.reset()``).
STATS = ProverStats()


@dataclass(frozen=True)
class Proof:
    """The answer of :func:`prove`.

    ``status``: ``"proved"``, ``"disproved"``, ``"unknown"``, or ``"vacuous"`` when the
    ranges admit no point at all (a symbol of the claim's domain has an empty range: the
    claim holds trivially, which is almost always a mistake in the ranges); ``tier``: the tier that
    answered (``""`` when unknown); ``counterexample``: for a disproved claim, a point
    (symbol name -> value, sorted by name) inside the ranges where the claim is false;
    ``reason``: a short explanation for people.
    """

    status: Status
    claim: Expr
    ranges: Ranges
    tier: str = ""
    counterexample: dict[str, int] | None = None
    reason: str = ""
    rlimit: int = DEFAULT_RLIMIT

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    @property
    def disproved(self) -> bool:
        return self.status == "disproved"

    def smtlib(self) -> str:
        """The Z3 tier's query as an SMT-LIB 2 script: ``unsat`` means the claim is proved;
        a model is a point in the ranges where the claim is defined and false."""
        return smtlib_query(self.claim, self.ranges, rlimit=self.rlimit)

    def as_dict(self) -> dict[str, object]:
        """A JSON-friendly form (keys sorted by the JSON writer)."""
        return {
            "status": self.status,
            "claim": str(self.claim),
            "ranges": {k: list(v) for k, v in self.ranges.as_spec().items()},
            "tier": self.tier,
            "counterexample": self.counterexample,
            "reason": self.reason,
        }

    def __str__(self) -> str:
        text = f"{self.status}: {self.claim}"
        if self.tier:
            text += f" [{self.tier}]"
        if self.counterexample is not None:
            point = ", ".join(f"{k}={v}" for k, v in self.counterexample.items())
            text += f"; counterexample: {point}"
        return text


# --- the domain of a claim ----------------------------------------------------------------------


def domain_symbols(e: Expr, ranges: Ranges) -> tuple[Expr, ...]:
    """The symbols of ``e`` and, transitively, of the range bounds they depend on (by name)."""
    return tuple(sorted(ranges.closure(e.symbol_set), key=lambda s: str(s.payload)))


def in_ranges(point: Mapping[str, int], ranges: Ranges) -> bool:
    """True when ``point`` satisfies every range of a symbol it assigns, and every range
    keyed by an expression whose symbols it assigns (bounds evaluated at the point; an
    undefined or unevaluable bound counts as not satisfied)."""
    for key, (lo, hi) in (*ranges.items(), *ranges.facts.items()):
        if any(str(x.payload) not in point for x in key.free_symbols):
            continue
        try:
            v = _int_value(key, point)
            if lo is not None and v < _int_value(lo, point):
                return False
            if hi is not None and v > _int_value(hi, point):
                return False
        except IndexAlgError:
            return False
    return True


def _int_value(e: Expr, point: Mapping[str, int]) -> int:
    v = evaluate(e, point)
    if isinstance(v, bool):  # pragma: no cover - bounds are integer expressions
        raise ExprTypeError(f"a range bound must be an integer expression, got {e}")
    return v


def _violates(claim: Expr, point: Mapping[str, int], ranges: Ranges) -> bool:
    """The point is in the ranges and the claim evaluates (without error) to False there."""
    if not in_ranges(point, ranges):
        return False
    try:
        return evaluate(claim, point) is False
    except IndexAlgError:
        return False


def _candidate_points(claim: Expr, ranges: Ranges) -> list[dict[str, int]]:
    """A few cheap points of the domain: every symbol at its lower bound, at its upper
    bound, and near zero (bounds evaluated in dependency order)."""
    syms = domain_symbols(claim, ranges)
    points: list[dict[str, int]] = []
    for pick in ("lo", "hi", "zero"):
        point: dict[str, int] = {}
        pending = list(syms)
        while pending:
            progress = False
            for s in list(pending):
                lo_e, hi_e = ranges.get_bounds(s)
                try:
                    lo = None if lo_e is None else _int_value(lo_e, point)
                    hi = None if hi_e is None else _int_value(hi_e, point)
                except IndexAlgError:
                    continue  # a bound over a symbol not assigned yet
                point[s.payload] = _pick(pick, lo, hi)
                pending.remove(s)
                progress = True
            if not progress:
                break
        if not pending and point not in points:
            points.append(point)
    return points


def _pick(how: str, lo: int | None, hi: int | None) -> int:
    if how == "lo" and lo is not None:
        return lo
    if how == "hi" and hi is not None:
        return hi
    v = 0
    if lo is not None and v < lo:
        v = lo
    if hi is not None and v > hi:
        v = hi
    return v


# --- the tiers ----------------------------------------------------------------------------------


def _as_claim(claim: Expr | str) -> Expr:
    if isinstance(claim, str):
        claim = parse(claim)
    if not isinstance(claim, Expr):
        raise ExprTypeError(f"prove() takes a claim (an Expr or its text), got {claim!r}")
    if not claim.is_bool:
        raise ExprTypeError(
            f"prove() takes a claim such as 'e < n' or 'a == b', got the integer expression {claim}"
        )
    return claim


def _check_tiers(tiers: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(tiers)
    bad = [t for t in chosen if t not in TIERS]
    if bad:
        raise InvalidOperationError(
            f"unknown prover tier {bad[0]!r}; the tiers are {', '.join(TIERS)}"
        )
    return chosen


def prove(
    claim: Expr | str,
    ranges: RangesLike = None,
    *,
    rlimit: int = DEFAULT_RLIMIT,
    tiers: Iterable[str] = TIERS,
) -> Proof:
    """Decide ``claim`` for every point of ``ranges`` (see the module docstring).

    ``claim`` is a claim Expr or its text.  ``tiers`` restricts the tiers tried (a subset of
    :data:`TIERS`); ``rlimit`` is Z3's resource limit per query.  Bad input raises a
    :class:`~indexalg.errors.IndexAlgError`; an undecided claim is ``status == "unknown"``.
    """
    c = _as_claim(claim)
    r = as_ranges(ranges)
    chosen = _check_tiers(tiers)
    if isinstance(rlimit, bool) or not isinstance(rlimit, int) or rlimit < 1:
        raise InvalidOperationError(f"rlimit must be a positive int, got {rlimit!r}")
    start = time.perf_counter_ns()
    proof = _prove(c, r, chosen, rlimit)
    if proof.status == "unknown":
        STATS.unknown += 1
    else:
        STATS.record(proof.tier, time.perf_counter_ns() - start)
    return proof


def _prove(c: Expr, r: Ranges, tiers: tuple[str, ...], rlimit: int) -> Proof:
    empty = empty_domain(c, context_for(r))
    if empty is not None:
        return Proof(
            "vacuous",
            c,
            r,
            tier="interval",
            rlimit=rlimit,
            reason=f"the ranges admit no point: {empty}",
        )
    if type(c) is BoolConst:
        done = _decided(c, r, bool(c.payload), "literal", rlimit, "the claim is a literal", tiers)
        if done is not None:
            return done
    if "interval" in tiers or "congruence" in tiers:
        verdict, tier = decide(c, r)
        if verdict is not None and tier in tiers:
            done = _decided(c, r, verdict, tier, rlimit, f"decided by {tier} analysis", tiers)
            if done is not None:
                return done
    if "simplify" in tiers:
        try:
            s = simplify(c, r)
        except RewriteLimitError:  # a runaway rewrite is the simplifier's problem: go on
            s = c
        if type(s) is BoolConst:
            why = f"simplified to {s}"
            done = _decided(c, r, bool(s.payload), "simplify", rlimit, why, tiers)
            if done is not None:
                return done
    if "z3" in tiers:
        if not z3_installed():
            return Proof("unknown", c, r, rlimit=rlimit, reason=_NO_Z3)
        return _z3_prove(c, r, rlimit)
    return Proof("unknown", c, r, rlimit=rlimit, reason="no tier decided the claim")


def _decided(
    c: Expr, r: Ranges, verdict: bool, tier: str, rlimit: int, reason: str, tiers: tuple[str, ...]
) -> Proof | None:
    """A proof for a tier's verdict; a "false" verdict needs a confirmed counterexample
    (None when none is found, so that later tiers run).  Z3 looks for one only when "z3" is
    among ``tiers``: a caller that leaves it out never waits on (or imports) Z3."""
    if verdict:
        return Proof("proved", c, r, tier=tier, reason=reason, rlimit=rlimit)
    for point in _candidate_points(c, r):
        if _violates(c, point, r):
            return Proof(
                "disproved", c, r, tier=tier, counterexample=point, reason=reason, rlimit=rlimit
            )
    found = _z3_counterexample(c, r, rlimit) if "z3" in tiers and z3_installed() else None
    if found is not None:
        return Proof(
            "disproved",
            c,
            r,
            tier=tier,
            counterexample=found,
            reason=reason + "; counterexample from z3",
            rlimit=rlimit,
        )
    return None


# --- the Z3 tier --------------------------------------------------------------------------------

_NO_Z3 = (
    "no tier decided the claim, and the z3 tier needs z3, which is not installed "
    "(the optional extra indexalg[z3])"
)


def z3_installed() -> bool:
    """Whether Z3 (the optional extra ``indexalg[z3]``) can be imported; without it the z3
    tier answers nothing (see the module docstring)."""
    try:
        import z3  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class _Query:
    encoder: Any
    syms: tuple[Expr, ...]
    constraints: list[tuple[str, Any]]  # (comment, z3 claim)


def _range_constraints(enc: Any, syms: tuple[Expr, ...], r: Ranges) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for s in syms:
        lo, hi = r.get_bounds(s)
        out.extend(_bound_constraints(enc, s, enc.var(s), lo, hi))
    in_domain = set(syms)
    for fact, (lo, hi) in r.facts.items():
        if not fact.symbol_set <= in_domain:
            continue  # about symbols no point of the claim assigns: not an assumption here
        if any(b is not None and not b.symbol_set <= in_domain for b in (lo, hi)):
            continue
        out.append((f"range of {fact}", enc.defined(fact)))
        out.extend(_bound_constraints(enc, fact, enc.term(fact), lo, hi))
    return [(c, t) for c, t in out if not _is_true(t)]


def _bound_constraints(enc: Any, key: Expr, v: Any, lo: Bound, hi: Bound) -> list[tuple[str, Any]]:
    """``lo <= key <= hi`` (the sides given) for the Z3 term ``v`` of ``key``, each bound
    defined."""
    out: list[tuple[str, Any]] = []
    for bound, is_lo in ((lo, True), (hi, False)):
        if bound is None:
            continue
        b = enc.term(bound)
        out.append((f"range of {key}", enc.defined(bound)))
        out.append((f"{bound} <= {key}", b <= v) if is_lo else (f"{key} <= {bound}", v <= b))
    return out


def _is_true(t: Any) -> bool:
    import z3

    return bool(z3.is_true(t))


def _claim_query(c: Expr, r: Ranges) -> _Query:
    """Range constraints, ``defined(claim)`` and ``not claim``: unsat iff proved."""
    import z3

    from indexalg.interop.z3 import Z3Encoder

    enc = Z3Encoder(ctx=z3.Context())
    syms = domain_symbols(c, r)
    enc.declare(syms)
    constraints = _range_constraints(enc, syms, r)
    d = enc.defined(c)
    if not _is_true(d):
        constraints.append(("the claim is defined", d))
    constraints.append((f"negated claim: {c}", z3.Not(enc.term(c))))
    return _Query(enc, syms, constraints)


def _solve(q: _Query, rlimit: int) -> tuple[str, dict[str, int] | None, str]:
    """('unsat' | 'sat' | 'unknown', model point or None, reason)."""
    import z3

    from indexalg.interop.z3 import make_solver, model_int

    s = make_solver(rlimit, q.encoder.ctx)
    for _, t in q.constraints:
        s.add(t)
    res = s.check()
    if res == z3.unsat:
        return "unsat", None, ""
    if res == z3.sat:
        m = s.model()
        point = {str(sym.payload): model_int(m, q.encoder.var(sym)) for sym in q.syms}
        return "sat", point, ""
    return "unknown", None, str(s.reason_unknown())


def _z3_counterexample(c: Expr, r: Ranges, rlimit: int) -> dict[str, int] | None:
    status, point, _ = _solve(_claim_query(c, r), rlimit)
    if status == "sat" and point is not None and _violates(c, point, r):
        return point
    return None


def _z3_prove(c: Expr, r: Ranges, rlimit: int) -> Proof:
    q = _claim_query(c, r)
    status, point, why = _solve(q, rlimit)
    if status == "unsat":
        ranges_only = _Query(q.encoder, q.syms, q.constraints[:-1])
        if _solve(ranges_only, rlimit)[0] == "unsat":
            return Proof(
                "vacuous",
                c,
                r,
                tier="z3",
                rlimit=rlimit,
                reason="z3: the ranges admit no point where the claim is defined",
            )
        return Proof(
            "proved", c, r, tier="z3", reason="z3: no counterexample exists", rlimit=rlimit
        )
    if status == "sat" and point is not None:
        if _violates(c, point, r):
            return Proof(
                "disproved",
                c,
                r,
                tier="z3",
                counterexample=point,
                reason="z3 found a counterexample",
                rlimit=rlimit,
            )
        return Proof(
            "unknown",
            c,
            r,
            rlimit=rlimit,
            reason=f"z3 model {point} was not confirmed by the evaluator",
        )
    return Proof("unknown", c, r, rlimit=rlimit, reason=f"z3: {why or 'unknown'} (rlimit {rlimit})")


def smtlib_query(
    claim: Expr | str, ranges: RangesLike = None, *, rlimit: int = DEFAULT_RLIMIT
) -> str:
    """The SMT-LIB 2 script of the Z3 tier's query for ``claim`` under ``ranges``."""
    c = _as_claim(claim)
    r = as_ranges(ranges)
    q = _claim_query(c, r)
    lines = [
        f"; indexalg prove: {c}",
        "; ranges: " + (", ".join(_range_text(s, r) for s in q.syms if s in r) or "none"),
        "; unsat: the claim is proved; sat: the model is a counterexample",
        "(set-option :produce-models true)",
        "(set-option :smt.random_seed 0)",
        f"(set-option :rlimit {rlimit})",
    ]
    lines += [f"(declare-const {q.encoder.name_of(s)} Int)" for s in q.syms]
    for comment, t in q.constraints:
        lines.append(f"; {comment}")
        lines.append(f"(assert {t.sexpr()})")
    lines += ["(check-sat)", "; after sat: (get-model) gives the counterexample"]
    return "\n".join(lines) + "\n"


def _range_text(s: Expr, r: Ranges) -> str:
    lo, hi = r.get_bounds(s)
    return f"{s} in [{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"


# --- exact bounds --------------------------------------------------------------------------------


def exact_bounds(
    e: Expr | str, ranges: RangesLike = None, *, rlimit: int = DEFAULT_RLIMIT
) -> tuple[Bound, Bound]:
    """The tightest inclusive bounds ``(lo, hi)`` of ``e`` over the points of ``ranges``
    where it is defined, through Z3's optimiser.

    A side Z3 finds finite comes back as an :class:`~indexalg.expr.Integer` and is checked
    (no point goes beyond it).  Where Z3 finds the side unbounded, or cannot decide within
    ``rlimit``, the interval analysis's bound is returned instead (symbolic in size symbols,
    or None when unbounded), so the answer is never looser than :func:`indexalg.analysis.bounds`.
    """
    if isinstance(e, str):
        e = parse(e)
    if not isinstance(e, Expr) or e.is_bool:
        raise ExprTypeError(f"exact_bounds() takes an integer expression, got {e!r}")
    r = as_ranges(ranges)

    fallback = bounds(e, r)
    if not e.free_symbols:
        return e, e
    lo = _optimise(e, r, rlimit, maximise=False)
    hi = _optimise(e, r, rlimit, maximise=True)
    return (
        integer(lo) if lo is not None else fallback[0],
        integer(hi) if hi is not None else fallback[1],
    )


def _optimise(e: Expr, r: Ranges, rlimit: int, *, maximise: bool) -> int | None:
    """The checked optimum of one side, or None (unbounded or undecided).

    Small numeric domains are enumerated with the evaluator.  Otherwise a galloping then
    bisecting search asks Z3's solver (which honours ``rlimit`` on every query, unlike its
    optimiser) whether the expression can go beyond a candidate; at most
    :data:`_MAX_OPT_QUERIES` queries and :data:`_RLIMIT_FACTOR` times ``rlimit`` of solver
    resources per side, so the answer comes in bounded time and is None (the caller keeps
    the analysis's bound) when the search does not close.
    """
    syms = domain_symbols(e, r)
    small = _enumerate_optimum(e, syms, r, maximise=maximise)
    if small is not _TOO_LARGE:
        return small  # type: ignore[return-value]
    search = _SideSearch(e, syms, r, rlimit, maximise)
    first = search.first()
    if first is None:
        return None
    best = first
    sign = 1 if maximise else -1
    if search.beyond(sign * _MAX_EXACT_MAGNITUDE, value=False) is True:
        return None  # unbounded on this side: one query, not a gallop through 2**256
    # gallop: find a bound beyond which no value lies
    step = 1
    while True:
        probe = best + sign * (step - 1)
        got = search.beyond(probe)
        if got is None:
            return None
        if got is False:
            limit = probe  # nothing beyond probe; best is reachable
            break
        best = int(got)
        step *= 2
    # bisect between best (reachable) and limit (nothing beyond)
    while best != limit:
        mid = (best + limit) // 2 if maximise else -((-best - limit) // 2)
        if mid == best:
            mid = best + sign
        got = search.beyond(mid - sign)
        if got is None:
            return None
        if got is False:
            limit = mid - sign
        else:
            best = int(got)
    return best


class _SideSearch:
    """One side's solver: the ranges, ``defined(e)`` and a query "can e go beyond k?"."""

    def __init__(
        self, e: Expr, syms: tuple[Expr, ...], r: Ranges, rlimit: int, maximise: bool
    ) -> None:
        import z3

        from indexalg.interop.z3 import Z3Encoder, make_solver

        self.z3 = z3
        enc = Z3Encoder(ctx=z3.Context())
        enc.declare(syms)
        facts = [t for _, t in _range_constraints(enc, syms, r)]
        d = enc.defined(e)
        if not _is_true(d):
            facts.append(d)
        self.term = enc.term(e)
        self.solver = make_solver(rlimit, enc.ctx)
        for f in facts:
            self.solver.add(f)
        self.rlimit = rlimit
        self.maximise = maximise
        self.queries = _MAX_OPT_QUERIES
        self.deadline = time.monotonic() + _SIDE_SECONDS
        self.solver.set("timeout", int(_SIDE_SECONDS * 1000))

    def value(self) -> int | None:
        """e's value in the model; None past :data:`_MAX_EXACT_MAGNITUDE` (Z3 picks values
        of thousands of digits on an unbounded side: call that side unknown)."""
        from indexalg.interop.z3 import model_int

        try:
            v = model_int(self.solver.model(), self.term)
        except (ValueError, IndexAlgError):
            return None
        return v if abs(v) <= _MAX_EXACT_MAGNITUDE else None

    def first(self) -> int | None:
        """Some value of e, or None (no defined point, or unreadable)."""
        if self.solver.check() != self.z3.sat:
            return None
        return self.value()

    def beyond(self, k: int, *, value: bool = True) -> int | bool | None:
        """A value of e strictly beyond ``k`` (sat; True when ``value`` is False), False
        (unsat) or None (unknown, or the side's query, resource or time budget spent)."""
        s = self.solver
        if not self._budget_left():
            return None
        self.queries -= 1
        s.push()
        s.add(self.term > k if self.maximise else self.term < k)
        res = s.check()
        try:
            if res == self.z3.unsat:
                return False
            if res != self.z3.sat:
                return None
            return self.value() if value else True
        finally:
            s.pop()

    def _budget_left(self) -> bool:
        """Queries, solver resources (read every few queries: reading Z3's statistics is
        itself costly) and wall-clock time left; the next query gets the time that is left
        as Z3's own timeout, so no single check outlasts the side's budget."""
        if self.queries <= 0:
            return False
        left = self.deadline - time.monotonic()
        if left <= 0:
            return False
        used = _MAX_OPT_QUERIES - self.queries
        if used and used % 8 == 0 and _rlimit_spent(self.solver) > _RLIMIT_FACTOR * self.rlimit:
            return False
        self.solver.set("timeout", max(1, int(left * 1000)))
        return True


#: The most solver queries one side of :func:`exact_bounds` may make.
_MAX_OPT_QUERIES = 160

#: One side of :func:`exact_bounds` stops (and keeps the analysis's bound) once its
#: solver has spent this many times ``rlimit`` in all: a deterministic time limit.
_RLIMIT_FACTOR = 4

#: Wall-clock seconds one side of :func:`exact_bounds` may take, solver set-up included:
#: a safety net under the resource limit (whose cost in time varies from term to term by
#: orders of magnitude on non-linear ones).  A side that runs out keeps the analysis's
#: bound: sound, and possibly less tight on a slower machine (the one place where the
#: answer can depend on the machine's speed; every rlimit-bounded answer does not).
_SIDE_SECONDS = 0.7

#: Values beyond this magnitude end the search on that side (its bound is kept).
_MAX_EXACT_MAGNITUDE = 2**256


def _rlimit_spent(solver: Any) -> int:
    """The resource count the solver has used so far (cumulative over its checks)."""
    stats = solver.statistics()
    names: list[str] = stats.keys()
    if "rlimit count" not in names:
        return 0
    spent: int = stats.get_key_value("rlimit count")
    return spent


#: The most points :func:`exact_bounds` enumerates with the evaluator instead of Z3.
_MAX_ENUMERATED = 4096

_TOO_LARGE = object()


def _enumerate_optimum(e: Expr, syms: tuple[Expr, ...], r: Ranges, *, maximise: bool) -> object:
    """The optimum over a small domain by evaluation; None when no point is defined;
    ``_TOO_LARGE`` when the domain is not small.  A symbol with a symbolic range
    (``x in [s0 - 3, 0]``) is enumerated over its numeric interval and the points outside
    the ranges (or outside a range keyed by an expression) are skipped."""
    spans: list[tuple[str, int, int]] = []
    size = 1
    ctx = None
    for s in syms:
        lo, hi = r.get_bounds(s)
        if type(lo) is Integer and type(hi) is Integer:
            a, b = lo.payload, hi.payload
        else:
            ctx = ctx or context_for(r)
            na, nb = interval(s, ctx)
            if type(na) is not int or type(nb) is not int:
                return _TOO_LARGE
            a, b = na, nb
        size *= max(b - a + 1, 0)
        if size > _MAX_ENUMERATED:
            return _TOO_LARGE
        spans.append((s.payload, a, b))
    check = ctx is not None or bool(r.facts)
    best: int | None = None
    for point in _points(spans):
        if check and not in_ranges(point, r):
            continue
        try:
            v = _int_value(e, point)
        except IndexAlgError:
            continue  # undefined there
        if best is None or (v > best if maximise else v < best):
            best = v
    return best


def _points(spans: list[tuple[str, int, int]]) -> Iterator[dict[str, int]]:
    if not spans:
        yield {}
        return
    name, a, b = spans[0]
    for rest in _points(spans[1:]):
        for v in range(a, b + 1):
            yield {**rest, name: v}
