"""A Griffe extension for the API reference: indexalg's docstrings use a few reStructuredText
habits that Markdown does not know; this rewrites them before mkdocstrings renders them.

* Sphinx roles become code spans: ``:func:`~indexalg.prove.prove``` -> `` `prove` ``,
  ``:class:`indexalg.errors.ParseError``` -> `` `indexalg.errors.ParseError` ``,
  ``:mod:`text <target>``` -> `` `text` ``.  (Not cross-reference links: a link to an object
  the reference does not render would be a broken link, and the build is strict.)
* A paragraph ending in ``::`` introduces a literal block: the ``::`` becomes ``:`` (the
  indented block after it is already a Markdown code block).

Only the text changes; the docstrings in the source stay as they are.  Loaded from
mkdocs.yml as ``docs/griffe_roles.py:SphinxRolesToMarkdown``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["SphinxRolesToMarkdown", "markdown_docstring"]

# :role:`target`, :role:`~target`, :role:`text <target>`; roles may be domain-qualified (py:func).
_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`(~?)([^`<]*?)(?:\s*<([^`>]*)>)?`")
_LITERAL_INTRO = re.compile(r"::[ \t]*$", re.MULTILINE)


def _role(m: re.Match[str]) -> str:
    tilde, text, target = m.group(1), m.group(2).strip(), m.group(3)
    if target is not None and text:
        return f"`{text}`"
    name = text or (target or "")
    if tilde:
        name = name.rsplit(".", 1)[-1]
    return f"`{name}`"


def _literal_intro(m: re.Match[str]) -> str:
    return ":"


def markdown_docstring(text: str) -> str:
    """``text`` with Sphinx roles as code spans and ``::`` literal-block openers as ``:``."""
    text = _ROLE.sub(_role, text)
    lines = []
    for line in text.split("\n"):
        if line.strip() == "::":
            lines.append("")  # a bare '::' line only announces the block
        else:
            lines.append(_LITERAL_INTRO.sub(_literal_intro, line))
    return "\n".join(lines)


class SphinxRolesToMarkdown(griffe.Extension):
    """Rewrites every docstring with :func:`markdown_docstring` as Griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
