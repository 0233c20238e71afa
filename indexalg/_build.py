"""Which build of indexalg is running: compiled with mypyc, or pure Python.

``setup.py`` writes this module anew into every wheel it builds (its ``build_py`` step), with
the values of that build; the source tree, and so an editable install, keeps the values below
("pure", "source tree").  :func:`describe` is what ``indexalg --version`` prints in
parentheses, for example::

    indexalg 0.1.0 (compiled: mypyc 2.4.1, 13 of 13 modules)
    indexalg 0.1.0 (pure Python: wheel built with INDEXALG_PURE=1)
    indexalg 0.1.0 (pure Python: source tree)

The compiled modules are checked where they run: a module of :data:`MODULES` that is found
as a ``.py`` file rather than an extension module is not counted.  Nothing here imports a
module; :func:`importlib.util.find_spec` only locates it.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util

#: "compiled" (the modules of :data:`MODULES` are mypyc extension modules) or "pure".
KIND = "pure"
#: Why a pure build is pure: "source tree", "wheel built with INDEXALG_PURE=1", "wheel built
#: without a C compiler", "wheel built without mypyc"; "" for a compiled build.
REASON = "source tree"
#: The version of mypy (mypyc) that compiled the build; "" for a pure one.
MYPYC = ""
#: The modules compiled (dotted names); empty for a pure build.
MODULES: tuple[str, ...] = ()


def is_extension(module: str) -> bool:
    """Whether ``module`` is found as an extension module (a compiled ``.so``/``.pyd``)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    origin = spec.origin if spec is not None else None
    return origin is not None and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled_modules() -> list[str]:
    """The modules of :data:`MODULES` that run as extension modules here."""
    return [m for m in MODULES if is_extension(m)]


def describe() -> str:
    """One line: which build this is (``compiled: mypyc VERSION, N of M modules`` or
    ``pure Python: REASON``)."""
    if KIND == "compiled":
        return f"compiled: mypyc {MYPYC}, {len(compiled_modules())} of {len(MODULES)} modules"
    if is_extension("indexalg.expr"):  # a pure tree with extension modules left beside it
        return f"pure Python: {REASON}, but indexalg.expr is an extension module"
    return f"pure Python: {REASON}"
