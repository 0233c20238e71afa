"""indexalg_triton: Triton tiling, access and kernel decisions from indexalg expressions,
kernel specs (built directly or traced from torch), deterministic Triton source, and a
runtime that runs and verifies the kernels (GPU, or the Triton interpreter on a CPU).

``import indexalg_triton`` imports indexalg only; torch and triton are imported where used
(:func:`supported_kinds` probes ``triton.language`` on first call).  Its errors
(:mod:`indexalg_triton.errors`) are subclasses of the core's ``InvalidOperationError``.
"""

from __future__ import annotations

from indexalg_triton.access import Access, AccessPlan, plan_access, plan_accesses, supported_kinds
from indexalg_triton.codegen import Config, KernelSource, default_configs, generate
from indexalg_triton.errors import (
    ConfigError,
    FrontendError,
    IndexAlgTritonError,
    LaunchError,
    SpecError,
    UnsupportedOp,
    VerificationError,
)
from indexalg_triton.frontend import from_torch
from indexalg_triton.layout import View, dtype_bytes
from indexalg_triton.planner import TilingChoice, choose_tiling
from indexalg_triton.spec import (
    Buffer,
    Check,
    ElementwiseOp,
    IndexValue,
    KernelSpec,
    Load,
    MultiReduction,
    Op,
    Reduction,
    SpecBuilder,
    Store,
)
from indexalg_triton.tiling import Tiling, make_tiling

__all__ = [
    "Access",
    "AccessPlan",
    "Buffer",
    "Check",
    "Config",
    "ConfigError",
    "ElementwiseOp",
    "FrontendError",
    "IndexAlgTritonError",
    "IndexValue",
    "KernelSource",
    "KernelSpec",
    "LaunchError",
    "Load",
    "MultiReduction",
    "Op",
    "Reduction",
    "SpecBuilder",
    "SpecError",
    "Store",
    "Tiling",
    "TilingChoice",
    "UnsupportedOp",
    "VerificationError",
    "View",
    "choose_tiling",
    "default_configs",
    "dtype_bytes",
    "from_torch",
    "generate",
    "make_tiling",
    "plan_access",
    "plan_accesses",
    "supported_kinds",
]
