"""torch and sympy, imported on first use (importing the package imports neither)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _T:
    """torch and sympy names, imported once."""

    loaded = False
    sympy: Any
    F: Any  # torch.utils._sympy.functions
    ShapeEnv: Any
    DimDynamic: Any
    ConstantSource: Any
    ValueRanges: Any
    SizeVarAllocator: Any
    sizevars: Any
    cexpr: Callable[[Any], str] | None
    texpr: Callable[[Any], str] | None
    V: Any

    @classmethod
    def load(cls) -> None:
        if cls.loaded:
            return
        import sympy
        import torch._inductor.sizevars as sizevars
        import torch.utils._sympy.functions as functions
        from torch._dynamo.source import ConstantSource
        from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
        from torch.utils._sympy.value_ranges import ValueRanges

        cls.sympy = sympy
        cls.F = functions
        cls.ShapeEnv = ShapeEnv
        cls.DimDynamic = DimDynamic
        cls.ConstantSource = ConstantSource
        cls.ValueRanges = ValueRanges
        cls.SizeVarAllocator = sizevars.SizeVarAllocator
        cls.sizevars = sizevars
        try:
            from torch._inductor.codegen.cpp_utils import cexpr

            cls.cexpr = cexpr
        except Exception:  # pragma: no cover - a torch without the C++ backend
            cls.cexpr = None
        try:
            from torch._inductor.codegen.triton import texpr

            cls.texpr = texpr
        except Exception:  # pragma: no cover - a torch without the Triton backend
            cls.texpr = None
        try:
            from torch._inductor.virtualized import V

            cls.V = V
        except Exception:  # pragma: no cover
            cls.V = None
        cls.loaded = True
