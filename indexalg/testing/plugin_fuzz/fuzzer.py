"""The fuzzer: a campaign in this process, each call checked and made again with stock
Inductor, wrong answers reported with reproducers; :func:`run` is its entry point."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Sequence
from typing import Any

from ._torch import _T
from .calls import _PRELUDE, ENTRY_POINTS, HINT_ENTRIES, _Call, invoke, make_call
from .checks import Points, call_points, verdicts
from .environments import _Environments
from .generate import _Gen
from .plugin import _calls_total, _caught_errors, _fallback_total, _plugin, stock
from .report import (
    BOTH_WRONG,
    PLUGIN_ERROR,
    PLUGIN_WRONG,
    STOCK_WRONG,
    EntryCounts,
    Finding,
    PluginFuzzReport,
)
from .scenario import Scenario

#: the plug-in entry point whose counters a call's entry reaches (the claim entry points all
#: reach ``maybe_evaluate_static``)
_COUNTED_AS = {
    e: e
    for e in (
        "simplify_with_ranges",
        "stride_at_vec_range",
        "optimization_hint",
        "guarding_hint_or_throw",
    )
}


class PluginFuzzer(_Environments):
    """A campaign in this process: :meth:`run` makes ``calls`` calls (and returns the
    report); ``seed`` fixes everything."""

    def __init__(
        self,
        seed: int = 0,
        *,
        max_envs: int = 4,
        max_findings: int = 20,
        entries: Sequence[str] | None = None,
        minimise: bool = True,
        stock_rate: float = 1.0,
        float_rate: float = 0.2,
    ) -> None:
        _T.load()
        self.stock_rate = stock_rate
        self.seed = seed
        rng = random.Random(seed)
        report = PluginFuzzReport(seed=seed, max_findings=max_findings)
        super().__init__(rng, _Gen(rng, float_rate), report, max_envs)
        self.entries = tuple(
            e
            for e in (entries or ENTRY_POINTS)
            if e != "stride_at_vec_range" or hasattr(_T.sizevars, "stride_at_vec_range")
            if e not in HINT_ENTRIES or hasattr(_T.SizeVarAllocator, e)
        ) or ("simplify_with_ranges",)
        self.minimise = minimise
        import torch

        self.report.torch_version = str(torch.__version__)

    # --- calls ---------------------------------------------------------------------------

    def _make_call(self, sc: Scenario) -> _Call:
        return make_call(self.gen, self.rng, self.entries, sc)

    def _points(self, call: _Call) -> Points:
        return call_points(call, self.rng, self.gen.loops)

    def _verdicts(self, call: _Call, ans: Any, pts: Points) -> dict[str, str]:
        return verdicts(call, ans, pts, self.gen.loops)

    # --- one call ------------------------------------------------------------------------

    def _one_call(self) -> None:
        r = self.rng
        if not self.envs:
            self._new_env()
        if self.queue:
            call = self.queue.pop(0)
            sc = call.sc
        else:
            sc = r.choice(self.envs)
            call = self._make_call(sc)
        counts = self.report.entry(call.entry)
        counts.calls += 1
        self.report.calls += 1
        plug = _plugin()
        if not plug.installed():
            plug.install()
        fb_name = _COUNTED_AS.get(call.entry, "maybe_evaluate_static")
        stock_first = r.random() < 0.5 * self.stock_rate
        stock_always = stock_first or r.random() < self.stock_rate
        ans_stock: Any = None
        stock_err = False
        if stock_first:
            ans_stock, stock_err = self._stock_answer(call)
        before = _fallback_total(fb_name)
        calls_before = _calls_total(fb_name)
        errors_before, places_before = _caught_errors()
        try:
            ans = invoke(call)
        except Exception as exc:
            counts.errors += 1
            self.history.append(call)
            if not stock_first:
                ans_stock, stock_err = self._stock_answer(call)
            if not stock_err:
                self._report_error(call, exc)
            return
        fell_back = _fallback_total(fb_name) != before
        self._caught_error(call, counts, errors_before, places_before)
        counts.fallbacks += int(fell_back)
        counts.reached += int(_calls_total(fb_name) != calls_before)
        self.history.append(call)
        if len(self.history) > 64:
            del self.history[:-64]
        pts = self._points(call)
        ours = self._verdicts(call, ans, pts)
        wrong = any(v and v != "unchecked" for v in ours.values())
        if not stock_first and (stock_always or wrong):
            ans_stock, stock_err = self._stock_answer(call)
        asked = stock_first or stock_always or wrong
        theirs = self._verdicts(call, ans_stock, pts) if asked and not stock_err else {}
        if asked:
            counts.stock_calls += 1
        if all(v == "unchecked" for v in ours.values()):
            counts.unchecked += 1
        else:
            counts.checked += 1
            counts.points += len(pts)
        # one count per call and category; the checks that failed are named in the finding
        found: dict[str, list[tuple[str, str, str]]] = {}
        for check, why in ours.items():
            if not why or why == "unchecked":
                continue
            stock_why = theirs.get(check, "")
            # stock's fault only where the answer was stock's (a fallback): an answer of the
            # plug-in's own that is wrong is the plug-in's, whatever stock answers
            stock_too = stock_why and stock_why != "unchecked"
            cat = BOTH_WRONG if stock_too and fell_back else PLUGIN_WRONG
            found.setdefault(cat, []).append((check, why, stock_why))
        for check, stock_why in theirs.items():
            if stock_why and stock_why != "unchecked" and not ours.get(check):
                found.setdefault(STOCK_WRONG, []).append((check, stock_why, stock_why))
        for cat, items in found.items():
            setattr(counts, cat, getattr(counts, cat) + 1)
            checks = "+".join(c for c, _, _ in items)
            why = "; ".join(w for _, w, _ in items)
            stock_why = "; ".join(sw for _, _, sw in items if sw and sw != "unchecked")
            if cat != STOCK_WRONG and fell_back:
                why += " (the plug-in fell back to stock)"
            self._report(call, checks, cat, why, ans, ans_stock, stock_why)

    def _stock_answer(self, call: _Call) -> tuple[Any, bool]:
        try:
            with stock():
                return invoke(call), False
        except Exception:
            return None, True

    # --- reproducers ---------------------------------------------------------------------

    def _report(
        self,
        call: _Call,
        check: str,
        category: str,
        why: str,
        ans: Any,
        ans_stock: Any,
        stock_why: str,
    ) -> None:
        cat_kept = sum(1 for f in self.report.findings if f.category == category)
        if cat_kept >= self.report.max_findings:
            self.report.dropped[category] = self.report.dropped.get(category, 0) + 1
            return
        detail = f"{call.entry}: {why}; plug-in {ans}, stock {ans_stock}"
        if stock_why and category == PLUGIN_WRONG:
            detail += f" (stock: {stock_why})"
        alone = category != PLUGIN_WRONG or not self.minimise or self._alone(call, check)
        self.report.add(Finding(call.entry, check, category, detail, self._reproducer(call, alone)))

    def _alone(self, call: _Call, check: str) -> bool:
        """Whether the wrong answer comes back with the plug-in's memos emptied and the call
        made alone (then the reproducer needs no history)."""
        plug = _plugin()
        import indexalg

        plug.uninstall()
        indexalg.clear_caches()
        plug.install()
        self.history.clear()
        self._event("reinstall")
        try:
            ans = invoke(call)
        except Exception:
            return True
        pts = self._points(call)
        verdicts = self._verdicts(call, ans, pts)
        return any(verdicts.get(c) not in (None, "", "unchecked") for c in check.split("+"))

    def _reproducer(self, call: _Call, alone: bool) -> str:
        lines = [_PRELUDE.rstrip(), "indexalg.inductor.install()"]
        if not alone and call.sc.prelude:
            lines.append("# the ShapeEnv this one recompiles, its calls, then collected:")
            lines.extend(call.sc.prelude)
        lines.extend(call.sc.recipe)
        if not alone:
            lines.append("# the calls before it since the plug-in's memos were emptied:")
            for prev in self.history[-24:-1]:
                if prev.sc is call.sc:
                    lines.append(f"try: {prev.source}\nexcept Exception: pass")
                else:
                    lines.append(f"# (on another ShapeEnv) {prev.source}")
        lines.append(f"out = {call.source}")
        lines.append("print(out)")
        if call.entry == "simplify_with_ranges":
            lines.append("print(cexpr(out))")
        return "\n".join(lines) + "\n"

    def _caught_error(
        self, call: _Call, counts: EntryCounts, before: int, places_before: list[str]
    ) -> None:
        """A finding where the plug-in's fallback wrapper caught an exception of indexalg's
        during the call (stock's answer was used: a bug, not a wrong answer)."""
        after, places = _caught_errors()
        if after == before:
            return
        counts.plugin_error += 1
        # the place kept for this error (one met before in the campaign is not kept again)
        new = [w for w in places if w not in places_before]
        where = "; ".join(new) or "a place met before in this campaign"
        detail = f"an exception inside indexalg, caught (stock answers): {where}"
        self.report.add(
            Finding(call.entry, "error", PLUGIN_ERROR, detail, self._reproducer(call, True))
        )

    def _report_error(self, call: _Call, exc: Exception) -> None:
        self.report.add(
            Finding(
                call.entry,
                "error",
                PLUGIN_WRONG,
                f"{type(exc).__name__}: {exc} (stock answers)",
                self._reproducer(call, True),
            )
        )

    # --- the campaign --------------------------------------------------------------------

    def run(self, calls: int, *, deadline: float | None = None) -> PluginFuzzReport:
        """``calls`` calls (fewer if ``deadline``, a ``time.time()``, passes first)."""
        t0 = time.perf_counter()
        c0 = time.process_time()
        plug = _plugin()
        was = plug.installed()
        plug.install()
        try:
            done = 0
            while done < calls:
                if deadline is not None and time.time() > deadline:
                    break
                if not self.envs or self.rng.random() < 0.06:
                    self._memo_event()
                    continue
                self._one_call()
                done += 1
        finally:
            if not was:
                plug.uninstall()
            self.envs.clear()
            gc.collect()
        self.report.seconds += time.perf_counter() - t0
        self.report.cpu_seconds += time.process_time() - c0
        return self.report


def run(
    calls: int,
    seed: int = 0,
    *,
    entries: Sequence[str] | None = None,
    max_findings: int = 20,
    deadline: float | None = None,
    minimise: bool = True,
    stock_rate: float = 1.0,
    float_rate: float = 0.2,
) -> PluginFuzzReport:
    """``calls`` plug-in calls from ``seed``; each is made with stock Inductor too when the
    plug-in's answer is wrong, and at ``stock_rate`` (a share) when it is right."""
    fz = PluginFuzzer(
        seed,
        entries=entries,
        max_findings=max_findings,
        minimise=minimise,
        stock_rate=stock_rate,
        float_rate=float_rate,
    )
    return fz.run(calls, deadline=deadline)
