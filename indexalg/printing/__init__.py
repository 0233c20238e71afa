"""Printers: canonical text (round-trips through :func:`indexalg.parse`) and code for
Python, C and Triton.  Every printer is a table keyed by node class."""

from __future__ import annotations

from indexalg.printing.text import TEXT_TABLE, to_text

__all__ = ["to_text", "TEXT_TABLE"]
