"""Conversions between indexalg expressions and other libraries' (sympy, torch's sympy
functions).  Importing this package imports none of those libraries: each converter imports
its library inside the functions that need it."""

from __future__ import annotations

from indexalg.interop.sympy import from_sympy, to_sympy

__all__ = ["from_sympy", "to_sympy"]
