"""The rule verifier: every rewrite rule proven sound with Z3, and the rule set checked for
termination with a reduction order.

Soundness.  A rule ``lhs -> rhs when C`` is *sound* when, for all integer values of its
pattern variables (constants included, as symbolic unknowns),

    C ∧ defined(C) ∧ defined(lhs)  ⇒  defined(rhs) ∧ lhs = rhs

where ``defined`` is the evaluator's error semantics (:meth:`Z3Encoder.defined`: no zero
divisor, ModularIndexing ``d, m >= 1``).  SMT-LIB division is total, so ``defined(rhs)`` is
what catches a rule that introduces a division by zero.  A non-constant pattern variable
stands for any expression, possibly an undefined one: it carries a definedness flag of its
own, so a rule whose right side evaluates a subexpression the left side did not is caught.

Z3 decides linear integer arithmetic, but rules over symbolic divisors and moduli
(``Mod(Mod(x, y), z) -> Mod(x, z) when divides(z, y)``) are nonlinear, and Z3 often answers
*unknown* within its resource limit.  The verifier then proves the rule for every value of
its *nonlinear variables* (constants, and variables in a divisor, modulus or product
position) in ``[-B, B]``, with the other variables still symbolic (so the proof covers all
their values), and marks it **bounded** with that B: ``bounded_range`` (64), halved while the
value combinations that satisfy the rule's condition exceed a few thousand.  With every
nonlinear variable fixed, a case is decided exactly, either by periodicity (a quasi-linear
difference ``lhs - rhs`` vanishes everywhere iff it vanishes on one period box and does not
drift) or by Z3, where the query is linear.

A failed proof comes with a counterexample, confirmed with :func:`indexalg.evaluate`: the
rule's sides are instantiated with symbols named after the pattern variables, and at the
point found ``when`` holds, ``lhs`` evaluates, and ``rhs`` raises or differs.

Termination.  The measure of an expression is ``(D, W, N)``, compared lexicographically:
``D`` the number of non-polynomial nodes (FloorDiv, Mod, ModularIndexing, CeilDiv, CleanDiv,
Min, Max, Where), ``W`` their total weight (:data:`WEIGHTS`: CleanDiv 5, Mod 4, CeilDiv and
ModularIndexing 3, FloorDiv 2, Min/Max/Where 1), ``N`` the number of nodes, all counted on the
tree (shared subtrees once per occurrence), with a subtree made of integer literals and
constant pattern variables only counted as one literal (it folds when the rule fires).
Each component is additive over subtrees, so the order is closed under contexts.  A rule
*decreases* when its right side's skeleton (pattern variables left out) measures strictly
less than the left side's and no non-constant pattern variable occurs more often on the right
than on the left: then every instance of the right side measures less than the instance of
the left side, and a rule set whose rules all decrease terminates (the order is well-founded
and closed under contexts).
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from indexalg.errors import IndexAlgError, InvalidOperationError
from indexalg.evaluate import evaluate
from indexalg.expr import (
    OP_RECORDS,
    And,
    CeilDiv,
    CleanDiv,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Mod,
    ModularIndexing,
    Ne,
    Symbol,
    Where,
    Wild,
    symbols,
)
from indexalg.limits import RULE_RLIMIT as DEFAULT_RLIMIT
from indexalg.poly import BINARY_DIVISIONS
from indexalg.rules import ALL
from indexalg.rules.base import Rule, RuleSet, pattern_vars

__all__ = [
    "RuleVerdict",
    "Measure",
    "verify_rule",
    "verify_rules",
    "measure",
    "decreases",
    "WEIGHTS",
    "load_rules",
    "DEFAULT_RLIMIT",
    "DEFAULT_BOUNDED_RANGE",
    "summary",
]

RuleStatus = Literal["proved", "bounded", "failed", "unknown"]

#: Constants range over [-N, N] when a rule is proven "bounded".
DEFAULT_BOUNDED_RANGE = 64

#: Node classes counted in the first component of the reduction order: the ops whose record
#: (:mod:`indexalg.ops`) gives them a weight.
NONPOLYNOMIAL: tuple[type[Expr], ...] = tuple(cls for cls, op in OP_RECORDS if op.weight)


# --- termination ------------------------------------------------------------------------------

#: ``(non-polynomial nodes, their total weight, nodes)``, compared lexicographically.
Measure = tuple[int, int, int]

#: Weights of the second component, from the ops' records: a rule may trade an operation for a
#: lighter one (``CleanDiv`` -> ``FloorDiv``, ``Mod`` -> ``ModularIndexing`` -> ``FloorDiv``).
WEIGHTS: dict[type[Expr], int] = {cls: op.weight for cls, op in OP_RECORDS if op.weight}


def _is_const_only(e: Expr) -> bool:
    """No symbol and no non-constant pattern variable: the subtree folds to a literal."""
    return not any(type(n) is Symbol or (type(n) is Wild and not n.payload[1]) for n in e.walk())


def _skeleton(e: Expr, occurrences: dict[Expr, int]) -> Measure:
    """Measure of ``e`` without its non-constant pattern variables (counted apart)."""
    if type(e) is Wild and not e.payload[1]:
        occurrences[e] = occurrences.get(e, 0) + 1
        return 0, 0, 0
    if e.args and _is_const_only(e):
        return 0, 0, 1  # folds to a literal when the rule fires
    w = WEIGHTS.get(type(e), 0)
    d, weight, n = (1 if w else 0), w, 1
    for a in e.args:
        da, wa, na = _skeleton(a, occurrences)
        d += da
        weight += wa
        n += na
    return d, weight, n


def measure(e: Expr) -> tuple[Measure, dict[str, int]]:
    """The skeleton measure of a pattern and its variables' occurrence counts (by name)."""
    occ: dict[Expr, int] = {}
    m = _skeleton(e, occ)
    return m, {str(w.payload[0]): k for w, k in sorted(occ.items(), key=lambda kv: kv[0].payload)}


def decreases(rule: Rule) -> tuple[bool, str]:
    """Whether ``rule`` strictly decreases the reduction order, and why (or why not)."""
    ml, occ_l = measure(rule.lhs)
    mr, occ_r = measure(rule.rhs)
    grown = [v for v, k in occ_r.items() if k > occ_l.get(v, 0)]
    if grown:
        return False, f"{', '.join(grown)} occurs more often on the right than on the left"
    if mr < ml:
        return True, f"{mr} < {ml}"
    return False, f"right side measures {mr}, left side {ml} (not smaller)"


# --- soundness ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleVerdict:
    """The verifier's answer for one rule.

    ``status``: ``"proved"`` (for all integers), ``"bounded"`` (for every constant in
    ``[-bound, bound]``), ``"failed"`` (``counterexample`` holds pattern-variable values,
    confirmed by the evaluator) or ``"unknown"`` (Z3 could not decide within its limit).
    ``decreasing`` / ``order`` report the termination check; ``seconds`` the time spent.
    """

    rule: Rule
    status: RuleStatus
    seconds: float
    decreasing: bool
    order: str
    counterexample: dict[str, int] | None = None
    bound: int | None = None
    reason: str = ""

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def sound(self) -> bool:
        """Proved, or proved for every constant in the stated range."""
        return self.status in ("proved", "bounded")

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.rule.name,
            "rule": str(self.rule),
            "origin": self.rule.origin,
            "status": self.status,
            "seconds": round(self.seconds, 4),
            "decreasing": self.decreasing,
            "order": self.order,
            "counterexample": self.counterexample,
            "bound": self.bound,
            "reason": self.reason,
        }


@dataclass
class _RuleQuery:
    encoder: Any
    wilds: tuple[Expr, ...]
    consts: tuple[Expr, ...]
    facts: list[Any]  # when, defined(when), defined(lhs), not(defined(rhs) and lhs == rhs)


def _rule_query(rule: Rule) -> _RuleQuery:
    import z3

    from indexalg.interop.z3 import Z3Encoder

    enc = Z3Encoder(wild_definedness=True, flatten_divisions=True, ctx=z3.Context())
    wilds = pattern_vars(rule.lhs)
    enc.declare(wilds)
    lhs, rhs = enc.term(rule.lhs), enc.term(rule.rhs)
    facts = [
        enc.term(rule.when),
        enc.defined(rule.when),
        enc.defined(rule.lhs),
        z3.Not(z3.And(enc.defined(rule.rhs), lhs == rhs)),
    ]
    consts = tuple(w for w in wilds if w.payload[1])
    return _RuleQuery(enc, wilds, consts, facts)


#: A tactic pipeline tried after the default solver: it proves some nonlinear rules the
#: default strategy gives up on (substitution of solved equalities before the search).
_TACTIC = ("simplify", "purify-arith", "propagate-values", "solve-eqs", "smt")


def _solver(rlimit: int, ctx: Any, *, tactic: bool = False) -> Any:
    import z3

    from indexalg.interop.z3 import make_solver

    if not tactic:
        return make_solver(rlimit, ctx)
    s = z3.Then(*_TACTIC, ctx=ctx).solver()
    s.set("rlimit", int(rlimit))
    s.set("random_seed", 0)
    return s


def _check(facts: list[Any], rlimit: int, *, tactic: bool = False) -> tuple[str, Any]:
    import z3

    s = _solver(rlimit, facts[0].ctx, tactic=tactic)
    for f in facts:
        s.add(f)
    r = s.check()
    if r == z3.unsat:
        return "unsat", None
    if r == z3.sat:
        return "sat", s.model()
    return "unknown", str(s.reason_unknown())


def _instance_names(wilds: tuple[Expr, ...]) -> dict[Expr, str]:
    names: dict[Expr, str] = {}
    for w in wilds:
        base = str(w.payload[0])
        names[w] = base if base.isidentifier() else f"w_{len(names)}"
    return names


def _confirm(rule: Rule, q: _RuleQuery, model: Any) -> tuple[dict[str, int], str] | None:
    """The counterexample as values by pattern-variable name, checked with the evaluator;
    None when the evaluator does not confirm it."""
    import z3

    from indexalg.interop.z3 import model_int

    names = _instance_names(q.wilds)
    env: dict[str, int] = {}
    mapping: dict[Expr, Expr] = {}
    undefined: list[str] = []
    for w in q.wilds:
        name = names[w]
        (sym,) = symbols(name)
        env[name] = model_int(model, q.encoder.var(w))
        flag = q.encoder.wild_flags.get(w)
        if flag is not None and z3.is_false(model.eval(flag, model_completion=True)):
            # an undefined instance: x // 0 (the evaluator raises on it)
            (zero,) = symbols(f"{name}__zero")
            env[f"{name}__zero"] = 0
            mapping[w] = FloorDiv.make(sym, zero)
            undefined.append(name)
        else:
            mapping[w] = sym
    try:
        when = rule.when.subs(mapping)
        lhs = rule.lhs.subs(mapping)
        rhs = rule.rhs.subs(mapping)
    except IndexAlgError:
        return None
    try:
        if evaluate(when, env) is not True:
            return None
        left = evaluate(lhs, env)
    except IndexAlgError:
        return None
    point = {names[w]: env[names[w]] for w in q.wilds}
    note = f" ({', '.join(undefined)} undefined)" if undefined else ""
    try:
        right = evaluate(rhs, env)
    except IndexAlgError as err:
        return point, f"lhs = {left}, rhs raises {type(err).__name__}{note}"
    if right == left:
        return None
    return point, f"lhs = {left}, rhs = {right}{note}"


def verify_rule(
    rule: Rule,
    *,
    rlimit: int = DEFAULT_RLIMIT,
    bounded_range: int = DEFAULT_BOUNDED_RANGE,
) -> RuleVerdict:
    """Prove one rule sound (see the module docstring) and check that it decreases."""
    if not isinstance(rule, Rule):
        raise InvalidOperationError(f"verify_rule() takes a Rule, got {type(rule).__name__}")
    start = time.perf_counter()
    ok, order = decreases(rule)
    status, cex, bound, reason = _soundness(rule, rlimit, bounded_range)
    return RuleVerdict(
        rule=rule,
        status=status,
        seconds=time.perf_counter() - start,
        decreasing=ok,
        order=order,
        counterexample=cex,
        bound=bound,
        reason=reason,
    )


def _soundness(
    rule: Rule, rlimit: int, bounded_range: int
) -> tuple[RuleStatus, dict[str, int] | None, int | None, str]:
    q = _rule_query(rule)
    res, payload = _check(q.facts, rlimit)
    if res == "unknown":
        res, payload = _check(q.facts, rlimit, tactic=True)
    if res == "unsat":
        return "proved", None, None, ""
    if res == "sat":
        return _failed(rule, q, payload, "")
    return _bounded(rule, q, rlimit, bounded_range, f"z3: {payload} (rlimit {rlimit})")


def _failed(
    rule: Rule, q: _RuleQuery, model: Any, prefix: str
) -> tuple[RuleStatus, dict[str, int] | None, int | None, str]:
    confirmed = _confirm(rule, q, model)
    if confirmed is None:
        return "unknown", None, None, prefix + "z3 found a model the evaluator does not confirm"
    point, detail = confirmed
    return "failed", point, None, prefix + detail


# --- bounded proofs ------------------------------------------------------------------------------

#: Most cases (value combinations) a bounded proof checks with Z3, and most partial
#: assignments it visits while enumerating them.
_CASE_LIMIT = 3_000
_VISIT_LIMIT = 400_000


def _nonlinear_vars(rule: Rule) -> tuple[Expr, ...]:
    """The pattern variables to enumerate: constants, and variables in a divisor or modulus
    position or in a product with another pattern variable.  With them fixed, the query is
    linear (the other variables stay symbolic: the proof still covers all their values)."""
    found: dict[Expr, None] = {}

    def add_wilds(e: Expr) -> None:
        for n in pattern_vars(e):
            found[n] = None

    for side in (rule.lhs, rule.rhs, rule.when):
        for n in side.walk():
            if type(n) is Wild and n.payload[1]:
                found[n] = None
            elif type(n) in BINARY_DIVISIONS:
                add_wilds(n.args[1])
            elif type(n) is ModularIndexing:
                add_wilds(n.args[1])
                add_wilds(n.args[2])
            elif n.args and type(n).__name__ == "Mul":
                with_vars = [f for f in n.args if pattern_vars(f)]
                if len(with_vars) > 1:
                    for f in with_vars:
                        add_wilds(f)
    return tuple(sorted(found, key=lambda w: w.payload))


def _preconditions(rule: Rule, over: tuple[Expr, ...]) -> list[Expr]:
    """Claims over the variables ``over`` alone that every counterexample satisfies: the
    conjuncts of ``when`` and the definedness of the left side's divisors (outside ``Where``
    branches), where they mention no other variable.  They prune the enumeration cheaply."""

    allowed = set(over)

    def only_over(e: Expr) -> bool:
        return not any(type(n) is Symbol for n in e.walk()) and set(pattern_vars(e)) <= allowed

    conjuncts = rule.when.args if type(rule.when) is And else (rule.when,)
    out = [c for c in conjuncts if only_over(c)]
    stack = [rule.lhs]
    while stack:
        n = stack.pop()
        if type(n) is Where:
            stack.append(n.args[0])
            continue
        if type(n) in BINARY_DIVISIONS and only_over(n.args[1]):
            out.append(Ne.make(n.args[1], 0))
        if type(n) is ModularIndexing:
            out += [Le.make(1, a) for a in n.args[1:] if only_over(a)]
        stack.extend(n.args)
    return list(dict.fromkeys(out))


def _holds(claims: list[Expr], env: dict[str, int]) -> bool:
    try:
        return all(evaluate(c, env) is True for c in claims)
    except IndexAlgError:
        return False


def _cases(
    order: tuple[Expr, ...], names: dict[Expr, str], pre: list[Expr], bound: int
) -> list[tuple[int, ...]] | None:
    """Every assignment of ``order`` in [-bound, bound] satisfying the preconditions (each
    checked as soon as its variables are assigned); None past the case or visit limit."""
    where = {v: i for i, v in enumerate(order)}
    mine = [p for p in pre if all(w in where for w in pattern_vars(p))]
    sym_pre = [(p, max((where[w] for w in pattern_vars(p)), default=0)) for p in mine]
    renamed = {w: symbols(names[w])[0] for w in order}
    by_level: list[list[Expr]] = [[] for _ in order]
    for p, level in sym_pre:
        by_level[level].append(p.subs(renamed))
    domains: list[list[int]] = []
    for i, v in enumerate(order):
        single = [p for p in by_level[i] if p.free_symbols in ((), (renamed[v],))]
        by_level[i] = [p for p in by_level[i] if p not in single]
        domains.append([x for x in range(-bound, bound + 1) if _holds(single, {names[v]: x})])
    out: list[tuple[int, ...]] = []
    visits = [0]
    env: dict[str, int] = {}

    def go(i: int, acc: tuple[int, ...]) -> bool:
        if i == len(order):
            out.append(acc)
            return len(out) <= _CASE_LIMIT
        name = names[order[i]]
        for x in domains[i]:
            visits[0] += 1
            if visits[0] > _VISIT_LIMIT:
                return False
            env[name] = x
            if by_level[i] and not _holds(by_level[i], env):
                continue
            if not go(i + 1, (*acc, x)):
                return False
        env.pop(name, None)
        return True

    return out if go(0, ()) else None


def _period(e: Expr) -> int | None:
    """A period T of ``e`` as a quasi-linear function of its symbols: e(x + T·u) - e(x) is
    constant for every unit vector u.  Sums, products with at most one non-literal factor and
    divisions / remainders by literals keep that shape (⌊g/b⌋ has period T·|b| when g has
    period T); anything else (Min, Max, Where, x*y) gives None."""
    t = type(e)
    if t is Integer or t is Symbol:
        return 1
    if t.__name__ == "Add":
        return _lcm_all([_period(a) for a in e.args])
    if t.__name__ == "Mul":
        if sum(1 for a in e.args if a.free_symbols) > 1:
            return None
        return _lcm_all([_period(a) for a in e.args])
    if t in BINARY_DIVISIONS or t is ModularIndexing:
        inner = _period(e.args[0])
        lits = [a.payload for a in e.args[1:] if type(a) is Integer]
        if inner is None or len(lits) != len(e.args) - 1 or 0 in lits:
            return None
        for v in lits:
            inner *= abs(v)
        return inner
    return None


def _lcm_all(periods: list[int | None]) -> int | None:
    import math

    out = 1
    for p in periods:
        if p is None:
            return None
        out = math.lcm(out, p)
    return out


#: Most points the periodic check evaluates per case.
_PERIODIC_POINTS = 20_000


def _compiled(e: Expr) -> Callable[[dict[str, int]], int]:
    """A fast evaluator for the quasi-linear expressions :func:`_period` accepts (literal,
    non-zero divisors; ModularIndexing's d, m >= 1 checked by its constructor)."""
    t = type(e)
    if t is Integer:
        v: int = e.payload
        return lambda env: v
    if t is Symbol:
        name: str = e.payload
        return lambda env: env[name]
    parts = [_compiled(a) for a in e.args]
    c: int = e.payload if t.__name__ in ("Add", "Mul") else 0
    if t.__name__ == "Add":
        return lambda env: c + sum(f(env) for f in parts)
    if t.__name__ == "Mul":

        def product(env: dict[str, int]) -> int:
            out = c
            for f in parts:
                out *= f(env)
            return out

        return product
    a = parts[0]
    b = e.args[1].payload
    if t is FloorDiv or t is CleanDiv:
        return lambda env: a(env) // b
    if t is Mod:
        return lambda env: a(env) % b
    if t is CeilDiv:
        return lambda env: -((-a(env)) // b)
    m = e.args[2].payload
    return lambda env: (a(env) // b) % m


def _periodic_case(rule: Rule, q: _RuleQuery, env: dict[str, int]) -> tuple[str, Any] | None:
    """Decide a case exactly without Z3 when its instance is quasi-linear (:func:`_period`):
    ``lhs - rhs`` then has a period T with ``D(x + T·u) = D(x) + δ_u``, so it vanishes
    everywhere iff every δ_u is 0 and it vanishes on the box [0, T)^k.  Returns ("unsat",
    None), ("sat", point) or None (not applicable: Z3 decides the case)."""
    import itertools

    if rule.lhs.is_bool:
        return None
    names = _instance_names(q.wilds)
    mapping: dict[Expr, Expr] = {}
    free: list[str] = []
    for w in q.wilds:
        if names[w] in env:
            mapping[w] = Integer(env[names[w]])
        else:
            mapping[w] = symbols(names[w])[0]
            free.append(names[w])
    try:
        when = rule.when.subs(mapping)
        lhs = rule.lhs.subs(mapping)
        rhs = rule.rhs.subs(mapping)
    except IndexAlgError:
        return None  # e.g. a literal ModularIndexing modulus below 1: left to Z3
    if when.free_symbols:
        return None
    t = _lcm_all([_period(lhs), _period(rhs)])
    if t is None or t ** len(free) > _PERIODIC_POINTS:
        return None
    origin = dict.fromkeys(free, 0)
    try:
        if evaluate(when, {}) is not True:
            return "unsat", None
        evaluate(lhs, origin)
    except IndexAlgError:
        return "unsat", None  # the left side is undefined at every point (literal divisors)
    try:
        evaluate(rhs, origin)
    except IndexAlgError:
        return "sat", {**env, **origin}
    left, right = _compiled(lhs), _compiled(rhs)
    for point in itertools.chain(
        itertools.product(range(t), repeat=len(free)),
        [tuple(t if j == i else 0 for j in range(len(free))) for i in range(len(free))],
    ):
        at = dict(zip(free, point))
        if left(at) != right(at):
            return "sat", {**env, **at}
    return "unsat", None


def _decide_case(solver: Any, f: Any, fixed: list[Any], rlimit: int) -> tuple[str, Any]:
    """One case with Z3: the incremental solver first (fast), then fresh solvers with more
    room (the incremental one skips preprocessing)."""
    import z3

    solver.push()
    solver.add(f, *fixed)
    r = solver.check()
    model = solver.model() if r == z3.sat else None
    solver.pop()
    if r == z3.unsat:
        return "unsat", None
    if r == z3.sat:
        return "sat", model
    res, payload = _check([f, *fixed], 10 * rlimit)
    if res == "unknown":
        res, payload = _check([f, *fixed], rlimit, tactic=True)
    return res, payload


def _bounded(
    rule: Rule, q: _RuleQuery, rlimit: int, bound: int, why: str
) -> tuple[RuleStatus, dict[str, int] | None, int | None, str]:
    """Prove the rule for every value of its nonlinear variables (:func:`_nonlinear_vars`) in
    [-B, B]; B is ``bound``, halved until the cases fit the limit (B >= 4).  With every
    nonlinear variable fixed, a case is decided exactly by :func:`_periodic_case` where it
    applies, otherwise by Z3 (the query is linear then, in the usual case)."""
    import z3

    order = _nonlinear_vars(rule)
    if not order:
        return "unknown", None, None, why + "; no variables to bound"
    pre = _preconditions(rule, order)
    counts = {v: sum(1 for p in pre if v in pattern_vars(p)) for v in order}
    order = tuple(sorted(order, key=lambda v: (-counts[v], v.payload)))
    names = _instance_names(order)
    b = bound
    cases = _cases(order, names, pre, b)
    while cases is None and b > 4:
        b //= 2
        cases = _cases(order, names, pre, b)
    listed = ", ".join(names[v] for v in order)
    if cases is None:
        return "unknown", None, None, f"{why}; too many cases for {listed} even in [-{b}, {b}]"
    prefix = f"{listed} in [-{b}, {b}]: "
    ctx = q.encoder.ctx
    base = z3.And(*q.facts)
    variables = [q.encoder.var(v) for v in order]
    solver = _solver(rlimit, ctx)  # incremental: push/pop per case is ~5x faster than new solvers
    for case in cases:
        env = {names[v]: x for v, x in zip(order, case)}
        quick = _periodic_case(rule, q, env)
        if quick is not None and quick[0] == "unsat":
            continue
        pairs = [(x, z3.IntVal(v, ctx)) for x, v in zip(variables, case)]
        f = z3.simplify(z3.substitute(base, *pairs))
        if z3.is_false(f):
            continue
        res, payload = _decide_case(solver, f, [x == v for x, v in zip(variables, case)], rlimit)
        if res == "sat":
            return _failed(rule, q, payload, prefix)
        if res != "unsat":
            point = ", ".join(f"{k}={x}" for k, x in env.items())
            return "unknown", None, None, f"{why}; {prefix}z3 unknown at {point}"
    return "bounded", None, b, f"proved for {prefix.rstrip(': ')} ({len(cases)} cases); {why}"


# --- rule sets -------------------------------------------------------------------------------


def _default_rules() -> Iterable[Rule]:
    rules: Iterable[Rule] = ALL
    return rules


def verify_rules(
    rules: RuleSet | Iterable[Rule] | None = None,
    *,
    rlimit: int = DEFAULT_RLIMIT,
    bounded_range: int = DEFAULT_BOUNDED_RANGE,
) -> list[RuleVerdict]:
    """Verify every rule (default: :data:`indexalg.rules.ALL`), in order."""
    if isinstance(bounded_range, bool) or not isinstance(bounded_range, int) or bounded_range < 1:
        raise InvalidOperationError(f"bounded_range must be a positive int, got {bounded_range!r}")
    chosen = _default_rules() if rules is None else rules
    return [verify_rule(r, rlimit=rlimit, bounded_range=bounded_range) for r in chosen]


def load_rules(source: str) -> list[Rule]:
    """The rules of a user's rule module: a dotted module name or a ``.py`` file path,
    exposing ``RULES`` (a :class:`RuleSet` or an iterable of :class:`Rule`)."""
    module: Any
    path = Path(source)
    if source.endswith(".py") or path.is_file():
        if not path.is_file():
            raise InvalidOperationError(f"rule module {source}: no such file")
        spec = importlib.util.spec_from_file_location(f"_indexalg_rules_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise InvalidOperationError(f"rule module {source}: cannot be loaded")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(source)
        except ModuleNotFoundError as err:
            raise InvalidOperationError(f"rule module {source}: {err}") from None
    rules = getattr(module, "RULES", None)
    if rules is None:
        raise InvalidOperationError(f"rule module {source} defines no RULES")
    if isinstance(rules, Rule):
        rules = [rules]
    try:
        out = list(rules)
    except TypeError:
        raise InvalidOperationError(
            f"rule module {source}: RULES must be a RuleSet or an iterable of Rule"
        ) from None
    bad = [r for r in out if not isinstance(r, Rule)]
    if bad:
        raise InvalidOperationError(f"rule module {source}: RULES holds a non-rule {bad[0]!r}")
    return out


def summary(verdicts: Iterable[RuleVerdict]) -> dict[str, int]:
    """Counts by status plus ``non_decreasing`` and ``total`` (keys sorted)."""
    counts = {"proved": 0, "bounded": 0, "failed": 0, "unknown": 0, "non_decreasing": 0, "total": 0}
    for v in verdicts:
        counts[v.status] += 1
        counts["total"] += 1
        if not v.decreasing:
            counts["non_decreasing"] += 1
    return dict(sorted(counts.items()))
