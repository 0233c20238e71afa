"""Findings and the report: counts per entry point, the first reproducers of each
category, as text and as JSON (and back, for the parallel campaigns)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: the categories a wrong answer is counted in
PLUGIN_WRONG = "plugin_wrong"  # the plug-in wrong where stock is right (what must be 0)
BOTH_WRONG = "both_wrong"  # the plug-in fell back and stock's answer failed the check
STOCK_WRONG = "stock_wrong"  # stock wrong where the plug-in is right
#: not a wrong answer: an exception inside indexalg, caught by the plug-in's fallback wrapper
#: (Inductor's own answer was used), each a bug (what must be 0 too)
PLUGIN_ERROR = "plugin_error"


@dataclass
class Finding:
    """One wrong answer: where, which check, the category and a reproducer."""

    entry: str
    check: str  # "value", "claim", "cpp", "triton", "stride"
    category: str
    detail: str
    reproducer: str

    def as_json(self) -> dict[str, str]:
        return {
            "entry": self.entry,
            "check": self.check,
            "category": self.category,
            "detail": self.detail,
            "reproducer": self.reproducer,
        }


@dataclass
class EntryCounts:
    calls: int = 0
    reached: int = 0  # calls that reached the plug-in (stock can answer before asking it)
    checked: int = 0  # answers checked at one point or more
    points: int = 0
    plugin_wrong: int = 0
    both_wrong: int = 0
    stock_wrong: int = 0
    fallbacks: int = 0  # the plug-in's fallback counters moved during the call
    unchecked: int = 0  # no point to check at / an answer with fresh symbols
    stock_calls: int = 0  # calls also made with stock (all, or a sample and every wrong one)
    errors: int = 0  # an exception escaped the entry point (plug-in installed)
    plugin_error: int = 0  # calls during which the fallback wrapper caught an exception

    def as_json(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class PluginFuzzReport:
    """Counts per entry point and the first reproducers of each category."""

    seed: int = 0
    calls: int = 0
    envs: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time (the machine may be shared)
    memo_events: dict[str, int] = field(default_factory=dict)
    per_entry: dict[str, EntryCounts] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    #: findings beyond the kept ones, per category
    dropped: dict[str, int] = field(default_factory=dict)
    torch_version: str = ""
    max_findings: int = 20

    def entry(self, name: str) -> EntryCounts:
        c = self.per_entry.get(name)
        if c is None:
            c = self.per_entry[name] = EntryCounts()
        return c

    def add(self, f: Finding) -> None:
        kept = sum(1 for g in self.findings if g.category == f.category)
        if kept >= self.max_findings:
            self.dropped[f.category] = self.dropped.get(f.category, 0) + 1
            return
        self.findings.append(f)

    @property
    def plugin_wrong(self) -> int:
        return sum(c.plugin_wrong for c in self.per_entry.values())

    @property
    def stock_wrong(self) -> int:
        return sum(c.stock_wrong for c in self.per_entry.values())

    @property
    def both_wrong(self) -> int:
        return sum(c.both_wrong for c in self.per_entry.values())

    @property
    def plugin_errors(self) -> int:
        return sum(c.plugin_error for c in self.per_entry.values())

    def merge(self, other: PluginFuzzReport) -> None:
        self.calls += other.calls
        self.envs += other.envs
        self.seconds = max(self.seconds, other.seconds)
        self.cpu_seconds += other.cpu_seconds
        for k, v in other.memo_events.items():
            self.memo_events[k] = self.memo_events.get(k, 0) + v
        for name, c in other.per_entry.items():
            mine = self.entry(name)
            for k, v in c.__dict__.items():
                setattr(mine, k, getattr(mine, k) + v)
        for f in other.findings:
            self.add(f)
        for k, v in other.dropped.items():
            self.dropped[k] = self.dropped.get(k, 0) + v
        self.torch_version = self.torch_version or other.torch_version

    def as_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "calls": self.calls,
            "envs": self.envs,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "torch": self.torch_version,
            "plugin_wrong": self.plugin_wrong,
            "both_wrong": self.both_wrong,
            "stock_wrong": self.stock_wrong,
            "plugin_errors": self.plugin_errors,
            "memo_events": dict(sorted(self.memo_events.items())),
            "per_entry": {k: v.as_json() for k, v in sorted(self.per_entry.items())},
            "findings": [f.as_json() for f in self.findings],
            "findings_not_kept": dict(self.dropped),
        }

    def summary(self) -> str:
        lines = [
            f"plug-in fuzz (torch {self.torch_version}, seed {self.seed}): {self.calls} calls on"
            f" {self.envs} ShapeEnvs in {self.seconds:.1f} s ({self.cpu_seconds:.1f} s CPU);"
            f" plug-in wrong {self.plugin_wrong}, both wrong {self.both_wrong},"
            f" stock wrong {self.stock_wrong}, plug-in errors caught {self.plugin_errors}"
        ]
        head = (
            f"  {'entry point':<30}{'calls':>8}{'reached':>8}{'checked':>9}{'points':>10}"
            f"{'plugin':>8}"
            f"{'both':>6}{'stock':>7}{'fallbk':>8}{'unchk':>7}{'errors':>7}"
        )
        lines.append(head)
        for name, c in sorted(self.per_entry.items()):
            lines.append(
                f"  {name:<30}{c.calls:>8}{c.reached:>8}{c.checked:>9}{c.points:>10}"
                f"{c.plugin_wrong:>8}"
                f"{c.both_wrong:>6}{c.stock_wrong:>7}{c.fallbacks:>8}{c.unchecked:>7}"
                f"{c.errors:>7}"
            )
        if self.memo_events:
            ev = ", ".join(f"{k} {v}" for k, v in sorted(self.memo_events.items()))
            lines.append(f"  memo events: {ev}")
        for i, f in enumerate(self.findings, 1):
            lines.append(f"\n[{i}] {f.category} at {f.entry} ({f.check}): {f.detail}")
            lines.append(f.reproducer)
        return "\n".join(lines)


def _report_from_json(j: dict[str, Any]) -> PluginFuzzReport:
    rep = PluginFuzzReport(seed=int(j["seed"]), calls=int(j["calls"]), envs=int(j["envs"]))
    rep.seconds = float(j["seconds"])
    rep.cpu_seconds = float(j.get("cpu_seconds", 0.0))
    rep.torch_version = str(j.get("torch", ""))
    rep.memo_events = {k: int(v) for k, v in j["memo_events"].items()}
    for name, counts in j["per_entry"].items():
        c = rep.entry(name)
        for k, v in counts.items():
            setattr(c, k, int(v))
    rep.findings = [Finding(**f) for f in j["findings"]]
    rep.dropped = {k: int(v) for k, v in j.get("findings_not_kept", {}).items()}
    return rep
