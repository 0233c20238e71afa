"""A campaign's ShapeEnvs and the memo events between calls: ShapeEnvs created, recompiled
(dropped, collected, made again from the same sources) and forgotten, the plug-in
reinstalled, its caches emptied, guards taken through the plug-in."""

from __future__ import annotations

import gc
import itertools
import random
from typing import Any

from ._torch import _T
from .calls import _PRELUDE, _Call
from .generate import _Gen
from .plugin import _calls_total, _clear_shape_env_caches, _fallback_total, _plugin
from .report import PLUGIN_WRONG, Finding, PluginFuzzReport
from .scenario import Scenario, _srepr
from .value import Undefined, true_value


class _Environments:
    """The ShapeEnvs of a campaign (at most ``max_envs`` alive), the calls since the
    plug-in's memos were last emptied and the memo events between calls; the base of
    :class:`~indexalg.testing.plugin_fuzz.PluginFuzzer`."""

    def __init__(
        self, rng: random.Random, gen: _Gen, report: PluginFuzzReport, max_envs: int
    ) -> None:
        self.rng = rng
        self.gen = gen
        self.report = report
        self.envs: list[Scenario] = []
        self.max_envs = max_envs
        self.history: list[_Call] = []  # calls since the plug-in's memos were last emptied
        self.queue: list[_Call] = []  # calls to make next (a recompile's)
        self.addresses: set[int] = set()  # id() of every ShapeEnv created
        self.env_ids = itertools.count()

    # --- memo and environment events -----------------------------------------------------

    def _event(self, name: str) -> None:
        self.report.memo_events[name] = self.report.memo_events.get(name, 0) + 1

    def _memo_event(self) -> None:
        r = self.rng
        plug = _plugin()
        roll = r.random()
        if roll < 0.3:
            import indexalg

            indexalg.clear_caches()
            self._event("clear_caches")
        elif roll < 0.5:
            plug.uninstall()
            plug.install()
            self.history.clear()
            self._event("reinstall")
        elif roll < 0.65:
            self._new_env()
        elif roll < 0.85 and self.envs:
            self._recompile(r.randrange(len(self.envs)))
        else:
            if self.envs:
                self._forget(self.envs.pop(r.randrange(len(self.envs))))
            gc.collect(1)
            self._event("collect")

    def _new_env(self) -> Scenario:
        plug = _plugin()
        if not plug.installed():
            plug.install()
        sc = self.gen.scenario(next(self.env_ids), self._take_guard)
        self.report.envs += 1
        self._event("new_env")
        self._seen(sc)
        self.envs.append(sc)
        while len(self.envs) > self.max_envs:
            self._forget(self.envs.pop(0))
            gc.collect(1)
        return sc

    def _seen(self, sc: Scenario) -> None:
        """Count a ShapeEnv at an address an earlier (collected) one had."""
        addr = id(sc.shape_env)
        if addr in self.addresses:
            self._event("address_reused")
        self.addresses.add(addr)

    def _forget(self, old: Scenario) -> None:
        """No reference to ``old`` left here (so its ShapeEnv can be collected)."""
        self.history = [c for c in self.history if c.sc is not old]
        self.queue = [c for c in self.queue if c.sc is not old]
        _clear_shape_env_caches()

    def _recompile(self, index: int) -> None:
        """``old`` dropped and collected, a new ShapeEnv from the same sources (often at the
        freed one's address) and ``old``'s recent calls asked again there, as a recompile of
        the same graph under other guards asks them."""
        # popped here: an argument would stay on the caller's stack, the ShapeEnv alive
        old = self.envs.pop(index)
        again = [(c.entry, c.args, c.source) for c in self.history if c.sc is old][-8:]
        like = [(z.source, int(z.hint)) for z in old.sizes if not z.is_float]
        self.history = [c for c in self.history if c.sc is not old]
        self.queue = [c for c in self.queue if c.sc is not old]
        _clear_shape_env_caches()
        prelude = [*old.recipe, *(f"try: {src}\nexcept Exception: pass" for _, _, src in again)]
        prelude.append(
            "del se; [getattr(v, 'cache_clear', lambda: None)() for v in list(vars(ShapeEnv)"
            ".values()) if callable(getattr(v, 'cache_clear', None))]; gc.collect()"
        )
        del old
        gc.collect()  # a full collection: a long-lived ShapeEnv is in the oldest generation
        se = _T.ShapeEnv()  # first, so it can take the freed one's address
        sc = self.gen.scenario(next(self.env_ids), self._take_guard, like=like, shape_env=se)
        del se
        sc.prelude = prelude
        self.report.envs += 1
        self._event("recompile")
        self._seen(sc)
        self.envs.append(sc)
        for entry, args, source in again:
            self.queue.append(_Call(entry, sc, args, source))

    def _take_guard(self, sc: Scenario, g: Any, F: Any) -> None:
        """Record ``g`` in the ShapeEnv the way Dynamo does (``evaluate_expr`` at the hints),
        through the plug-in; the truth at the hints is checked as an answer too."""
        hints = {z.sym: z.hint for z in sc.sizes}
        try:
            want = bool(true_value(g, hints))
        except Undefined:
            return
        counts = self.report.entry("evaluate_expr")
        counts.calls += 1
        before = _fallback_total("maybe_evaluate_static")
        calls_before = _calls_total("maybe_evaluate_static")
        try:
            got = sc.shape_env.evaluate_expr(g)
        except Exception:
            counts.errors += 1
            return
        counts.fallbacks += int(_fallback_total("maybe_evaluate_static") != before)
        counts.reached += int(_calls_total("maybe_evaluate_static") != calls_before)
        counts.checked += 1
        counts.points += 1
        sp = _T.sympy
        got_b: bool | None
        if got is sp.true or got is True:
            got_b = True
        elif got is sp.false or got is False:
            got_b = False
        else:
            got_b = None
        taken = g if want else sp.Not(g)
        if got_b is not None and got_b != want:
            counts.plugin_wrong += 1
            src = "\n".join(
                [*sc.recipe, "indexalg.inductor.install()", f"print(se.evaluate_expr({_srepr(g)}))"]
            )
            self.report.add(
                Finding(
                    "evaluate_expr",
                    "claim",
                    PLUGIN_WRONG,
                    f"evaluate_expr({g}) = {got} at the hints {hints}, where it is {want}",
                    _PRELUDE + src + f"\n# the hints give {want}\n",
                )
            )
            return
        sc.guards.append(taken)
        sc.recipe.append(f"se.evaluate_expr({_srepr(g)})  # {want} at the hints")
