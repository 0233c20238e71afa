"""The documentation: every example in docs/ runs, the generated pages are right, and the site
builds with ``mkdocs build --strict`` (a broken link fails it).

How each fenced block is checked (``python`` executed, ``pycon`` doctested, ``console``
commands run and their output compared; markers ``<!-- docs-test: slow -->`` and
``<!-- docs-test: skip REASON -->``) is the docstring of docs/doc_examples.py, the runner used
here and by tests/test_packaging.py.  Pages owned elsewhere whose blocks are fragments
(``COMPILE_ONLY``) are only compiled.

The mkdocs tests are skipped when mkdocs and its plugins are not installed (the ``docs``
extra); the examples need indexalg's optional z3 and sympy (and torch and triton for the
pages about them).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _load(name: str, path: Path) -> ModuleType:
    """A helper module of docs/ (not a package), loaded by path."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


examples = _load("_docs_doc_examples", DOCS / "doc_examples.py")

#: Pages whose Python blocks are fragments (names defined in prose): compiled, not run.
COMPILE_ONLY = {"fuzzing.md": "owned by the fuzzing work; its blocks are fragments"}
#: Pages that must have executed examples (so a page cannot silently lose its checks).
MUST_RUN = (
    "index.md",
    "quickstart.md",
    "semantics.md",
    "prover.md",
    "migrating.md",
    "triton.md",
    "cli.md",
)
#: What each page's examples need besides indexalg.
NEEDS = {"migrating.md": ("torch",), "triton.md": ("torch", "triton")}


def doc_pages() -> list[Path]:
    """The hand-written Markdown pages (docs/**/*.md), sorted."""
    return sorted(DOCS.rglob("*.md"))


def page_id(path: Path) -> str:
    return path.relative_to(DOCS).as_posix()


def _needs(*modules: str) -> None:
    for m in modules:
        if importlib.util.find_spec(m) is None:
            pytest.skip(f"{m} is not installed")


RUN_PAGES = [p for p in doc_pages() if page_id(p) not in COMPILE_ONLY]
SLOW_PAGES = [p for p in RUN_PAGES if "docs-test: slow" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", RUN_PAGES, ids=page_id)
def test_page_examples_run(path: Path, tmp_path: Path) -> None:
    _needs("z3", "sympy", *NEEDS.get(page_id(path), ()))
    ran = examples.run_page(path, tmp_path, name=f"docs/{page_id(path)}")
    if page_id(path) in MUST_RUN:
        assert ran > 0, f"{page_id(path)} has no executed example"


@pytest.mark.slow
@pytest.mark.parametrize("path", SLOW_PAGES, ids=page_id)
def test_page_examples_run_with_slow_blocks(path: Path, tmp_path: Path) -> None:
    _needs("z3", "sympy", *NEEDS.get(page_id(path), ()))
    assert examples.run_page(path, tmp_path, slow=True, name=f"docs/{page_id(path)}") > 0


@pytest.mark.parametrize("page", sorted(COMPILE_ONLY))
def test_compile_only_pages_compile(page: str) -> None:
    for block in examples.read_blocks((DOCS / page).read_text(encoding="utf-8")):
        if block.lang == "python":
            compile(block.text, f"docs/{page}:{block.line}", "exec")


def test_every_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for path in doc_pages():
        assert f": {page_id(path)}\n" in config, f"{page_id(path)} is not in mkdocs.yml's nav"


# --- the example runner itself -----------------------------------------------------------------


@dataclass(frozen=True)
class ReadCase:
    markdown: str
    expected: list[tuple[str, str, int, str]]  # (lang, text, first line of text, marker)


READ_CASES = [
    ReadCase("text\n```python\nx = 1\n```\n", [("python", "x = 1\n", 3, "")]),
    ReadCase(
        "<!-- docs-test: slow -->\n```python\nx = 1\n```\n", [("python", "x = 1\n", 3, "slow")]
    ),
    ReadCase(
        "<!-- docs-test: skip needs a GPU -->\n```pycon\n>>> 1\n1\n```\n",
        [("pycon", ">>> 1\n1\n", 3, "skip")],
    ),
    ReadCase(
        '!!! note\n    ```python title="a.py"\n    if x:\n        y = 1\n    ```\n',
        [("python", "if x:\n    y = 1\n", 3, "")],
    ),
    ReadCase(
        "````markdown\n```python\nx\n```\n````\n", [("markdown", "```python\nx\n```\n", 2, "")]
    ),
    ReadCase(
        "```\nplain\n```\n```sh\nmake\n```\n", [("", "plain\n", 2, ""), ("sh", "make\n", 5, "")]
    ),
]


@pytest.mark.parametrize("case", READ_CASES, ids=lambda c: c.markdown[:24])
def test_read_blocks(case: ReadCase) -> None:
    got = [(b.lang, b.text, b.line, b.marker) for b in examples.read_blocks(case.markdown)]
    assert got == case.expected


def test_read_blocks_rejects_an_unclosed_fence() -> None:
    with pytest.raises(ValueError, match="unclosed"):
        examples.read_blocks("```python\nx = 1\n")


def test_read_console_pairs_commands_with_output() -> None:
    block = examples.Block(
        "console",
        "$ indexalg eval x x=3\n3\n$ indexalg prove 'x < 0' -r x=4   # exits 1\ndisproved\n",
        1,
    )
    got = [(c.argv, c.expected, c.status) for c in examples.read_console(block)]
    assert got == [
        (["indexalg", "eval", "x", "x=3"], "3", 0),
        (["indexalg", "prove", "x < 0", "-r", "x=4"], "disproved", 1),
    ]


@dataclass(frozen=True)
class MatchCase:
    got: str
    expected: str
    matches: bool


MATCH_CASES = [
    MatchCase("disproved (z3)\ncounterexample: x=0", "disproved (z3)\ncounterexample: x=...", True),
    MatchCase(
        "disproved (z3)\ncounterexample: x=0", "disproved (z3)\ncounterexample: y=...", False
    ),
    MatchCase("a\nb\nc", "a\n...", False),  # ... stays within one line
    MatchCase("a.b", "a.b", True),
    MatchCase("axb", "a.b", False),  # a dot is a dot
]


@pytest.mark.parametrize("case", MATCH_CASES, ids=lambda c: c.expected)
def test_output_matches(case: MatchCase) -> None:
    assert examples.output_matches(case.got, case.expected) is case.matches


def _page(tmp_path: Path, markdown: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(markdown, encoding="utf-8")
    return page


@dataclass(frozen=True)
class FailCase:
    markdown: str
    message: str


FAIL_CASES = [
    FailCase("```console\n$ indexalg eval 'x // 2' x=7\n4\n```\n", "printed"),
    FailCase(
        "```console\n$ indexalg eval 'x // 2' x=7   # exits 1\n3\n```\n",
        "exit status 0, expected 1",
    ),
    FailCase("```console\n$ ls\n```\n", "console blocks run only"),
    FailCase("```pycon\n>>> 7 // -2\n-3\n```\n", "doctest failed"),
    FailCase("```python\nassert 7 // -2 == -3\n```\n", ""),
]


@pytest.mark.parametrize("case", FAIL_CASES, ids=lambda c: c.markdown[:30])
def test_a_wrong_example_fails(case: FailCase, tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match=case.message or None):
        examples.run_page(_page(tmp_path, case.markdown), tmp_path)


def test_file_blocks_become_importable_modules(tmp_path: Path) -> None:
    markdown = "```python\n# file: helper_mod.py\nVALUE = 41\n```\n```python\nimport helper_mod\nassert helper_mod.VALUE + 1 == 42\n```\n"
    assert examples.run_page(_page(tmp_path, markdown), tmp_path) == 1


def test_slow_and_skipped_blocks(tmp_path: Path) -> None:
    markdown = "<!-- docs-test: slow -->\n```python\nraise SystemExit(1)\n```\n<!-- docs-test: skip never -->\n```python\nraise SystemExit(2)\n```\n"
    assert examples.run_page(_page(tmp_path, markdown), tmp_path) == 0
    with pytest.raises(SystemExit):
        examples.run_page(_page(tmp_path, markdown), tmp_path, slow=True)


# --- the generated pages ---------------------------------------------------------------------


def _gen_pages() -> ModuleType:
    return _load("_docs_gen_pages", DOCS / "gen_pages.py")


@dataclass(frozen=True)
class MathCase:
    text: str
    expected: str


MATH_CASES = [
    MathCase("x // 64", "⌊x/64⌋"),
    MathCase("FloorDiv(FloorDiv(x, y), z)", "⌊⌊x/y⌋/z⌋"),
    MathCase("x // (y*z)", "⌊x/(y·z)⌋"),
    MathCase("(x + 1) // 4", "⌊(x + 1)/4⌋"),
    MathCase("CeilDiv(x, -2)", "⌈x/(-2)⌉"),
    MathCase("ModularIndexing(x, 1, 8)", "⌊x/1⌋ mod 8"),
    MathCase("ModularIndexing(x, 64, 8)", "⌊x/64⌋ mod 8"),
    MathCase("Mod(Mod(x, y), z)", "(x mod y) mod z"),
    MathCase("Mod(x + 1, 8)", "(x + 1) mod 8"),
    MathCase("CleanDiv(x, y)", "x ÷ y"),
    MathCase("x - 2*y + 3", "x - 2·y + 3"),
    MathCase("-x", "-x"),
    MathCase("Min(x, 3)", "min(3, x)"),
    MathCase("Where(x < 0, x + 8, x)", "(x + 8 if x < 0 else x)"),
    MathCase("0 < y", "y > 0"),
    MathCase("0 <= x", "x ≥ 0"),
]


@pytest.mark.parametrize("case", MATH_CASES, ids=lambda c: c.text)
def test_math_notation(case: MathCase) -> None:
    import indexalg as ia

    assert _gen_pages().math(ia.parse(case.text)) == case.expected


def test_math_notation_reads_divides_as_divisibility() -> None:
    from indexalg.rules import divides, wilds

    a, b = wilds("a b")
    assert _gen_pages().math(divides(a, b)) == "a ∣ b"


def test_rule_catalogue_has_every_rule() -> None:
    from indexalg.rules import ALL

    page = _gen_pages().rule_catalogue(env={"INDEXALG_DOCS_VERIFY": "0"})
    for rule in ALL:
        assert f"\n### {rule.name}\n" in page
        assert f"[`{rule.name}`](#{rule.name})" in page
        assert rule.origin in page
    assert "not run for this build" in page


def test_rule_catalogue_runs_the_verifier_within_its_budget() -> None:
    _needs("z3")
    from indexalg.rules import ALL

    gen = _gen_pages()
    verdicts, source = gen.verdicts_from_env(ALL, {"INDEXALG_DOCS_VERIFY_BUDGET": "0"})
    assert verdicts == {} and "time budget of 0 s ran out" in source
    first_two = ALL.rules[:2]  # floordiv_by_one, floordiv_by_minus_one: quick, proved
    got = gen.verdicts_by_running(first_two, 60.0)
    assert [got[r.name][0] for r in first_two] == ["proved", "proved"]


def test_rule_catalogue_uses_only_matching_verdicts(tmp_path: Path) -> None:
    from indexalg.rules import ALL

    first, second = ALL.rules[0], ALL.rules[1]
    rows = [
        {"name": first.name, "rule": str(first), "status": "proved", "seconds": 0.5},
        {"name": second.name, "rule": "stale text", "status": "proved", "seconds": 0.5},
    ]
    path = tmp_path / "verdicts.json"
    path.write_text(json.dumps({"rules": rows}), encoding="utf-8")
    gen = _gen_pages()
    verdicts, source = gen.verdicts_from_env(ALL, {"INDEXALG_DOCS_VERDICTS": str(path)})
    assert verdicts == {first.name: ("proved", "(0.50 s)")}
    assert f"1 of {len(ALL)} rules" in source


def test_cli_page_has_every_subcommand() -> None:
    from indexalg.cli import available_subcommands

    page = _gen_pages().cli_page()
    for name, _ in available_subcommands():
        assert f"usage: indexalg {name} " in page
    assert "usage: indexalg-triton" in page


def test_run_comments_become_console_blocks() -> None:
    page = "text\n<!-- run: indexalg eval 'x // 2' x=7 -->\nmore\n"
    got = _gen_pages().with_command_outputs(page)
    assert got == "text\n```console\n$ indexalg eval 'x // 2' x=7\n3\n```\nmore\n"


def test_a_failing_run_comment_fails_the_build() -> None:
    with pytest.raises(RuntimeError, match="exited with 2"):
        _gen_pages().command_output("indexalg eval 'x // 0' x=7")


def test_results_markdown_demotes_headings_and_unlinks_repository_files() -> None:
    text = "# Results\n\nsee [the corpus](corpus/load.py) and [docs](https://example.org)\n```\n# not a heading\n```\n"
    got = _gen_pages().results_markdown(text)
    assert got == (
        "## Results\n\nsee the corpus (`bench/corpus/load.py`) and [docs](https://example.org)\n"
        "```\n# not a heading\n```\n"
    )


#: indexalg modules the API reference leaves out on purpose: internal layers, documented
#: through the modules that use them (a tree: the module and everything under it) ...
INTERNAL_TREES = (
    "indexalg.analysis",  # behind ia.bounds, indexalg.analyzer and the prover's first tiers
    "indexalg.cli.",  # one module per subcommand: the CLI reference is their --help
    "indexalg.procedures.",  # listed in the rule catalogue; the package is in the reference
    "indexalg.inductor.",  # the plug-in's private modules; the package is in the reference
    "indexalg.testing.plugin_fuzz",  # the plug-in's fuzzer (needs torch): docs/fuzzing.md
)
#: ... and single modules.
INTERNAL_MODULES = (
    "indexalg.__main__",
    "indexalg._bigint",  # integer <-> text of any size, behind the parser and printers
    "indexalg._build",  # the build record setup.py writes into each wheel (indexalg --version)
    "indexalg._rangespec",  # reading a ranges spec entry by entry, behind indexalg.ranges
    "indexalg.interop",  # packages whose modules are in the reference
    "indexalg.printing",
    "indexalg.testing",
    "indexalg.rules.canonical",  # rule tables: the rule catalogue
    "indexalg.rules.claims",
    "indexalg.rules.divmod",
    "indexalg.rules.range_conditions",
    "indexalg.testing.fuzz",  # the runner behind `indexalg fuzz`
)


def _internal(module: str) -> bool:
    return module in INTERNAL_MODULES or any(
        (module == t.rstrip(".") and not t.endswith(".")) or module.startswith(t.rstrip(".") + ".")
        for t in INTERNAL_TREES
    )


def test_every_public_module_is_in_the_api_reference() -> None:
    import pkgutil

    import indexalg

    referenced: set[str] = set()
    for page in sorted((DOCS / "api").glob("*.md")):
        referenced |= set(
            re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.MULTILINE)
        )
    modules = ["indexalg"] + [m.name for m in pkgutil.walk_packages(indexalg.__path__, "indexalg.")]
    missing = [m for m in modules if m not in referenced and not _internal(m)]
    assert missing == [], (
        f"add these modules to a page of docs/api/ (or to INTERNAL_MODULES): {missing}"
    )
    assert not _internal("indexalg.cli") and not _internal("indexalg.interop.sympy")


def test_triton_api_page_lists_every_module() -> None:
    import pkgutil

    import indexalg_triton

    page = _gen_pages().triton_api_page()
    for m in pkgutil.iter_modules(indexalg_triton.__path__):
        if m.name.startswith("_"):  # __main__ and private modules are not documented
            continue
        assert f"::: indexalg_triton.{m.name}\n" in page


# --- the site --------------------------------------------------------------------------------

MKDOCS_MODULES = (
    "mkdocs",
    "material",
    "mkdocstrings",
    "mkdocstrings_handlers.python",
    "mkdocs_gen_files",
)


def _mkdocs(args: list[str], cwd: Path, **extra_env: str) -> subprocess.CompletedProcess[str]:
    # The two variables silence banners that mkdocs-material and a dependency print.
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true", **extra_env)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _needs(*MKDOCS_MODULES)
    site = tmp_path_factory.mktemp("site")
    # The rule verifier is tested apart; the build test checks the site, not the proofs.
    done = _mkdocs(["build", "--strict", "--site-dir", str(site)], ROOT, INDEXALG_DOCS_VERIFY="0")
    assert done.returncode == 0, done.stderr[-4000:]
    return site


def test_site_builds_strict(built_site: Path) -> None:
    from indexalg.rules import ALL

    catalogue = (built_site / "rules" / "index.html").read_text(encoding="utf-8")
    for rule in ALL:
        assert f'id="{rule.name}"' in catalogue
    reference = (built_site / "api" / "indexalg" / "index.html").read_text(encoding="utf-8")
    assert "indexalg.simplify" in reference


def test_site_has_no_sphinx_roles_left(built_site: Path) -> None:
    for page in sorted((built_site / "api").rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert ":func:" not in text and ":class:" not in text, page


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The validation settings of mkdocs.yml, on a two-page site with one broken link."""
    _needs(*MKDOCS_MODULES)
    ours = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    section = re.search(r"^validation:\n(?:  .*\n)+", ours, re.MULTILINE)
    assert section is not None
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[ok](other.md)\n", encoding="utf-8")
    (tmp_path / "docs" / "other.md").write_text(
        "# Other\n\n[missing](nowhere.md)\n", encoding="utf-8"
    )
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nstrict: true\nnav:\n  - index.md\n  - other.md\n" + section.group(0),
        encoding="utf-8",
    )
    done = _mkdocs(["build", "--strict"], tmp_path)
    assert done.returncode != 0
    assert "nowhere.md" in done.stderr
    (tmp_path / "docs" / "other.md").write_text(
        "# Other\n\n[home](index.md#no-such-anchor)\n", encoding="utf-8"
    )
    done = _mkdocs(["build", "--strict"], tmp_path)
    assert done.returncode != 0
    assert "no-such-anchor" in done.stderr
