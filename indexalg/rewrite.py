"""The matcher and the rule engine's primitives.

Matching works on canonical forms: non-commutative nodes match child by child; ``Min``,
``Max``, ``Eq`` and ``Ne`` (commutative, arguments sorted) try every argument order; a
pattern product ``c*x`` (a constant pattern variable times a pattern) matches a product
with that coefficient.  Rules are indexed by the class of their left-hand side's root.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import permutations
from typing import TYPE_CHECKING

from indexalg import ops
from indexalg.analysis.context import OPEN
from indexalg.analysis.decide import holds_in
from indexalg.analysis.infinity import Infinity, Num
from indexalg.analysis.interval import interval
from indexalg.analysis.witness import witness_values
from indexalg.expr import (
    Add,
    And,
    BoolConst,
    Eq,
    Expr,
    Integer,
    Le,
    Lt,
    Max,
    Min,
    Mul,
    Ne,
    Not,
    Or,
    Symbol,
    Wild,
    _make_term,
    integer,
    mul,
)
from indexalg.poly import constant_difference

if TYPE_CHECKING:
    from indexalg.analysis.context import Context
    from indexalg.rules.base import Rule, RuleSet

__all__ = ["COMMUTATIVE_OPS", "match", "match_all", "instantiate", "condition_holds", "RuleIndex"]

Binding = dict[Expr, Expr]

#: Node classes whose operands a pattern matches in any order (:func:`match_all` tries each
#: order).  Add and Mul are commutative too; their canonical forms have a matcher of their own.
COMMUTATIVE_OPS: tuple[type[Expr], ...] = (Min, Max, Eq, Ne)


def match(p: Expr, s: Expr, b: Binding) -> bool:
    """Extend ``b`` so that ``p`` instantiated by ``b`` is ``s``; False if impossible (``b``
    may then hold partial bindings: callers pass a copy)."""
    tp = type(p)
    if tp is Wild:
        if s.is_bool:
            return False
        if p.payload[1] and type(s) is not Integer:
            return False
        prev = b.get(p)
        if prev is None:
            b[p] = s
            return True
        return prev is s
    if not p.args:
        return p is s
    if tp is Mul:
        return _match_mul(p, s, b)
    if tp is not type(s) or p.payload != s.payload or len(p.args) != len(s.args):
        return False
    if tp in COMMUTATIVE_OPS:
        if len(p.args) > 4:
            return False
        for order in permutations(s.args):
            trial = dict(b)
            if all(match(pa, sa, trial) for pa, sa in zip(p.args, order)):
                b.update(trial)
                return True
        return False
    for pa, sa in zip(p.args, s.args):
        if type(pa) is Wild:  # the Wild case above, inline (most arguments of a rule's root)
            if sa.is_bool or (pa.payload[1] and type(sa) is not Integer):
                return False
            prev = b.get(pa)
            if prev is None:
                b[pa] = sa
            elif prev is not sa:
                return False
        elif not match(pa, sa, b):
            return False
    return True


def match_all(p: Expr, s: Expr) -> Iterator[Binding]:
    """Every binding under which ``p`` matches ``s`` at the root (commutative roots try each
    argument order, so a rule's condition can be checked for each)."""
    if type(p) in COMMUTATIVE_OPS and type(s) is type(p) and len(p.args) == len(s.args):
        if len(p.args) > 4:
            return
        for order in permutations(s.args):
            b: Binding = {}
            if all(match(pa, sa, b) for pa, sa in zip(p.args, order)):
                yield b
        return
    b = {}
    if match(p, s, b):
        yield b


def _match_mul(p: Expr, s: Expr, b: Binding) -> bool:
    if type(s) is not Mul:
        return False
    const_w = [f for f in p.args if type(f) is Wild and f.payload[1]]
    others = [f for f in p.args if not (type(f) is Wild and f.payload[1])]
    k: int = s.payload
    pc: int = p.payload
    if len(const_w) > 1:
        return False
    if const_w:
        if k % pc != 0:
            return False
        if not match(const_w[0], integer(k // pc), b):
            return False
    elif k != pc:
        return False
    if len(others) == 1 and type(others[0]) is Wild:
        return match(others[0], _make_term(1, s.args), b)
    if len(others) != len(s.args):
        return False
    return all(match(pa, sa, b) for pa, sa in zip(others, s.args))


def instantiate(p: Expr, b: Binding) -> Expr:
    """``p`` with pattern variables replaced (constructors fold the literal arithmetic)."""
    if type(p) is Wild:
        return b[p]
    if not p.args:
        return p
    if type(p) is Mul:
        args = [instantiate(a, b) for a in p.args]
        if len(args) == 2:
            # ``d*m`` with ``d`` bound to a literal that makes the product ``m`` itself:
            # what mul() returns for a non-sum ``m`` (a sum it would build again)
            # (no swap of the two names: mypyc kept a name's narrowed type through one and
            # refused the other operand there)
            lit, other = (args[1], args[0]) if type(args[1]) is Integer else (args[0], args[1])
            if (
                type(lit) is Integer
                and type(other) is not Integer
                and type(other) is not Add
                and p.payload * lit.payload == 1
            ):
                return other
        return mul(p.payload, *args)
    return p.rebuild(tuple(instantiate(a, b) for a in p.args))


def condition_holds(cond: Expr, b: Binding, ctx: Context) -> bool:
    """The rule's ``when`` after substitution, *proven* under ``ctx``.

    Evaluated atom by atom without building the instantiated claim: a comparison is first
    tried on the numeric intervals of its two sides (cached per node), and only when that
    fails and the sides can be correlated (shared symbols, symbolic ranges) is the
    difference built and decided.  And/Or short-circuit."""
    return _holds(cond, b, ctx, True)


def _holds(c: Expr, b: Binding, ctx: Context, want: bool) -> bool:
    """Proven that ``c`` is ``want``."""

    t = type(c)
    if t is BoolConst:
        return bool(c.payload) is want
    if t is And or t is Or:
        if (t is And) is want:
            for a in c.args:
                if not _holds(a, b, ctx, want):
                    return False
            return True
        for a in c.args:
            if _holds(a, b, ctx, want):
                return True
        return False
    if t is Not:
        return _holds(c.args[0], b, ctx, not want)
    pl, pr = c.args
    # a side that is a pattern variable or a literal needs no instantiation
    lhs = b[pl] if type(pl) is Wild else (pl if not pl.args else instantiate(pl, b))
    rhs = b[pr] if type(pr) is Wild else (pr if not pr.args else instantiate(pr, b))
    if type(lhs) is Integer and type(rhs) is Integer:
        claim = c.rebuild((lhs, rhs))
        return bool(claim.payload) is want
    if t is Lt or t is Le:
        la, ha = interval(lhs, ctx)
        lb, hb = interval(rhs, ctx)
        strict = t is Lt
        below = _before(ha, lb, strict)  # lhs < rhs (<= for Le) at every point
        above = _before(hb, la, not strict)  # lhs >= rhs (> for Le) at every point
        if want:
            if below:
                return True
            if above:
                return False  # false at every point: no proof unless the domain is empty
        else:
            if above:
                return True
            if below:
                return False
        if not _may_correlate(lhs, rhs, ctx):
            return False
        if want and _below_own_bound(lhs, rhs, 1 if strict else 0, ctx):
            return True
    elif t is Eq or t is Ne:
        la, ha = interval(lhs, ctx)
        lb, hb = interval(rhs, ctx)
        if _before(ha, lb, True) or _before(hb, la, True):  # the sides never meet: Ne
            return (t is Ne) is want
    compare = _COMPARISONS.get(t)
    if compare is not None and _refuted(compare, lhs, rhs, ctx, want):
        return False
    return holds_in(c.rebuild((lhs, rhs)), ctx, want)


def _before(a: Num, b: Num, strict: bool) -> bool:
    """``a < b`` (``a <= b`` when not strict) for two bounds: ints compared directly,
    an infinite bound by its sign (what :class:`Infinity`'s operators answer, without
    their method calls)."""
    if type(a) is int and type(b) is int:
        return a < b if strict else a <= b
    if isinstance(a, Infinity):
        if isinstance(b, Infinity):
            return a.sign < b.sign if strict else a.sign <= b.sign
        return a.sign < 0
    if isinstance(b, Infinity):
        return b.sign > 0
    return a < b if strict else a <= b


def _below_own_bound(lhs: Expr, rhs: Expr, k: int, ctx: Context) -> bool:
    """Proven ``rhs - lhs >= k`` from the range of ``lhs`` alone: a symbol is at most its
    upper bound ``hi`` at every point, so ``rhs - lhs >= rhs - hi``, here a literal (``x <
    d*m`` for ``x`` in ``[0, d*m - 1]``: a split index below its extent, which the symbolic
    passes would prove at many times the cost)."""
    if type(lhs) is not Symbol:
        return False
    hi = ctx.bounds.get(lhs, OPEN)[1]
    if hi is None:
        return False
    gap = constant_difference(rhs, hi)
    return gap is not None and gap >= k


#: the comparison classes and the comparison each folds with (:mod:`indexalg.ops`)
_COMPARISONS: dict[type[Expr], Callable[[int, int], bool]] = {
    Lt: ops.lt,
    Le: ops.le,
    Eq: ops.eq,
    Ne: ops.ne,
}


def _refuted(
    compare: Callable[[int, int], bool], lhs: Expr, rhs: Expr, ctx: Context, want: bool
) -> bool:
    """Whether ``compare(lhs, rhs)`` is not ``want`` at a witness point of ``ctx``
    (:mod:`indexalg.analysis.witness`): then no analysis can prove it ``want``.  Read from
    the values of the two sides, before the claim and the difference that a proof attempt
    builds (most conditions that intervals leave open are false)."""
    for a, b in zip(witness_values(lhs, ctx), witness_values(rhs, ctx)):
        if type(a) is int and type(b) is int and compare(a, b) is not want:
            return True
    return False


def _may_correlate(a: Expr, b: Expr, ctx: Context) -> bool:
    """Whether deciding on ``b - a`` can beat separate intervals: shared symbols, or
    symbolic ranges in play: a side mentions a symbol of one (:attr:`Context.symbolic`),
    or expression facts are assumed beside them."""
    if ctx.dependent and (
        ctx.facts
        or not a.symbol_set.isdisjoint(ctx.symbolic)
        or not b.symbol_set.isdisjoint(ctx.symbolic)
    ):
        return True
    if type(a) is Integer or type(b) is Integer:
        return False
    return not a.symbol_set.isdisjoint(b.symbol_set)


def _arg_kinds(lhs: Expr) -> tuple[type[Expr] | None, ...] | None:
    """The node class each argument of a rule's root must have (None: any), or None when
    the root matches other than argument by argument (commutative roots try every order;
    a product pattern matches the coefficient and the rest of the factors)."""
    t = type(lhs)
    if t in COMMUTATIVE_OPS or t is Mul or t is Wild or not lhs.args:
        return None
    kinds: list[type[Expr] | None] = []
    for a in lhs.args:
        if type(a) is Wild:
            kinds.append(Integer if a.payload[1] else None)
        else:
            kinds.append(type(a))
    return tuple(kinds)


class RuleIndex:
    """Rules of a set grouped by the class of their lhs root, in table order, and, through
    :meth:`candidates`, by the classes of the root's arguments: a rule whose root cannot
    match a node (``x // 1`` on ``x // s0``, ``ModularIndexing(x // y, d, m)`` on
    ``ModularIndexing(x, 1, 8)``) is never tried on it (Halide and TVM dispatch per op)."""

    __slots__ = ("by_class", "rules", "_kinds", "_by_shape")

    #: the most argument-class shapes remembered (they are few: node classes per position)
    MAX_SHAPES = 4096

    def __init__(self, rules: RuleSet | tuple[Rule, ...]) -> None:
        self.rules = tuple(rules)
        self.by_class: dict[type[Expr], tuple[Rule, ...]] = {}
        groups: dict[type[Expr], list[Rule]] = {}
        for r in self.rules:
            groups.setdefault(type(r.lhs), []).append(r)
        self.by_class = {k: tuple(v) for k, v in groups.items()}
        self._kinds = {id(r): _arg_kinds(r.lhs) for r in self.rules}
        self._by_shape: dict[tuple[type[Expr], ...], tuple[Rule, ...]] = {}

    def candidates(self, node: Expr) -> tuple[Rule, ...]:
        """The rules of ``node``'s class whose root can match it, in table order."""
        cls = type(node)
        rules = self.by_class.get(cls)
        if rules is None:
            return ()
        if cls in COMMUTATIVE_OPS or cls is Mul:
            return rules
        args = node.args
        if len(args) == 2:
            shape: tuple[type[Expr], ...] = (cls, type(args[0]), type(args[1]))
        elif len(args) == 3:
            shape = (cls, type(args[0]), type(args[1]), type(args[2]))
        else:
            shape = (cls, *[type(a) for a in args])
        hit = self._by_shape.get(shape)
        if hit is not None:
            return hit
        n = len(args)
        out = []
        for r in rules:
            kinds = self._kinds[id(r)]
            if kinds is not None and (
                len(kinds) != n
                or any(k is not None and k is not shape[i + 1] for i, k in enumerate(kinds))
            ):
                continue
            out.append(r)
        hit = tuple(out)
        if len(self._by_shape) < self.MAX_SHAPES:
            self._by_shape[shape] = hit
        return hit
