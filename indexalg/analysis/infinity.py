"""Exact numeric bounds: ints, and ``INF`` / ``NEG_INF`` for an unbounded side.

Floats would do for infinity but not for the ints beside it: ``10**400 + float("inf")``
overflows, and a float bound silently loses the exactness every analysis relies on.
"""

from __future__ import annotations

from typing import Union

__all__ = ["Infinity", "Num", "INF", "NEG_INF", "finite"]


class Infinity:
    """An exact infinite bound, ``INF`` or ``NEG_INF``: ordered against every int however
    large (floats are not: ``10**400 + float("inf")`` overflows), closed under adding ints
    and under multiplying by non-zero ints.  ``inf - inf`` and ``0 * inf`` have no value
    and raise :class:`ArithmeticError`: a caller that reaches them has a bug."""

    __slots__ = ("sign",)

    def __init__(self, sign: int) -> None:
        self.sign = sign

    def __repr__(self) -> str:
        return "inf" if self.sign > 0 else "-inf"

    def __reduce__(self) -> tuple[type[Infinity], tuple[int]]:
        # pickle and copy rebuild by the constructor (the compiled build's class has no
        # constructor-less path)
        return (Infinity, (self.sign,))

    def __hash__(self) -> int:
        return hash(("Infinity", self.sign))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Infinity) and other.sign == self.sign

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Infinity):
            return self.sign < other.sign
        if isinstance(other, int):
            return self.sign < 0
        return NotImplemented

    def __le__(self, other: object) -> bool:
        return self == other or self < other

    def __gt__(self, other: object) -> bool:
        if isinstance(other, Infinity):
            return self.sign > other.sign
        if isinstance(other, int):
            return self.sign > 0
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        return self == other or self > other

    def __neg__(self) -> Infinity:
        return NEG_INF if self.sign > 0 else INF

    def __abs__(self) -> Infinity:
        return INF

    def __add__(self, other: Num) -> Infinity:
        if isinstance(other, Infinity) and other.sign != self.sign:
            raise ArithmeticError("inf - inf has no value")
        return self

    # __radd__ and __rmul__ are written out, not aliased (``__radd__ = __add__``): the optional
    # compiled build (scripts/build_compiled.py) compiles this class, and mypyc does not
    # support aliased methods.
    def __radd__(self, other: Num) -> Infinity:
        if isinstance(other, Infinity) and other.sign != self.sign:
            raise ArithmeticError("inf - inf has no value")
        return self

    def __sub__(self, other: Num) -> Infinity:
        return self + (-other)

    def __rsub__(self, other: Num) -> Infinity:
        return -self + other

    def __mul__(self, other: Num) -> Infinity:
        s = other.sign if isinstance(other, Infinity) else (other > 0) - (other < 0)
        if s == 0:
            raise ArithmeticError("0 * inf has no value")
        return self if s > 0 else -self

    def __rmul__(self, other: Num) -> Infinity:
        s = other.sign if isinstance(other, Infinity) else (other > 0) - (other < 0)
        if s == 0:
            raise ArithmeticError("0 * inf has no value")
        return self if s > 0 else -self


#: A numeric bound: an int, or ``NEG_INF`` / ``INF`` for an unbounded side.
Num = Union[int, Infinity]
INF: Infinity = Infinity(1)
NEG_INF: Infinity = Infinity(-1)


def finite(v: Num) -> int:
    """``v`` as an int; :class:`ArithmeticError` when it is infinite."""
    if isinstance(v, Infinity):
        raise ArithmeticError(f"{v!r} is not a finite bound")
    return v
