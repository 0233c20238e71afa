"""Run the code examples of documentation pages (standard library and indexalg only).

    python docs/doc_examples.py docs/quickstart.md [docs/semantics.md ...] [--slow]

How a fenced block in a page is checked, by its language:

* ``python``: executed.  The blocks of one page run in order in one namespace, as a reader
  would paste them; ``assert`` statements in them are the checks.  A block whose first line
  is ``# file: NAME.py`` is written to a temporary folder on ``sys.path`` instead (a module
  that later blocks import).
* ``pycon``: a doctest (``>>>`` lines and the output they print) in the same namespace, with
  ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``.
* ``console``: ``$ indexalg ...`` and ``$ indexalg-triton ...`` lines are run in-process, and
  what they print (stdout, then stderr) must equal the lines that follow, up to the next
  ``$`` (``...`` stands for any text within a line, for a solver's choice of counterexample).
  The exit status must be 0, or N when the line ends with ``# exits N``.  Other commands are
  refused: pages use ``sh`` for commands that are shown but not run.
* anything else (``sh``, ``text``, ``toml``): shown, not run.

An HTML comment on the line before a block changes this: ``<!-- docs-test: slow -->`` runs the
block only with ``--slow`` (``slow=True``), ``<!-- docs-test: skip REASON -->`` never.

tests/test_docs.py runs every page through :func:`run_page`; tests/test_packaging.py runs the
quick start with this script from a virtual environment holding only the built wheel.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Block",
    "Command",
    "COMMANDS",
    "PageRun",
    "output_matches",
    "read_blocks",
    "read_console",
    "run_block",
    "run_page",
]

#: The commands a ``console`` block may run.
COMMANDS = ("indexalg", "indexalg-triton")


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, text, the line its text starts on, and its marker."""

    lang: str
    text: str
    line: int
    marker: str = ""  # "", "slow" or "skip"


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<what>slow|skip)\b[^>]*-->\s*$")


def read_blocks(markdown: str) -> list[Block]:
    """The fenced blocks of ``markdown`` in order (indented fences, inside admonitions,
    included, their indentation removed).  An unclosed fence is an error."""
    lines = markdown.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        lang = (m.group("info").strip().split() or [""])[0]
        mm = _MARKER.match(lines[i - 1]) if i > 0 else None
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not _closes(lines[j], fence):
            text = lines[j]
            body.append(text[len(indent) :] if text.startswith(indent) else text.lstrip())
            j += 1
        if j >= len(lines):
            raise ValueError(f"unclosed code fence opened on line {i + 1}")
        blocks.append(Block(lang, "\n".join(body) + "\n", i + 2, mm.group("what") if mm else ""))
        i = j + 1
    return blocks


def _closes(line: str, fence: str) -> bool:
    """A closing fence: the opening fence's character, at least as many, nothing else."""
    s = line.strip()
    return len(s) >= len(fence) and s == fence[0] * len(s)


@dataclass(frozen=True)
class Command:
    """One ``$ command`` of a console block, its expected output and exit status."""

    argv: list[str]
    expected: str
    status: int
    line: int


def read_console(block: Block) -> list[Command]:
    """The ``$ command`` lines of a console block, each with the output that follows it."""
    commands: list[Command] = []
    current: tuple[str, int] | None = None
    output: list[str] = []

    def flush() -> None:
        if current is None:
            return
        text, line = current
        m = re.search(r"#\s*exits\s+(\d+)\s*$", text)
        commands.append(
            Command(
                shlex.split(text, comments=True),
                "\n".join(output).rstrip(),
                int(m.group(1)) if m else 0,
                line,
            )
        )

    for k, line in enumerate(block.text.splitlines()):
        if line.startswith("$ "):
            flush()
            current, output = (line[2:], block.line + k), []
        elif current is None:
            raise ValueError(f"console block at line {block.line}: output before any '$ '")
        else:
            output.append(line.rstrip())
    flush()
    return commands


def output_matches(got: str, expected: str) -> bool:
    """Equal, where ``...`` in ``expected`` stands for any text within one line."""
    if "..." not in expected:
        return got == expected
    pattern = re.escape(expected).replace(re.escape("..."), ".*")
    return re.fullmatch(pattern, got) is not None


@dataclass
class PageRun:
    """The state the blocks of one page share: its name, the folder for ``# file:``
    modules, one namespace, and how many blocks ran."""

    page: str
    modules: Path
    namespace: dict[str, Any] = field(default_factory=dict)
    ran: int = 0


class ExampleFailure(AssertionError):
    """A documented example that does not do what its page says."""


def _run_python(block: Block, run: PageRun) -> None:
    first = block.text.split("\n", 1)[0].strip()
    m = re.fullmatch(r"#\s*file:\s*([A-Za-z_][A-Za-z0-9_]*\.py)", first)
    if m:
        (run.modules / m.group(1)).write_text(block.text, encoding="utf-8")
        sys.modules.pop(m.group(1)[:-3], None)
        return
    exec(compile(block.text, f"{run.page}:{block.line}", "exec"), run.namespace)
    run.ran += 1


def _run_pycon(block: Block, run: PageRun) -> None:
    name = f"{run.page}:{block.line}"
    test = doctest.DocTestParser().get_doctest(block.text, {}, name, name, block.line)
    test.globs = run.namespace  # get_doctest copies its globals; a page shares one namespace
    out = io.StringIO()
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    runner.run(test, out=out.write, clear_globs=False)
    if runner.failures:
        raise ExampleFailure(f"doctest failed in {name}:\n{out.getvalue()}")
    run.ran += 1


def command_main(argv0: str) -> Callable[[list[str]], int]:
    """The in-process entry point of a documented command; argparse's exits become statuses."""
    if argv0 == "indexalg":
        from indexalg.cli import main
    else:
        from indexalg_triton.cli import main

    def run(argv: list[str]) -> int:
        status: object
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code
        return status if isinstance(status, int) else (0 if status is None else 2)

    return run


def _run_console(block: Block, run: PageRun) -> None:
    for cmd in read_console(block):
        where = f"{run.page}:{cmd.line}"
        if not cmd.argv or cmd.argv[0] not in COMMANDS:
            raise ExampleFailure(f"{where}: console blocks run only {COMMANDS}; use ```sh")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = command_main(cmd.argv[0])(cmd.argv[1:])
        printed = (out.getvalue() + err.getvalue()).rstrip()
        got = "\n".join(x.rstrip() for x in printed.splitlines())
        if not output_matches(got, cmd.expected):
            raise ExampleFailure(f"{where}: `{shlex.join(cmd.argv)}` printed\n{got}")
        if status != cmd.status:
            raise ExampleFailure(f"{where}: exit status {status}, expected {cmd.status}")
    run.ran += 1


RUNNERS: dict[str, Callable[[Block, PageRun], None]] = {
    "python": _run_python,
    "pycon": _run_pycon,
    "console": _run_console,
}


def run_block(block: Block, run: PageRun, *, slow: bool = False) -> None:
    """Check one block (nothing for a language that is not run, or a skipped block)."""
    runner = RUNNERS.get(block.lang)
    if runner is None or block.marker == "skip" or (block.marker == "slow" and not slow):
        return
    runner(block, run)


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """``folder`` as the working directory and first on ``sys.path``."""
    old = os.getcwd()
    sys.path.insert(0, str(folder))
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)
        sys.path.remove(str(folder))


def run_page(path: Path, folder: Path, *, slow: bool = False, name: str | None = None) -> int:
    """Check every block of the page at ``path`` in order, with ``folder`` as the working
    directory (and the home of ``# file:`` modules); returns how many blocks ran."""
    run = PageRun(name or path.name, folder)
    blocks = read_blocks(path.read_text(encoding="utf-8"))
    with _inside(folder):
        for block in blocks:
            run_block(block, run, slow=slow)
    return run.ran


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    slow = "--slow" in args
    pages = [Path(a) for a in args if a != "--slow"]
    if not pages:
        print(__doc__)
        return 2
    for page in pages:
        with tempfile.TemporaryDirectory(prefix="indexalg-docs-") as tmp:
            try:
                ran = run_page(page.resolve(), Path(tmp), slow=slow, name=str(page))
            except ExampleFailure as failure:
                print(f"FAIL {page}: {failure}")
                return 1
        print(f"ok   {page}: {ran} blocks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
