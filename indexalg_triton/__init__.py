"""indexalg_triton: Triton tiling, access and kernel decisions from indexalg expressions.

``import indexalg_triton`` imports indexalg only; torch and triton are imported where used.
"""

from __future__ import annotations

__all__: list[str] = []
