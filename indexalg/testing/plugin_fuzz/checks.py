"""The checks: the points a call's answer is checked at, and the verdicts (a failure
description per check) for one answer, by brute force against the true value."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

from ._torch import _T
from .calls import HINT_ENTRIES, _Call
from .cvalue import Unprintable, _printed, c_eval, triton_eval
from .value import Undefined, _num, true_value

#: points: symbol -> value
Points = list[dict[Any, Any]]


def call_points(call: _Call, r: random.Random, loop_syms: Sequence[Any]) -> Points:
    """Points of the call's symbols: size points of its ShapeEnv times loop-index values
    within var_ranges (simplify_with_ranges) or free non-negative values (the rest);
    ``loop_syms``: the generator's loop indices, ``r`` its ``random.Random``."""
    if call.entry == "simplify_with_ranges":
        return _ranges_points(call, r, loop_syms)
    if call.entry == "stride_at_vec_range":
        return _stride_points(call, r, loop_syms)
    if call.entry in HINT_ENTRIES:
        return _hint_points(call)
    return _claim_points(call, r, loop_syms)


def _hint_points(call: _Call) -> Points:
    """Size hints: the one point of the ShapeEnv's hints (every guard holds there)."""
    return [{s.sym: s.hint for s in call.sc.sizes}]


def _ranges_points(call: _Call, r: random.Random, loop_syms: Sequence[Any]) -> Points:
    """simplify_with_ranges: loop indices within var_ranges (a key that is an expression
    bounds it as well), free loop indices below 12."""
    sc = call.sc
    e, vr = call.args
    loop_keys = [k for k in vr if getattr(k, "is_Symbol", False)]
    expr_keys = [(k, v) for k, v in vr.items() if not getattr(k, "is_Symbol", False)]
    free = [v for v in loop_syms if v in e.free_symbols and v not in vr]
    out: Points = []
    for spt in sc.points[:8]:
        sizes: list[list[int]] = []
        ok = True
        for k in loop_keys:
            try:
                n = int(true_value(vr[k], spt))
            except (Undefined, TypeError, ValueError):
                ok = False
                break
            if n < 1:
                ok = False
                break
            sizes.append(list(range(n)))
        if not ok:
            continue
        for _v in free:
            sizes.append(list(range(12)))
        keys = [*loop_keys, *free]
        total = 1
        for s in sizes:
            total *= len(s)
        if total <= 96:
            combos: Sequence[tuple[int, ...]] = list(itertools.product(*sizes))
        else:
            combos = [tuple(r.choice(s) for s in sizes) for _ in range(64)]
            combos = [
                *combos,
                tuple(s[0] for s in sizes),
                tuple(s[-1] for s in sizes),
            ]
        for combo in combos:
            pt = dict(spt)
            pt.update(zip(keys, combo))
            good = True
            for k, n in expr_keys:
                try:
                    kv, nv = true_value(k, pt), true_value(n, pt)
                except Undefined:
                    good = False
                    break
                if not 0 <= kv < nv:
                    good = False
                    break
            if good:
                out.append(pt)
    return out


def _stride_points(call: _Call, r: random.Random, loop_syms: Sequence[Any]) -> Points:
    """stride_at_vec_range: the variable at a lane of a vector, the other loop indices
    free."""
    sc = call.sc
    e, var, vec = call.args
    others = [v for v in loop_syms if v in e.free_symbols and v != var]
    out: Points = []
    n = vec or 1
    for spt in sc.points[:12]:
        for _ in range(12):
            pt = dict(spt)
            for v in others:
                pt[v] = r.randrange(20)
            base = n * r.randrange(12)
            lane = r.randrange(max(n - 1, 1))
            pt[var] = base + lane
            out.append(pt)
    return out


def _claim_points(call: _Call, r: random.Random, loop_syms: Sequence[Any]) -> Points:
    """Claims: loop indices (non-negative by assumption) take small values."""
    sc = call.sc
    syms = set()
    for a in call.args:
        if hasattr(a, "free_symbols"):
            syms |= a.free_symbols
    loops = [v for v in loop_syms if v in syms]
    out: Points = []
    for spt in sc.points:
        if not loops:
            out.append(spt)
            continue
        for val in (0, 1, 2, 3, 5, 7, 8, 12, 15, 16, 31, 33, r.randrange(200)):
            pt = dict(spt)
            for v in loops:
                pt[v] = val
            out.append(pt)
    return out


def verdicts(call: _Call, ans: Any, pts: Points, loop_syms: Sequence[Any]) -> dict[str, str]:
    """check -> a failure description ("" when right) for one answer; "unchecked" when
    there was nothing to check."""
    if call.entry == "simplify_with_ranges":
        return _ranges_verdicts(call, ans, pts)
    if call.entry == "stride_at_vec_range":
        return _stride_verdicts(call, ans, pts, loop_syms)
    if call.entry in HINT_ENTRIES:
        return _hint_verdicts(call, ans, pts)
    return _claim_verdicts(call, ans, pts)


def _hint_verdicts(call: _Call, ans: Any, pts: Points) -> dict[str, str]:
    """A size hint is the expression's value at the hint point: an int, exactly."""
    try:
        want = true_value(call.args[0], pts[0])
    except Undefined:
        return {"hint": "unchecked"}
    if isinstance(want, bool) or not isinstance(want, int):
        return {"hint": "unchecked"}  # a float size's hint: no exact value to hold it to
    if type(ans) is not int or ans != want:
        return {"hint": f"{ans!r} ({type(ans).__name__}), the value at the hints is {want}"}
    return {"hint": ""}


def _ranges_verdicts(call: _Call, ans: Any, pts: Points) -> dict[str, str]:
    """simplify_with_ranges: the answer's value and its printed C++ and Triton against the
    input's true value."""
    e, _vr = call.args
    cpp = _printed(_T.cexpr, ans)
    tri = _printed(_T.texpr, ans)
    out = {"value": "", "cpp": "", "triton": ""}
    n = 0
    for pt in pts:
        try:
            want = _num(true_value(e, pt))
        except Undefined:
            continue
        n += 1
        env = {str(k): v for k, v in pt.items()}
        if not out["value"]:
            try:
                got = _num(true_value(ans, pt))
            except Undefined:
                got = "undefined"
            if got != want:
                out["value"] = f"{ans} is {got} at {_pt(pt)}, the input {want}"
        for check, text, evaluator in (
            ("cpp", cpp, c_eval),
            ("triton", tri, triton_eval),
        ):
            if text is None or out[check]:
                continue
            try:
                got = evaluator(text, env)
            except Undefined:
                got = "undefined"
            except Unprintable:
                continue
            if got != want:
                out[check] = f"{text} is {got} at {_pt(pt)}, the input {want}"
    if n == 0:
        return {"value": "unchecked"}
    return out


def _stride_verdicts(
    call: _Call, ans: Any, pts: Points, loop_syms: Sequence[Any]
) -> dict[str, str]:
    """stride_at_vec_range: the answer against the difference of the expression's values at
    the variable and the variable plus one."""
    e, var, _vec = call.args
    if not hasattr(ans, "free_symbols"):
        return {"stride": "unchecked"}
    known = {var, *(z.sym for z in call.sc.sizes), *loop_syms}
    if not ans.free_symbols <= known:
        return {"stride": "unchecked"}  # stock's fresh lane symbols
    n = 0
    for pt in pts:
        try:
            a = true_value(e, pt)
            nxt = dict(pt)
            nxt[var] = pt[var] + 1
            b = true_value(e, nxt)
            want = _num(b - a)
        except Undefined:
            continue
        n += 1
        try:
            got = _num(true_value(ans, pt))
        except Undefined:
            got = "undefined"
        if got != want:
            return {"stride": f"{ans} is {got} at {_pt(pt)}, the stride {want}"}
    return {"stride": "" if n else "unchecked"}


def _claim_verdicts(call: _Call, ans: Any, pts: Points) -> dict[str, str]:
    """The claim entry points: a claim answered True (False) must hold (fail) at every point;
    maybe_evaluate_static's rewritten claims and values keep the truth / the value."""
    sp = _T.sympy
    if call.entry == "maybe_evaluate_static":
        target = call.args[0]
        if ans is None:
            return {"claim": "unchecked"}
        is_claim = bool(getattr(target, "is_Relational", False) or target.is_Boolean)
        if is_claim and ans not in (sp.true, sp.false):
            if getattr(ans, "is_Boolean", False) or getattr(ans, "is_Relational", False):
                # a rewritten claim: equal truth at every point
                return _same_truth(target, ans, pts)
            return {"claim": "unchecked"}
        if not is_claim:
            return _same_value(target, ans, pts)
        want_true = ans is sp.true
        claim = target
    else:
        if ans is not True:
            return {"claim": "unchecked"}
        want_true = True
        if call.entry == "statically_known_true":
            claim = call.args[0]
        elif call.entry == "statically_known_leq":
            claim = sp.Le(call.args[0], call.args[1])
        else:
            claim = sp.Eq(sp.Mod(call.args[0], call.args[1]), 0)
        if claim in (sp.true, sp.false):
            claim = call.args[0] if call.entry == "statically_known_true" else claim
    n = 0
    for pt in pts:
        try:
            v = bool(true_value(claim, pt))
        except Undefined:
            continue
        n += 1
        if v != want_true:
            return {"claim": f"{claim} answered {want_true}, is {v} at {_pt(pt)}"}
    return {"claim": "" if n else "unchecked"}


def _same_truth(a: Any, b: Any, pts: Points) -> dict[str, str]:
    n = 0
    for pt in pts:
        try:
            va, vb = bool(true_value(a, pt)), bool(true_value(b, pt))
        except Undefined:
            continue
        n += 1
        if va != vb:
            return {"claim": f"{a} rewritten to {b}: {va} vs {vb} at {_pt(pt)}"}
    return {"claim": "" if n else "unchecked"}


def _same_value(a: Any, b: Any, pts: Points) -> dict[str, str]:
    n = 0
    for pt in pts:
        try:
            va = _num(true_value(a, pt))
        except Undefined:
            continue
        try:
            vb: Any = _num(true_value(b, pt))
        except Undefined:
            vb = "undefined"
        n += 1
        if va != vb:
            return {"value": f"{a} answered {b}: {va} vs {vb} at {_pt(pt)}"}
    return {"value": "" if n else "unchecked"}


def _pt(pt: dict[Any, Any]) -> str:
    items = sorted(pt.items(), key=lambda kv: str(kv[0]))
    return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
