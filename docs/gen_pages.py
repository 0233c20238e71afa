"""Pages generated when the site is built (run by mkdocs-gen-files, see mkdocs.yml).

* ``rules.md``: the rule catalogue, read from :data:`indexalg.rules.ALL` (every rule with its
  math, its condition, the comment above it in the source, its verification status and the
  termination check) and the named procedures of :mod:`indexalg.procedures`.
* ``cli.md``: the hand-written introduction in docs/cli.md, then the ``--help`` text of
  ``indexalg`` and of each of its subcommands, and of ``indexalg-triton``, captured from the
  argparse parsers (80 columns).
* ``benchmarks.md``: the hand-written docs/benchmarks.md, then bench/RESULTS.md when it exists.
* ``api/triton.md``: docs/api/triton.md, then the API reference of every module of
  indexalg_triton (the package is growing; its modules are listed when the site is built).
* ``triton.md``: docs/triton.md with each ``<!-- run: COMMAND -->`` line replaced by the
  command's output, and the kernel its ``<!-- worked-kernel -->`` example generates (run
  during the build, with the verification's result).

Verification status.  Proving the rules takes from seconds to minutes, depending on the rules,
so the catalogue takes the verdicts from, in order:

1. ``INDEXALG_DOCS_VERDICTS=FILE``: the output of ``indexalg verify-rules --json``; a verdict
   is used only for a rule whose text in the file equals the rule's current text;
2. ``INDEXALG_DOCS_VERIFY=0``: none (the catalogue says so and names the command);
3. otherwise, when z3 is installed: :func:`indexalg.verify.verify_rule` for each rule during
   the build, until a time budget (``INDEXALG_DOCS_VERIFY_BUDGET`` seconds, default 120) runs
   out; rules not reached get no verdict, and the catalogue says how many were proven.

The termination check (:func:`indexalg.verify.decreases`, pure Python) runs in every build.

Run directly (``python docs/gen_pages.py OUTDIR``) to write the generated pages to a folder.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RESULTS = ROOT / "bench" / "RESULTS.md"
HELP_COLUMNS = "80"
#: Seconds the build may spend proving rules (``INDEXALG_DOCS_VERIFY_BUDGET`` overrides).
DEFAULT_VERIFY_BUDGET_S = 120.0

sys.path.insert(0, str(DOCS))
sys.path.insert(0, str(ROOT))

from griffe_roles import markdown_docstring  # noqa: E402
from rule_math import math  # noqa: E402

from indexalg.expr import true  # noqa: E402
from indexalg.rules.base import Rule, RuleSet  # noqa: E402

__all__ = [
    "benchmarks_page",
    "cli_page",
    "math",
    "pages",
    "rule_catalogue",
    "verdicts_from_env",
]

# --- verification verdicts -----------------------------------------------------------------

#: What the catalogue knows about one rule's proof: (status, detail) keyed by rule name.
Verdicts = dict[str, tuple[str, str]]


def _verdict_row(status: str, reason: str, seconds: object) -> tuple[str, str]:
    """(status, detail): the verifier's reason, then the time it took in parentheses."""
    timing = f"({seconds:.2f} s)" if isinstance(seconds, (int, float)) else ""
    return status, " ".join(part for part in (reason, timing) if part)


def verdicts_from_file(path: Path, rules: Iterable[Rule]) -> Verdicts:
    """Verdicts from ``indexalg verify-rules --json`` output, for the rules whose text there is
    their current text (a stale file says nothing about a rule that changed since)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    current = {r.name: str(r) for r in rules}
    out: Verdicts = {}
    for row in data.get("rules", []):
        name = row.get("name")
        if name in current and row.get("rule") == current[name]:
            out[name] = _verdict_row(
                str(row.get("status")), str(row.get("reason", "")), row.get("seconds")
            )
    return out


def verdicts_by_running(rules: Iterable[Rule], budget_s: float) -> Verdicts:
    """Verdicts from :func:`indexalg.verify.verify_rule`, run now, rule by rule, until
    ``budget_s`` seconds have passed (the rules not reached get no verdict)."""
    import time

    from indexalg.verify import verify_rule

    out: Verdicts = {}
    start = time.perf_counter()
    for rule in rules:
        if time.perf_counter() - start > budget_s:
            break
        v = verify_rule(rule)
        out[v.name] = _verdict_row(v.status, v.reason, v.seconds)
    return out


def verdicts_from_env(rules: Iterable[Rule], env: Mapping[str, str]) -> tuple[Verdicts, str]:
    """The verdicts and a sentence saying where they come from (see the module docstring)."""
    rules = list(rules)
    how = "`indexalg verify-rules` proves every rule below"
    path = env.get("INDEXALG_DOCS_VERDICTS")
    if path:
        got = verdicts_from_file(Path(path), rules)
        return got, (
            f"Verification status from `indexalg verify-rules --json` output given to this "
            f"build ({len(got)} of {len(rules)} rules matched their current text)."
        )
    if env.get("INDEXALG_DOCS_VERIFY") == "0":
        return {}, f"The rule verifier was not run for this build; {how}."
    if importlib.util.find_spec("z3") is None:
        return {}, f"The rule verifier was not run for this build (z3 is not installed); {how}."
    budget = float(env.get("INDEXALG_DOCS_VERIFY_BUDGET", DEFAULT_VERIFY_BUDGET_S))
    got = verdicts_by_running(rules, budget)
    source = (
        "Verification status computed by `indexalg.verify.verify_rule` while this site was "
        f"built ({len(got)} of {len(rules)} rules"
    )
    if len(got) < len(rules):
        source += f"; the build's time budget of {budget:g} s ran out before the others"
    return got, source + ")."


# --- the rule catalogue ----------------------------------------------------------------------

_STATUS_TEXT = {
    "proved": "**proved** for all integers",
    "bounded": "**bounded**:",  # the verifier's reason says for which values
    "failed": "**FAILED**:",  # ... and the counterexample
    "unknown": "**unknown**:",  # ... and why Z3 gave no answer
}


def _source_comment(origin: str) -> str:
    """The ``#`` comment lines directly above the line ``origin`` (``path:line``) names."""
    path_text, _, line_text = origin.rpartition(":")
    if not line_text.isdigit():
        return ""
    path = ROOT / path_text
    if not path.is_file():
        return ""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = int(line_text) - 2
    found: list[str] = []
    while i >= 0 and lines[i].strip().startswith("#"):
        found.append(lines[i].strip()[1:].strip())
        i -= 1
    return " ".join(reversed(found))


def _md_code(text: str) -> str:
    """``text`` as an inline code span (backticks inside are fenced with more backticks)."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _rule_sets() -> list[tuple[str, RuleSet]]:
    """The rule sets :mod:`indexalg.rules` exports, in the order of :data:`ALL`."""
    rules_pkg = importlib.import_module("indexalg.rules")
    everything: RuleSet = rules_pkg.ALL
    position = {r.name: i for i, r in enumerate(everything)}
    found = [
        (name, value)
        for name in rules_pkg.__all__
        if name != "ALL" and isinstance(value := getattr(rules_pkg, name), RuleSet)
    ]
    found.sort(key=lambda nv: min((position.get(r.name, len(position)) for r in nv[1]), default=0))
    covered = {r.name for _, s in found for r in s}
    stray = [r for r in everything if r.name not in covered]
    if stray:
        found.append(("other rules of ALL", RuleSet("other", stray)))
    return found


def _set_doc(rule_set: RuleSet) -> str:
    if not rule_set.rules:
        return ""
    path_text = rule_set.rules[0].origin.rpartition(":")[0]
    if not path_text.endswith(".py"):
        return ""
    module = importlib.import_module(path_text[:-3].replace("/", "."))
    return markdown_docstring(module.__doc__ or "").strip()


def _rule_section(rule: Rule, verdicts: Verdicts) -> list[str]:
    from indexalg.verify import decreases

    out = [f"### {rule.name}", ""]
    rewrite = _md_code(f"{math(rule.lhs)}  →  {math(rule.rhs)}")
    if rule.when is true:
        out.append(f"{rewrite} &nbsp; *unconditional*")
    else:
        out.append(f"{rewrite} &nbsp; **if** {_md_code(math(rule.when))}")
    out.append("")
    text_cond = "" if rule.when is true else f"  when {rule.when}"
    out.append(f"- indexalg: {_md_code(f'{rule.lhs} -> {rule.rhs}{text_cond}')}")
    comment = _source_comment(rule.origin)
    if comment:
        out.append(f"- why: {_escape_md(comment)}")
    verdict = verdicts.get(rule.name)
    if verdict is None:
        out.append("- verification: not run in this build (`indexalg verify-rules`)")
    else:
        status, detail = verdict
        text = _STATUS_TEXT.get(status, f"**{status}**:")
        out.append(f"- verification: {text} {_escape_md(detail)}".rstrip())
    ok, why = decreases(rule)
    out.append(
        f"- termination: {'decreases' if ok else '**does not decrease**'} the reduction order "
        f"({_md_code(why)})"
    )
    out.append(f"- defined at {_md_code(rule.origin)}")
    out.append("")
    return out


def _escape_md(text: str) -> str:
    """Plain text that may contain ``*``, ``_``, ``<``, ``&`` or backticks, safe in Markdown."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([*_\[\]`\\|])", r"\\\1", text)


def _procedures_section() -> list[str]:
    from indexalg.procedures import PROCEDURES

    out = [
        "## Named procedures",
        "",
        "Transformations that are not single rewrites run after the table rules at each node. "
        "They are not in the rule verifier's scope; each is checked by translation validation "
        "(Z3 on its input and output) in the tests.",
        "",
        "| procedure | applies to | module |",
        "|---|---|---|",
    ]
    modules: dict[str, None] = {}
    for p in PROCEDURES:
        classes = ", ".join(c.__name__ for c in p.applies_to)
        out.append(f"| `{p.name}` | {classes} | `{p.fn.__module__}` |")
        modules[p.fn.__module__] = None
    out.append("")
    for mod in modules:
        doc = importlib.import_module(mod).__doc__ or ""
        out += [f"### `{mod}`", "", markdown_docstring(doc).strip(), ""]
    return out


def rule_catalogue(env: Mapping[str, str] | None = None) -> str:
    """The text of ``rules.md``."""
    from indexalg.rules import ALL

    env = os.environ if env is None else env
    verdicts, source = verdicts_from_env(ALL, env)
    sets = _rule_sets()
    out = [
        "# Rule catalogue",
        "",
        f"Generated from the rule tables when this site was built: {len(ALL)} rules in "
        f"`indexalg.rules.ALL` = {' + '.join(f'`{n}`' for n, _ in sets)}, the default rule set "
        "of `ia.simplify`. Each rule rewrites its left side to its right side wherever its "
        "condition is *proven* under the caller's ranges (by literal folding, interval and "
        "congruence analysis); pattern variables `x, y, z, d, m, ...` match any expression.",
        "",
        "Notation (display only; the `indexalg:` line is the rule's exact text): "
        "`⌊a/b⌋` FloorDiv, `⌈a/b⌉` CeilDiv, `a ÷ b` CleanDiv, `a mod b` Mod (Python's `%`, the "
        "sign of b), `⌊a/d⌋ mod m` ModularIndexing(a, d, m), `a ∣ b` *a divides b* "
        "(a ≠ 0 and b mod a = 0).",
        "",
        "**Verification.** A rule is *sound* when, for all integer values of its pattern "
        "variables, its condition and its left side being defined imply that its right side "
        "is defined and equal (`indexalg.verify`; see [the prover](prover.md#the-rule-verifier)). "
        + source,
        "",
        "**Termination.** Every build checks each rule against the verifier's reduction order "
        "(`indexalg.verify.decreases`: the right side's measure must be smaller than the left "
        "side's, compared lexicographically); a rule set whose rules all decrease it cannot "
        "rewrite forever.",
        "",
        "Rule sets:",
        "",
    ]
    for name, rule_set in sets:
        links = ", ".join(f"[`{r.name}`](#{r.name})" for r in rule_set)
        out.append(f"- **`{name}`** ({len(rule_set)} rules): {links}")
    out.append("")
    for name, rule_set in sets:
        out += [f"## {name}", "", _set_doc(rule_set), ""]
        for rule in rule_set:
            out += _rule_section(rule, verdicts)
    out += _procedures_section()
    return "\n".join(out).rstrip() + "\n"


# --- the CLI reference -----------------------------------------------------------------------


def _captured(main: Callable[[list[str]], object], argv: list[str]) -> str:
    """What ``main(argv)`` prints on stdout; argparse's exit after ``--help`` is expected."""
    buf = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        with contextlib.redirect_stdout(buf), contextlib.suppress(SystemExit):
            main(argv)
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return buf.getvalue().rstrip() + "\n"


def _help_block(title: str, anchor: str, text: str) -> list[str]:
    return [f"### {title} {{#{anchor}}}", "", "```text", text.rstrip(), "```", ""]


def cli_help_sections() -> list[str]:
    """``--help`` of every ``indexalg`` subcommand that exists, then ``indexalg-triton``."""
    from indexalg.cli import available_subcommands, main

    out = ["## `indexalg`", ""]
    out += _help_block("indexalg --help", "indexalg", _captured(main, ["--help"]))
    for name, _ in available_subcommands():
        text = _captured(main, [name, "--help"])
        out += _help_block(f"indexalg {name}", f"indexalg-{name}", text)
    triton_main = importlib.import_module("indexalg_triton.cli").main
    out += ["## `indexalg-triton`", ""]
    text = _captured(triton_main, ["--help"])
    out += _help_block("indexalg-triton --help", "indexalg-triton", text)
    for name in _triton_subcommands():
        text = _captured(triton_main, [name, "--help"])
        out += _help_block(f"indexalg-triton {name}", f"indexalg-triton-{name}", text)
    return out


def _triton_subcommands() -> list[str]:
    import argparse

    parser = importlib.import_module("indexalg_triton.cli").build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def cli_page() -> str:
    """docs/cli.md followed by the generated ``--help`` sections."""
    intro = (DOCS / "cli.md").read_text(encoding="utf-8").rstrip()
    return intro + "\n\n" + "\n".join(cli_help_sections()).rstrip() + "\n"


# --- commands and examples run at build time ------------------------------------------------

_RUN = re.compile(r"^<!--\s*run:\s*(?P<cmd>.+?)\s*-->\s*$", re.MULTILINE)


def command_output(command: str) -> str:
    """What ``indexalg ...`` or ``indexalg-triton ...`` prints (stdout, then stderr), run
    in-process; a non-zero exit status is an error (the build fails)."""
    import shlex

    argv = shlex.split(command)
    if not argv or argv[0] not in ("indexalg", "indexalg-triton"):
        raise ValueError(f"<!-- run: {command} -->: only indexalg and indexalg-triton run")
    if argv[0] == "indexalg":
        from indexalg.cli import main
    else:
        main = importlib.import_module("indexalg_triton.cli").main
    out, err = io.StringIO(), io.StringIO()
    status: object = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv[1:])
        except SystemExit as stop:
            status = stop.code
    if status not in (0, None):
        raise RuntimeError(f"`{command}` exited with {status}: {err.getvalue().strip()}")
    return (out.getvalue() + err.getvalue()).rstrip()


def with_command_outputs(markdown: str) -> str:
    """Every ``<!-- run: COMMAND -->`` line replaced by a console block of the command and
    its output."""

    def block(m: re.Match[str]) -> str:
        cmd = m.group("cmd")
        return f"```console\n$ {cmd}\n{command_output(cmd)}\n```"

    return _RUN.sub(block, markdown)


_WORKED = re.compile(r"<!--\s*worked-kernel\s*-->\s*\n```python\n(?P<code>.*?)\n```", re.DOTALL)


def worked_kernel_section(markdown: str) -> str:
    """Runs the ``<!-- worked-kernel -->`` block of the page (it defines ``src``, a
    KernelSource, and ``result``, a Verification) and returns a section with the kernel it
    generated and the verification's report; a note instead when torch or triton is missing."""
    m = _WORKED.search(markdown)
    if m is None:
        return ""
    missing = [name for name in ("torch", "triton") if importlib.util.find_spec(name) is None]
    head = "## The generated kernel\n\n"
    if missing:
        return head + (
            f"Not generated in this build: {', '.join(missing)} not installed. "
            "`indexalg-triton emit --workload int8_unpack` prints it.\n"
        )
    namespace: dict[str, Any] = {}
    exec(compile(m.group("code"), "docs/triton.md (worked kernel)", "exec"), namespace)
    source: str = namespace["src"].source
    marker = source.find("\n# kernel ")
    kernel = source[marker + 1 :] if marker >= 0 else source
    return head + (
        "Generated and verified when this site was built, by the code above:\n\n"
        f"```python\n{kernel.rstrip()}\n```\n\n"
        f"Verification in this build:\n\n```text\n{namespace['result'].line()}\n```\n"
    )


def triton_api_page() -> str:
    """docs/api/triton.md followed by a mkdocstrings directive for the package and for each
    of its modules (found without importing them), so new modules appear by themselves."""
    import pkgutil

    intro = (DOCS / "api" / "triton.md").read_text(encoding="utf-8").rstrip()
    package = importlib.util.find_spec("indexalg_triton")
    assert package is not None and package.submodule_search_locations is not None
    names = sorted(m.name for m in pkgutil.iter_modules(package.submodule_search_locations))
    directives = ["::: indexalg_triton"] + [
        f"::: indexalg_triton.{n}" for n in names if not n.startswith("_")
    ]
    return intro + "\n\n" + "\n\n".join(directives) + "\n"


_SUPPORTED_OPS = re.compile(r"^<!--\s*supported-ops\s*-->\s*$", re.MULTILINE)


def supported_ops_list() -> str:
    """The torch ops ``from_torch`` converts, read from its registry
    (:func:`indexalg_triton.frontend.supported_ops`), one line per converter module."""
    from indexalg_triton.frontend.registry import CONVERTERS, supported_ops

    by_module: dict[str, list[str]] = {}
    for op in supported_ops():
        module = CONVERTERS[op].__module__.removeprefix("indexalg_triton.")
        by_module.setdefault(module, []).append(op)
    lines = [
        f"* `{m}`: " + ", ".join(f"`{op}`" for op in ops) for m, ops in sorted(by_module.items())
    ]
    return "\n".join(lines) + "\n"


def triton_page() -> str:
    """docs/triton.md with its command outputs, the list of ops the front end converts (at
    ``<!-- supported-ops -->``) and the worked kernel's generated source."""
    text = (DOCS / "triton.md").read_text(encoding="utf-8").rstrip() + "\n"
    section = worked_kernel_section(text)
    text = _SUPPORTED_OPS.sub(lambda m: supported_ops_list(), text)
    return with_command_outputs(text) + ("\n" + section if section else "")


# --- benchmark results ---------------------------------------------------------------------

_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _outside_link(m: re.Match[str]) -> str:
    """A link into the repository becomes text: the site has only the docs folder."""
    bang, text, target = m.groups()
    if re.match(r"[a-z]+://", target) or target.startswith("#"):
        return m.group(0)
    if bang:
        return f"(image `bench/{target}` not included)"
    return f"{text} (`bench/{target}`)" if text != target else f"`bench/{target}`"


def results_markdown(text: str) -> str:
    """bench/RESULTS.md for inclusion: headings one level down, repository links as text."""
    lines = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#"):
            line = "#" + line
        elif not fenced:
            line = _LINK.sub(_outside_link, line)
        lines.append(line)
    return "\n".join(lines).strip() + "\n"


def benchmarks_page() -> str:
    """docs/benchmarks.md followed by bench/RESULTS.md (or a note that it does not exist)."""
    intro = (DOCS / "benchmarks.md").read_text(encoding="utf-8").rstrip()
    if RESULTS.is_file():
        body = (
            "## Recorded results\n\n"
            "The text of `bench/RESULTS.md` as it was when this site was built.\n\n"
            + results_markdown(RESULTS.read_text(encoding="utf-8"))
        )
    else:
        body = (
            "## Recorded results\n\n"
            "`bench/RESULTS.md` did not exist when this site was built: no benchmark results "
            "have been recorded yet. `python -m bench.simplify --append-results` writes them.\n"
        )
    return intro + "\n\n" + body


# --- entry points ----------------------------------------------------------------------------


def pages() -> dict[str, str]:
    """Every generated page: name in the site -> Markdown."""
    return {
        "rules.md": rule_catalogue(),
        "cli.md": cli_page(),
        "benchmarks.md": benchmarks_page(),
        "triton.md": triton_page(),
        "api/triton.md": triton_api_page(),
    }


def _write_with_gen_files() -> None:
    import mkdocs_gen_files

    for name, text in pages().items():
        with mkdocs_gen_files.open(name, "w") as f:
            f.write(text)


if __name__ == "__main__":  # python docs/gen_pages.py OUTDIR
    if len(sys.argv) != 2:
        sys.exit("usage: python docs/gen_pages.py OUTDIR")
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    for page, text in pages().items():
        (target / page).parent.mkdir(parents=True, exist_ok=True)
        (target / page).write_text(text, encoding="utf-8")
elif __name__ == "<run_path>":  # mkdocs-gen-files runs the script with runpy.run_path
    _write_with_gen_files()
