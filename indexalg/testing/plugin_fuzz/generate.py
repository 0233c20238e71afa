"""The generator: random ShapeEnvs (size and float symbols, ranges, guards, the points
they allow), index expressions built the way Inductor builds them, var_ranges and claims,
all from one ``random.Random``."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from ._torch import _T
from .scenario import (
    _SOURCES,
    Scenario,
    SizeSym,
    _bound,
    _create_symbol,
    _float_int,
    _pyname,
)
from .value import Undefined, true_value


class _ExprGen:
    """Random index expressions, var_ranges and claims over a scenario's symbols, from one
    ``random.Random``."""

    def __init__(self, rng: random.Random, float_rate: float = 0.2) -> None:
        self.rng = rng
        self.float_rate = float_rate
        #: subterms built so far, reused as leaves (in any ShapeEnv whose symbols they use)
        self.pool: list[Any] = []
        sp = _T.sympy
        self.loops = [sp.Symbol(f"x{i}", integer=True, nonnegative=True) for i in range(3)]

    # --- expressions ---------------------------------------------------------------------

    def leaf(self, sc: Scenario, loops: Sequence[Any]) -> Any:
        r = self.rng
        roll = r.random()
        if self.pool and roll < 0.15:  # a subterm met before (Inductor asks about the same)
            old = r.choice(self.pool)
            if old.free_symbols <= {*loops, *(z.sym for z in sc.sizes)}:
                return old
        roll = r.random()
        if loops and roll < 0.45:
            v = r.choice(loops)
            roll = r.random()
            if roll < 0.3:
                return v + r.choice((-1, -2, 1, 3))
            if roll < 0.45:  # Triton's codegen wraps indices in Identity (reads as its argument)
                return _T.F.Identity(v)
            return v
        if roll < 0.7 and sc.int_sizes:
            s = r.choice(sc.int_sizes)
            return s + r.choice((0, 0, 0, -1, 1, -2))
        if roll < 0.76 and sc.float_sizes:
            return _float_int(sc.float_sizes[0], r.random() < 0.5)
        return _T.sympy.Integer(r.choice((0, 1, 2, 3, 4, 7, 8, 16, -1, -3)))

    def divisor(self, sc: Scenario) -> Any:
        r = self.rng
        sp = _T.sympy
        if sc.int_sizes and r.random() < 0.35:
            s = r.choice(sc.int_sizes)
            return r.choice((s, s, s + 1, 2 * s))
        return sp.Integer(r.choice((1, 2, 3, 4, 4, 8, 8, 16, 5, 64)))

    def expr(self, sc: Scenario, loops: Sequence[Any], depth: int) -> Any:
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(sc, loops)
        if loops and r.random() < 0.25:
            try:
                return self.idiom(sc, loops, depth)
            except Exception:  # sympy's own evaluation can fail
                pass
        kind = r.choice(
            (
                "add",
                "add",
                "mul",
                "floordiv",
                "floordiv",
                "modidx",
                "modidx",
                "modidx",
                "pymod",
                "pymod",
                "mod",
                "clean",
                "ceildiv",
                "min",
                "max",
                "where",
                "lin",
            )
        )
        a = self.expr(sc, loops, depth - 1)
        out = self._node(kind, a, sc, loops, depth)
        if not out.is_number and len(self.pool) < 64:
            self.pool.append(out)
        elif not out.is_number:
            self.pool[r.randrange(64)] = out
        return out

    def _node(self, kind: str, a: Any, sc: Scenario, loops: Sequence[Any], depth: int) -> Any:
        r = self.rng
        sp, F = _T.sympy, _T.F
        try:
            if kind == "add":
                return a + self.expr(sc, loops, depth - 1)
            if kind == "mul":
                return a * r.choice((2, 3, 4, 8, -1)) if r.random() < 0.7 else a * self.leaf(sc, ())
            if kind == "lin":
                b = self.expr(sc, loops, depth - 1)
                return (
                    r.choice((1, 2, 4, 16)) * a + r.choice((1, 3, 8)) * b + r.choice((0, -1, 2, -4))
                )
            if kind == "floordiv":
                return F.FloorDiv(a, self.divisor(sc))
            if kind == "modidx":
                return F.ModularIndexing(a, self.divisor(sc), self.divisor(sc))
            if kind == "pymod":
                return F.PythonMod(a, self.divisor(sc))
            if kind == "mod":
                return F.Mod(a, self.divisor(sc))
            if kind == "clean":
                d = self.divisor(sc)
                return F.CleanDiv(d * a, d) if r.random() < 0.8 else F.CleanDiv(a, d)
            if kind == "ceildiv":
                return F.CeilDiv(a, self.divisor(sc))
            if kind == "min":
                return F.Min(a, self.expr(sc, loops, depth - 1))
            if kind == "max":
                return F.Max(a, self.expr(sc, loops, depth - 1))
            if kind == "where":
                c = r.choice((sp.Lt, sp.Ge, sp.Eq))(a, self.leaf(sc, loops))
                return F.Where(c, self.expr(sc, loops, depth - 1), self.expr(sc, loops, depth - 1))
            if kind == "float" and sc.float_sizes:
                f = sc.float_sizes[0].sym
                return r.choice((2, 3, 4)) * f + a  # a float symbol itself, not floored
        except Exception:  # sympy's own evaluation can fail (a recursion, a division by 0)
            return a
        return a

    def idiom(self, sc: Scenario, loops: Sequence[Any], depth: int) -> Any:
        """The shapes Inductor's indexing builds (views, padding, pooling windows, flips):
        a loop index split by a divisor and a modulus, often shifted below zero, under an
        outer ``PythonMod`` / ``FloorDiv`` / recombination with the same constants."""
        r = self.rng
        F = _T.F
        v = r.choice(loops)
        shift = r.choice((0, -1, -1, -2, 1, -3))
        x = v + shift
        d = r.choice((1, 1, 2, 4, 8)) if r.random() < 0.8 else self.divisor(sc)
        m = self.divisor(sc) if r.random() < 0.3 else _T.sympy.Integer(r.choice((2, 4, 8, 16)))
        mi = F.ModularIndexing(x, d, m)
        kind = r.choice(("pymod_mi", "floordiv_mi", "recombine", "pymod_x", "mi_mi", "mi_off"))
        if kind == "pymod_mi":
            k = r.choice((m, 2 * m, m, r.choice(sc.int_sizes) if sc.int_sizes else m))
            return F.PythonMod(mi, k)
        if kind == "floordiv_mi":
            q = r.choice(sc.int_sizes) if sc.int_sizes else m
            return F.FloorDiv(mi, q) + r.choice((0, -1, 1))
        if kind == "recombine":
            return m * F.FloorDiv(F.FloorDiv(x, d), m) + mi + r.choice((0, 2, -1))
        if kind == "pymod_x":
            k = r.choice(sc.int_sizes) if sc.int_sizes else m
            other = self.expr(sc, loops, depth - 1)
            return F.PythonMod(x, k) + other + 8 * F.ModularIndexing(v, 64, 4)
        if kind == "mi_mi":
            return F.ModularIndexing(mi, r.choice((1, 2)), r.choice((m, 2 * m, 4)))
        return mi + self.leaf(sc, loops)

    def size_expr(self, sc: Scenario, depth: int) -> Any:
        return self.expr(sc, (), depth)

    def var_ranges(self, sc: Scenario, loops: Sequence[Any]) -> dict[Any, Any]:
        r = self.rng
        sp = _T.sympy
        out: dict[Any, Any] = {}
        for v in loops:
            roll = r.random()
            if roll < 0.55 or not sc.int_sizes:
                out[v] = sp.Integer(r.choice((1, 2, 3, 4, 5, 8, 12, 16, 64)))
            elif roll < 0.85:
                out[v] = r.choice(sc.int_sizes)
            else:
                s = r.choice(sc.int_sizes)
                out[v] = r.choice((2 * s, s * s, 4 * s, s + 1, _T.F.FloorDiv(s, 2) + 1))
        if len(loops) >= 2 and r.random() < 0.2:
            a, b = loops[0], loops[1]
            na, nb = out[a], out[b]
            if na.is_Integer and nb.is_Integer:
                key = a + int(na) * b
                out[key] = sp.Integer(int(na) * int(nb))
        return out

    def claim(self, sc: Scenario, with_loops: bool) -> Any:
        r = self.rng
        sp = _T.sympy
        loops = self.loops[:1] if with_loops else ()
        a = self.expr(sc, loops, r.choice((1, 2, 2, 3)))
        roll = r.random()
        if roll < 0.5:
            b: Any = sp.Integer(r.randint(-2, 20))
        elif roll < 0.8 and sc.int_sizes:
            b = self.leaf(sc, ())
        else:
            b = self.expr(sc, loops, 1)
        if sc.float_sizes and r.random() < 0.15:
            a = self._node("float", a, sc, loops, 1)
            b = sp.Integer(r.randint(0, 12))
        rel = r.choice((sp.Eq, sp.Ne, sp.Lt, sp.Le, sp.Gt, sp.Ge))
        try:
            return rel(a, b)
        except (TypeError, ValueError):
            return sp.Eq(a, b)


class _Gen(_ExprGen):
    """Random ShapeEnvs, expressions and claims, from one ``random.Random``."""

    # --- ShapeEnvs -----------------------------------------------------------------------

    def scenario(
        self,
        ident: int,
        on_guard: Callable[[Scenario, Any, Any], None],
        like: Sequence[tuple[str, int]] = (),
        shape_env: Any = None,
    ) -> Scenario:
        """A new ShapeEnv; ``like``: a recompile of that one (the same sources, so the same
        symbols, some hints changed, guards drawn anew)."""
        r = self.rng
        sp, F = _T.sympy, _T.F
        se = _T.ShapeEnv() if shape_env is None else shape_env
        # sources from a small pool: a recompile meets the same names (and so the same
        # symbols) in a new ShapeEnv, often at a freed one's address
        pool = r.sample(_SOURCES, len(_SOURCES))
        old_hints = [h for _, h in like]
        if like:
            sources = [src for src, _ in like]
            pool = sources + [x for x in pool if x not in sources]
        recipe = ["se = ShapeEnv()"]
        sizes: list[SizeSym] = []
        n = len(old_hints) if old_hints else r.choice((1, 2, 2, 3, 3))
        for i in range(n):
            hint: int
            if old_hints and r.random() < 0.5:
                hint = int(old_hints[i])
            elif sizes and r.random() < 0.2:
                hint = int(r.choice(sizes).hint) if not sizes[-1].is_float else 8
            else:
                hint = r.choice((2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 32, 64))
            src = pool[i]
            sym = _create_symbol(se, hint, src)
            recipe.append(
                f"{_pyname(sym)} = se.create_symbol({hint}, ConstantSource({src!r}),"
                " dynamic_dim=DimDynamic.DYNAMIC)"
            )
            lo, hi = 2, math.inf
            vr = getattr(se, "var_to_range", {}).get(sym)
            if vr is not None:
                lo = max(lo, _bound(vr.lower, 2))
                hi = min(hi, _bound(vr.upper, math.inf))
            if r.random() < 0.25:  # a range narrowed directly, as tests and export do
                nlo = r.randint(2, int(hint))
                nhi = int(hint) + r.choice((0, 1, 3, 8, 30))
                try:
                    se.var_to_range[sym] = _T.ValueRanges(nlo, nhi)
                    recipe.append(f"se.var_to_range[{_pyname(sym)}] = ValueRanges({nlo}, {nhi})")
                    lo, hi = nlo, nhi
                except Exception:
                    pass
            sizes.append(SizeSym(sym, hint, lo, hi, False, src))
        if r.random() < self.float_rate:
            fhint = r.choice((0.5, 1.5, 2.5, 3.25, 2.0, 4.75))
            src = pool[-1]
            try:
                fsym = _create_symbol(se, fhint, src)
                node = se.create_symfloatnode(fsym, hint=fhint)
                recipe.append(
                    f"{_pyname(fsym)} = se.create_symbol({fhint}, ConstantSource({src!r}),"
                    " dynamic_dim=DimDynamic.DYNAMIC)"
                )
                recipe.append(
                    f"{_pyname(fsym)}_node = se.create_symfloatnode({_pyname(fsym)}, hint={fhint})"
                )
                sizes.append(SizeSym(fsym, fhint, 0.0, math.inf, True, src, node))
            except Exception:
                pass
        sc = Scenario(ident, se, sizes, recipe=recipe)
        for _ in range(r.choice((0, 1, 2, 3, 4, 5))):
            g = self.guard(sc)
            if g is None or g in (sp.true, sp.false):
                continue
            on_guard(sc, g, F)
        sc.points = self.size_points(sc)
        return sc

    def guard(self, sc: Scenario) -> Any:
        r = self.rng
        sp, F = _T.sympy, _T.F
        ints = sc.int_sizes
        if not ints:
            return None
        s = r.choice(ints)
        hint = {z.sym: z.hint for z in sc.sizes}
        h = int(hint[s])
        kind = r.choice(
            ("div", "div", "cmp", "cmp", "ne", "clean", "and", "repl", "expr_cmp", "float")
        )
        if kind == "div":
            divs = [k for k in (2, 3, 4, 8, 16) if h % k == 0] or [2, 3, 4]
            k = r.choice(divs)
            return sp.Eq(sp.Mod(s, k), 0)
        if kind == "cmp":
            c = h + r.choice((-3, -1, 0, 1, 2, 5, 20))
            return r.choice((sp.Le, sp.Lt, sp.Ge, sp.Gt))(s, c)
        if kind == "ne":
            c = r.choice((h - 1, h + 1, 2, 3, 4))
            if r.random() < 0.5:
                return sp.Ne(s, c)
            return sp.Ne(F.FloorDiv(s, r.choice((2, 4))), r.choice((0, 1, 2)))
        if kind == "clean":
            k = r.choice([k for k in (2, 4) if h % k == 0] or [1])
            if k == 1:
                return sp.Ne(s, h + 1)
            return r.choice(
                (
                    sp.Eq(F.CleanDiv(s, k) * k, s),
                    sp.Ge(F.CleanDiv(s, k), r.choice((1, 2, h // k))),
                    sp.Ne(F.CleanDiv(s, k), r.choice((1, h // k + 1))),
                )
            )
        if kind == "and":
            a = r.choice((sp.Le, sp.Lt))(s, h + r.choice((0, 1, 6)))
            b = r.choice((sp.Ge, sp.Gt))(s, max(2, h - r.choice((0, 1, 4))) - 1)
            return sp.And(a, b)
        if kind == "repl":
            others = [t for t in ints if t is not s]
            if not others:
                return sp.Eq(sp.Mod(s, 2), 0)
            t = r.choice(others)
            ht = int(hint[t])
            if ht == h:
                return sp.Eq(s, t)
            if ht == 2 * h:
                return sp.Eq(t, 2 * s)
            return r.choice((sp.Le, sp.Ge, sp.Ne))(s, t)
        if kind == "expr_cmp":
            e = self.size_expr(sc, depth=1)
            if e.is_number:
                return None
            return r.choice((sp.Le, sp.Ge, sp.Ne, sp.Lt))(e, r.randint(0, 2 * h + 4))
        # float
        fl = sc.float_sizes
        if not fl:
            return sp.Ge(s, 2)
        if r.random() < 0.3:
            fa, fb = _float_int(fl[0], True), _float_int(fl[0], False)
            return r.choice((sp.Ne, sp.Eq, sp.Lt))(fa, fb)
        if r.random() < 0.3:
            return r.choice((sp.Ge, sp.Le, sp.Ne))(2 * fl[0].sym, r.choice((1, 3, 5, 6)))
        fx = _float_int(fl[0], r.random() < 0.5)
        return r.choice((sp.Ge, sp.Le, sp.Ne))(fx, r.choice((0, 1, 2, 3)))

    def size_points(self, sc: Scenario) -> list[dict[Any, Any]]:
        """Points over the size symbols within their ranges satisfying every guard: the
        hints, a small box and random values."""
        r = self.rng
        cands: list[list[Any]] = []
        for z in sc.sizes:
            if z.is_float:
                vals: set[Any] = {z.hint}
                vals |= {k / 4 for k in range(1, 28)}
                vals |= {r.uniform(0.01, 8.0) for _ in range(4)}
                vals = {v for v in vals if z.lo <= v <= z.hi and v > 0}
            else:
                hi = z.hi if z.hi != math.inf else z.lo + 40
                box = set(range(int(z.lo), int(min(hi, z.lo + 14)) + 1))
                box |= {int(z.hint)}
                box |= {r.randint(int(z.lo), int(hi)) for _ in range(6)}
                box |= {v for v in (int(z.hint) * 2, int(z.hint) * 3) if v <= hi}
                vals = box
            cands.append(sorted(vals))
        total = 1
        for c in cands:
            total *= len(c)
        syms = [z.sym for z in sc.sizes]
        combos: Sequence[tuple[Any, ...]]
        if total <= 3000:
            combos = list(itertools.product(*cands))
        else:
            combos = [tuple(r.choice(c) for c in cands) for _ in range(3000)]
        hint_combo = tuple(z.hint for z in sc.sizes)
        out: list[dict[Any, Any]] = []
        seen: set[tuple[Any, ...]] = set()
        for combo in [hint_combo, *combos]:
            if combo in seen:
                continue
            seen.add(combo)
            pt = dict(zip(syms, combo))
            ok = True
            for g in sc.guards:
                try:
                    if not true_value(g, pt):
                        ok = False
                        break
                except Undefined:
                    ok = False
                    break
            if ok:
                out.append(pt)
        if len(out) > 48:
            out = out[:1] + r.sample(out[1:], 47)
        return out
