"""The scenario: a ShapeEnv with its size symbols, the guards recorded and the points they
allow; how symbols are created, and how expressions are written in reproducers."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ._torch import _T


@dataclass
class SizeSym:
    sym: Any
    hint: Any  # int or float
    lo: Any
    hi: Any
    is_float: bool
    source: str
    node: Any = None  # the SymFloat of a float symbol


@dataclass
class Scenario:
    """One ShapeEnv with its symbols, the guards recorded and the points they allow."""

    ident: int
    shape_env: Any
    sizes: list[SizeSym]
    #: recorded guards (sympy booleans true at the hints), in the order taken
    guards: list[Any] = field(default_factory=list)
    #: the steps that built it, as Python source lines (for reproducers)
    recipe: list[str] = field(default_factory=list)
    #: points over the size symbols that satisfy every guard
    points: list[dict[Any, Any]] = field(default_factory=list)
    #: for a recompile: the dropped ShapeEnv's recipe and calls (reproducer source)
    prelude: list[str] = field(default_factory=list)

    @property
    def int_sizes(self) -> list[Any]:
        return [s.sym for s in self.sizes if not s.is_float]

    @property
    def float_sizes(self) -> list[SizeSym]:
        return [s for s in self.sizes if s.is_float]


_SYMBOL_SREPR = re.compile(r"Symbol\('([A-Za-z_][A-Za-z_0-9]*)'(?:, [a-z_]+=(?:True|False))*\)")


def _srepr(e: Any) -> str:
    """``sympy.srepr`` with each Symbol written as its name (the reproducer binds every
    name: the ShapeEnv's symbols from ``create_symbol``, the loop indices ``x0``..``x2``)."""
    return _SYMBOL_SREPR.sub(r"\1", str(_T.sympy.srepr(e)))


_SOURCES = (
    "L['x'].size()[0]",
    "L['x'].size()[1]",
    "L['y'].size()[0]",
    "L['w'].size()[2]",
    "L['scale']",
)


def _float_int(z: SizeSym, floor: bool) -> Any:
    """``math.floor`` / ``math.ceil`` of a float symbol's SymFloat, as Dynamo reads them
    (``FloorToInt(f)`` / ``CeilToInt(f)``); built directly where the node does not give one."""
    if z.node is not None:
        try:
            out = (math.floor(z.node) if floor else math.ceil(z.node)).node.expr
            if getattr(out, "free_symbols", None):
                return out
        except Exception:
            pass
    F = _T.F
    return F.FloorToInt(z.sym) if floor else F.CeilToInt(z.sym)


def _bound(v: Any, default: Any) -> Any:
    try:
        if getattr(v, "is_Integer", False) or isinstance(v, int):
            return int(v)
        if getattr(v, "is_Number", False) and v.is_finite:
            return float(v)
    except Exception:
        pass
    return default


def _pyname(sym: Any) -> str:
    return str(sym.name)


def _create_symbol(se: Any, hint: Any, src: str) -> Any:
    """``create_symbol`` as every torch since 2.1 has it (DYNAMIC, so 0/1 specialise but
    equal hints do not duck-share a symbol)."""
    source = _T.ConstantSource(src)
    dyn = _T.DimDynamic.DYNAMIC
    try:
        return se.create_symbol(hint, source, dynamic_dim=dyn)
    except TypeError:
        return se.create_symbol(hint, source, dyn)
