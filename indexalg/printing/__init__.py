"""Printers: canonical text (round-trips through :func:`indexalg.parse`) and code for
Python, C and Triton.  Every printer is a table keyed by node class."""

from __future__ import annotations

from indexalg.printing.c import C_PREAMBLE, C_TABLE, to_c
from indexalg.printing.common import NonNeg, syntactic_nonneg
from indexalg.printing.python import PYTHON_TABLE, to_python
from indexalg.printing.text import TEXT_TABLE, to_text
from indexalg.printing.triton import TRITON_PREAMBLE, TRITON_TABLE, to_triton

__all__ = ["to_text", "TEXT_TABLE"]
__all__ += ["C_PREAMBLE", "C_TABLE", "PYTHON_TABLE", "to_c", "to_python"]
__all__ += ["TRITON_PREAMBLE", "TRITON_TABLE", "NonNeg", "syntactic_nonneg", "to_triton"]
