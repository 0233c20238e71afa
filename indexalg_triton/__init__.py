"""indexalg_triton: Triton tiling, access and kernel decisions from indexalg expressions.

``import indexalg_triton`` imports indexalg only; torch and triton are imported where used
(:func:`supported_kinds` probes ``triton.language`` on first call).
"""

from __future__ import annotations

from indexalg_triton.access import Access, AccessPlan, plan_access, plan_accesses, supported_kinds
from indexalg_triton.layout import View, dtype_bytes
from indexalg_triton.tiling import Tiling, TilingChoice, choose_tiling, make_tiling

__all__ = [
    "Access",
    "AccessPlan",
    "Tiling",
    "TilingChoice",
    "View",
    "choose_tiling",
    "dtype_bytes",
    "make_tiling",
    "plan_access",
    "plan_accesses",
    "supported_kinds",
]
