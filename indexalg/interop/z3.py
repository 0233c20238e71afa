"""Expressions as Z3 terms, with the exact semantics of docs/semantics.md.

SMT-LIB's ``div`` and ``mod`` are *Euclidean*: ``a div b`` rounds so that ``0 <= a mod b < |b|``.
That is Python's floor division only for ``b > 0``.  For ``b < 0``,
``⌊a / b⌋ = ⌊(-a) / (-b)⌋`` and Python's ``a % b = -((-a) % (-b))``, so both are encoded with an
``If`` on the sign of the divisor (resolved statically when the divisor is a literal):

==================  ===========================================================================
node                encoding
==================  ===========================================================================
FloorDiv(a, b)      ``If(b > 0, a div b, (-a) div (-b))``
Mod(a, b)           ``If(b > 0, a mod b, -((-a) mod (-b)))``
CeilDiv(a, b)       ``-FloorDiv(-a, b)``
CleanDiv(a, b)      ``FloorDiv(a, b)`` (the producer's divisibility promise is not assumed)
ModularIndexing     ``(a div d) mod m``: exact wherever it is defined (d ≥ 1, m ≥ 1)
Min / Max           nested ``If``
Where(c, a, b)      ``If(c, a, b)``
Symbol, Wild        ``Int`` constants, one per node (names made unique if a symbol and a
                    pattern variable share one)
==================  ===========================================================================

SMT-LIB division is total (``a div 0`` is some unspecified value), so every query that needs
the error semantics of the evaluator adds :meth:`Z3Encoder.defined`: the claim that evaluating
the expression raises no error.  It is the conjunction of every divisor ≠ 0 and every
ModularIndexing ``d >= 1`` and ``m >= 1``, following the evaluator exactly where it evaluates
lazily: ``Where`` evaluates only the branch it selects, and ``And`` / ``Or`` stop at the first
argument (in structural order) that decides them.

A pattern variable (:class:`~indexalg.expr.Wild`) stands for an arbitrary expression, which
may itself be undefined: with ``wild_definedness=True`` each non-constant wild gets a Boolean
``defined`` flag of its own, so the rule verifier notices a right-hand side that evaluates a
subexpression the left-hand side never did.

This module imports z3 at import time; ``import indexalg`` never imports it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

import z3

from indexalg._bigint import int_from_digits, int_to_str
from indexalg.errors import IndexAlgError, InteropError
from indexalg.expr import (
    ALL_OPS,
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
    Wild,
    postorder,
)
from indexalg.limits import DEFAULT_RLIMIT
from indexalg.poly import BINARY_DIVISIONS

__all__ = [
    "Z3Encoder",
    "Z3_TABLE",
    "DEFAULT_RLIMIT",
    "make_solver",
    "make_optimizer",
    "to_z3",
    "floor_div",
    "floor_mod",
    "model_int",
    "missing_ops",
]

#: Z3 terms are untyped here (z3's Python API carries no annotations).
Term = Any
Handler = Callable[["Z3Encoder", Expr], Term]

#: The default resource limit of one query: deterministic, unlike a wall-clock timeout.


def make_solver(rlimit: int = DEFAULT_RLIMIT, ctx: Any = None) -> Any:
    """A fresh solver with a resource limit and a fixed random seed (deterministic answers)."""
    s = z3.Solver(ctx=ctx)
    s.set("rlimit", int(rlimit))
    s.set("random_seed", 0)
    return s


def make_optimizer(rlimit: int = DEFAULT_RLIMIT, ctx: Any = None) -> Any:
    """A fresh ``Optimize`` context with a resource limit and a fixed random seed."""
    o = z3.Optimize(ctx=ctx)
    o.set("rlimit", int(rlimit))
    o.set("random_seed", 0)
    return o


def _literal(e: Expr) -> int | None:
    if type(e) is Integer:
        v: int = e.payload
        return v
    return None


def floor_div(a: Term, b: Term, b_value: int | None = None) -> Term:
    """⌊a / b⌋ as a Z3 term; ``b_value`` is b's value when it is a literal (no ``If`` then)."""
    if b_value is not None:
        if b_value > 0:
            return a / b_value
        return (-a) / (-b_value)
    return z3.If(b > 0, a / b, (-a) / (-b))


def floor_mod(a: Term, b: Term, b_value: int | None = None) -> Term:
    """a − b·⌊a / b⌋ (Python ``%``, the sign of b) as a Z3 term."""
    if b_value is not None:
        if b_value > 0:
            return a % b_value
        return -((-a) % (-b_value))
    return z3.If(b > 0, a % b, -((-a) % (-b)))


# --- the encoding table ------------------------------------------------------------------------


def _integer(enc: Z3Encoder, e: Expr) -> Term:
    return _int_val(e.payload, enc.ctx)


def _variable(enc: Z3Encoder, e: Expr) -> Term:
    return enc.var(e)


def _add(enc: Z3Encoder, e: Expr) -> Term:
    terms = [enc.term(t) for t in e.args]
    if e.payload:
        terms.append(_int_val(e.payload, enc.ctx))
    return z3.Sum(*terms) if len(terms) > 1 else terms[0]


def _mul(enc: Z3Encoder, e: Expr) -> Term:
    factors = [enc.term(f) for f in e.args]
    if e.payload != 1:
        factors.insert(0, _int_val(e.payload, enc.ctx))
    return z3.Product(*factors) if len(factors) > 1 else factors[0]


def _floordiv(enc: Z3Encoder, e: Expr) -> Term:
    a, b = e.args
    exact = floor_div(enc.term(a), enc.term(b), _literal(b))
    return enc.flattened(e, exact) if enc.flatten_divisions else exact


def _mod(enc: Z3Encoder, e: Expr) -> Term:
    a, b = e.args
    return floor_mod(enc.term(a), enc.term(b), _literal(b))


def _ceildiv(enc: Z3Encoder, e: Expr) -> Term:
    a, b = e.args
    return -floor_div(-enc.term(a), enc.term(b), _literal(b))


def _modular_indexing(enc: Z3Encoder, e: Expr) -> Term:
    # Defined only for d >= 1 and m >= 1, where Euclidean div/mod are floor div/mod.
    a, d, m = (enc.term(x) for x in e.args)
    q = a / d
    if enc.flatten_divisions:
        q = enc.flattened(FloorDiv.make(e.args[0], e.args[1]), q)
    return q % m


def _min(enc: Z3Encoder, e: Expr) -> Term:
    terms = [enc.term(a) for a in e.args]
    acc = terms[0]
    for t in terms[1:]:
        acc = z3.If(t < acc, t, acc)
    return acc


def _max(enc: Z3Encoder, e: Expr) -> Term:
    terms = [enc.term(a) for a in e.args]
    acc = terms[0]
    for t in terms[1:]:
        acc = z3.If(t > acc, t, acc)
    return acc


def _where(enc: Z3Encoder, e: Expr) -> Term:
    c, a, b = e.args
    return z3.If(enc.term(c), enc.term(a), enc.term(b))


def _bool(enc: Z3Encoder, e: Expr) -> Term:
    return z3.BoolVal(bool(e.payload), enc.ctx)


def _compare(op: Callable[[Term, Term], Term]) -> Handler:
    def handler(enc: Z3Encoder, e: Expr) -> Term:
        a, b = e.args
        return op(enc.term(a), enc.term(b))

    return handler


def _and(enc: Z3Encoder, e: Expr) -> Term:
    return z3.And(*[enc.term(a) for a in e.args])


def _or(enc: Z3Encoder, e: Expr) -> Term:
    return z3.Or(*[enc.term(a) for a in e.args])


def _not(enc: Z3Encoder, e: Expr) -> Term:
    return z3.Not(enc.term(e.args[0]))


#: The Z3 encoding of every node class (a test checks it covers ``indexalg.expr.ALL_OPS``).
Z3_TABLE: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _variable,
    Wild: _variable,
    Add: _add,
    Mul: _mul,
    FloorDiv: _floordiv,
    Mod: _mod,
    CeilDiv: _ceildiv,
    CleanDiv: _floordiv,
    ModularIndexing: _modular_indexing,
    Min: _min,
    Max: _max,
    Where: _where,
    BoolConst: _bool,
    Lt: _compare(lambda a, b: a < b),
    Le: _compare(lambda a, b: a <= b),
    Eq: _compare(lambda a, b: a == b),
    Ne: _compare(lambda a, b: a != b),
    And: _and,
    Or: _or,
    Not: _not,
}


# Deeper expressions are encoded bottom-up (Z3Encoder._prefill), every _PREFILL_STEP levels.
_PREFILL_DEPTH = 24
_PREFILL_STEP = 8


class Z3Encoder:
    """Encodes expressions as Z3 terms; one encoder per query keeps variables consistent.

    ``vars`` maps each Symbol / Wild met so far to its Z3 constant, ``names`` the Z3 name back
    to the node (for reading models).  Terms and definedness conditions are memoised per
    interned node.
    """

    __slots__ = (
        "ctx",
        "true",
        "false",
        "vars",
        "names",
        "wild_flags",
        "wild_definedness",
        "flatten_divisions",
        "_terms",
        "_defined",
    )

    def __init__(
        self,
        *,
        wild_definedness: bool = False,
        flatten_divisions: bool = False,
        ctx: Any = None,
    ) -> None:
        #: the Z3 context of every term (None: Z3's main context); a fresh ``z3.Context()``
        #: per query makes answers independent of the queries made before
        self.ctx = ctx if ctx is not None else z3.main_ctx()
        self.true = z3.BoolVal(True, self.ctx)
        self.false = z3.BoolVal(False, self.ctx)
        self.vars: dict[Expr, Term] = {}
        self.names: dict[str, Expr] = {}
        #: non-constant Wild -> Z3 Bool "this pattern variable's instance is defined"
        self.wild_flags: dict[Expr, Term] = {}
        self.wild_definedness = wild_definedness
        #: encode nested floor divisions by positive divisors as one division by the product
        self.flatten_divisions = flatten_divisions
        self._terms: dict[Expr, Term] = {}
        self._defined: dict[Expr, Term] = {}

    # --- variables ------------------------------------------------------------------------

    def var(self, node: Expr) -> Term:
        """The Z3 ``Int`` of a Symbol or Wild (created on first use, name made unique)."""
        hit = self.vars.get(node)
        if hit is not None:
            return hit
        if type(node) is Symbol:
            base: str = node.payload
        elif type(node) is Wild:
            base = node.payload[0]
        else:
            raise InteropError(f"only symbols and pattern variables are Z3 variables, got {node}")
        name = base
        n = 1
        while name in self.names:
            n += 1
            name = f"{base}!{n}"
        v = z3.Int(name, self.ctx)
        self.vars[node] = v
        self.names[name] = node
        return v

    def declare(self, nodes: Iterable[Expr]) -> None:
        """Create the variables of ``nodes`` in the given order (fixes their Z3 names)."""
        for n in nodes:
            self.var(n)

    def name_of(self, node: Expr) -> str:
        """The Z3 name of a Symbol's or Wild's variable."""
        return str(self.var(node))

    # --- terms ----------------------------------------------------------------------------

    def term(self, e: Expr) -> Term:
        """The Z3 term of ``e`` (an ``Int`` term, or a ``Bool`` term for a claim)."""
        hit = self._terms.get(e)
        if hit is not None:
            return hit
        if e.depth > _PREFILL_DEPTH:
            self._prefill(e, self.term)
        try:
            handler = Z3_TABLE[type(e)]
        except KeyError:
            raise InteropError(f"no Z3 encoding for {type(e).__name__} in {e}") from None
        t = handler(self, e)
        self._terms[e] = t
        return t

    def flattened(self, e: Expr, exact: Term) -> Term:
        """``e`` (a floor division) with nested floor divisions flattened:
        ⌊⌊x / p⌋ / q⌋ = ⌊x / (p·q)⌋ for p, q > 0, so a chain ``x // p // q ...`` is encoded
        as ``If(p > 0 ∧ q > 0 ∧ ..., x div (p·q·...), exact)``.  Equal to ``exact`` everywhere;
        it only lets Z3 see that ``x // y // d`` and ``x // (y*d)`` are one term."""
        divisors: list[Expr] = []
        base = e
        while type(base) in (FloorDiv, CleanDiv):
            divisors.append(base.args[1])
            base = base.args[0]
        if len(divisors) < 2:
            return exact
        terms = [self.term(d) for d in reversed(divisors)]
        positive = z3.And(*[t > 0 for t in terms])
        return z3.If(positive, self.term(base) / z3.Product(*terms), exact)

    # --- definedness ----------------------------------------------------------------------

    def defined(self, e: Expr) -> Term:
        """The Z3 claim that evaluating ``e`` raises no error (see the module docstring)."""
        hit = self._defined.get(e)
        if hit is not None:
            return hit
        if e.depth > _PREFILL_DEPTH:
            self._prefill(e, self.defined)
        d = self._defined_uncached(e)
        self._defined[e] = d
        return d

    def _defined_uncached(self, e: Expr) -> Term:
        t = type(e)
        if t is Wild:
            if self.wild_definedness and not e.payload[1]:
                flag = self.wild_flags.get(e)
                if flag is None:
                    flag = z3.Bool(f"defined!{self.name_of(e)}", self.ctx)
                    self.wild_flags[e] = flag
                return flag
            return self.true
        if not e.args:
            return self.true
        if t is Where:
            c, a, b = e.args
            taken = z3.If(self.term(c), self.defined(a), self.defined(b))
            return self.conj([self.defined(c), taken])
        if t is And or t is Or:
            # all()/any() in argument order: an argument decides (False for And, True for
            # Or) and the rest is never evaluated.
            acc = self.true
            for arg in reversed(e.args):
                decides = z3.Not(self.term(arg)) if t is And else self.term(arg)
                acc = self.conj([self.defined(arg), z3.Or(decides, acc)])
            return z3.simplify(acc)
        parts = [self.defined(a) for a in e.args]
        if t in BINARY_DIVISIONS:
            b = e.args[1]
            lit = _literal(b)
            if lit is None:
                parts.append(self.term(b) != 0)
            elif lit == 0:
                parts.append(self.false)
        elif t is ModularIndexing:
            for x in e.args[1:]:
                lit = _literal(x)
                if lit is None:
                    parts.append(self.term(x) >= 1)
                elif lit < 1:
                    parts.append(self.false)
        return self.conj(parts)

    def _prefill(self, e: Expr, encode: Callable[[Expr], Term]) -> None:
        """Encode the subterms of a deep ``e`` bottom-up, every ``_PREFILL_STEP`` levels, so
        that encoding ``e`` recurses only a few levels (at any depth up to MAX_DEPTH).
        Best effort: a subterm that fails is encoded again, and fails, when reached."""
        for node in postorder(e):
            if node.depth % _PREFILL_STEP == 0 and node is not e:
                with contextlib.suppress(IndexAlgError):
                    encode(node)

    def conj(self, parts: list[Term]) -> Term:
        """The conjunction of ``parts``, literals folded."""
        kept = [p for p in parts if not z3.is_true(p)]
        if not kept:
            return self.true
        if any(z3.is_false(p) for p in kept):
            return self.false
        return kept[0] if len(kept) == 1 else z3.And(*kept)


def to_z3(e: Expr, encoder: Z3Encoder | None = None) -> Term:
    """The Z3 term of ``e`` (a fresh encoder unless one is given)."""
    return (encoder or Z3Encoder()).term(e)


def _int_val(v: int, ctx: Any) -> Term:
    """A Z3 integer literal of any size (z3.IntVal converts through str(), which Python
    limits to 4,300 digits)."""
    return z3.IntVal(int_to_str(v), ctx)


def model_int(model: Any, term: Term) -> int:
    """The integer value of ``term`` in ``model`` (unconstrained variables read as 0)."""
    v = model.eval(term, model_completion=True)
    if not z3.is_int_value(v):
        raise InteropError(f"Z3 model gives no integer for {term}: {v}")
    text: str = v.as_string()
    if text.startswith("-"):
        return -int_from_digits(text[1:])
    return int_from_digits(text)


def missing_ops() -> tuple[type[Expr], ...]:
    """The IR node classes :data:`Z3_TABLE` does not cover (empty when complete)."""
    return tuple(op for op in ALL_OPS if op not in Z3_TABLE)
