"""Moved to :mod:`indexalg.poly`; this name stays until its last importers move."""

from __future__ import annotations

from indexalg.poly import divide_exact

__all__ = ["divide_exact"]
