"""Interned, immutable expression nodes with one exact semantics.

Every node is built through one factory, :func:`_intern`, that looks up
``(class, payload, children)`` in a weak-value table: structurally equal expressions are
the same object, so ``==`` is ``is`` and hashing is by identity.  Constructors do no
simplification beyond folding literal integers and keeping sums and products in their
canonical form:

* a product is ``coeff * f1 * f2 * ...`` (:class:`Mul`): an integer coefficient (the
  payload) and at least one non-integer factor, factors sorted, repeats kept; a product
  with a sum in it is expanded, so every integer polynomial has one form;
* a sum is ``t1 + t2 + ... + const`` (:class:`Add`): terms with distinct monomials sorted by
  monomial, like terms combined, zero terms dropped, the integer constant as payload.

The order is structural (:attr:`Expr.key`), never an object's id or hash, so printed output
does not depend on PYTHONHASHSEED or on the order in which nodes were first built.

Semantics (the evaluator, the analyses, the Z3 encoding and every printer share them):
integers are unbounded; ``FloorDiv`` is Python ``//``, ``Mod`` is Python ``%``,
``ModularIndexing(a, d, m)`` is ``(a // d) % m`` with ``d >= 1`` and ``m >= 1``, ``CeilDiv`` is
the exact ceiling for any sign, ``CleanDiv`` evaluates as ``//`` and records that its producer
asserted exact division.  Booleans are not integers.
"""

from __future__ import annotations

import bisect
import keyword
import operator
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, SupportsIndex, TypeVar, Union

from indexalg import ops
from indexalg._bigint import int_summary
from indexalg.errors import DepthError, DivisionByZeroError, ExprTypeError, InvalidOperationError

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

__all__ = [
    "Expr",
    "Integer",
    "Symbol",
    "Wild",
    "Add",
    "Mul",
    "FloorDiv",
    "Mod",
    "ModularIndexing",
    "CeilDiv",
    "CleanDiv",
    "Min",
    "Max",
    "Where",
    "BoolConst",
    "Lt",
    "Le",
    "Eq",
    "Ne",
    "And",
    "Or",
    "Not",
    "true",
    "false",
    "ExprLike",
    "as_expr",
    "symbols",
    "integer",
    "postorder",
    "MAX_DEPTH",
]

#: What the constructors and operators take: an expression, an int, or any integer-like
#: object (``__index__``: numpy integers), as :func:`as_expr` converts them.  (``SupportsIndex``
#: also keeps the runtime argument check of the optional compiled build from rejecting a value
#: before :func:`as_expr` can raise its own error.)
ExprLike = Union["Expr", int, SupportsIndex]
_NO_SYMBOLS: frozenset[Any] = frozenset()
SortKey = tuple[Any, ...]

#: The deepest nesting a node may have (a leaf has depth 1).  Every layer (parser, printers,
#: evaluator, interop, analyses, simplifier, prover) works on expressions up to this depth
#: under Python's default recursion limit, with room to spare for the caller's own stack;
#: building a deeper node raises :class:`~indexalg.errors.DepthError`, never RecursionError.
#: Measured: see docs/semantics.md, "Limits".
MAX_DEPTH = 200

_TABLE: weakref.WeakValueDictionary[tuple[Any, ...], Expr] = weakref.WeakValueDictionary()


def _no_printer(e: Expr) -> str:  # pragma: no cover - indexalg/__init__ installs the printer
    return f"<{type(e).__name__} node>"


#: The text printer ``str()`` uses.  The printer lives above this module
#: (:mod:`indexalg.printing.text`) and installs itself with :func:`set_text_printer` when
#: imported, so this module never imports upwards.
_TEXT_PRINTER: list[Callable[[Expr], str]] = [_no_printer]


def set_text_printer(printer: Callable[[Expr], str]) -> None:
    """Install the function ``str(expr)`` calls (done once by :mod:`indexalg.printing.text`)."""
    _TEXT_PRINTER[0] = printer


_C = TypeVar("_C", bound=type)


def _python_class(cls: _C) -> _C:
    """Marks a node class (returns it unchanged).

    The node classes must stay ordinary Python classes in the optional compiled build
    (scripts/build_compiled.py): interning needs weak references to nodes and allocates them
    with ``object.__new__`` outside ``__new__``, and mypyc's native classes support neither.
    mypyc compiles a class with a decorator it does not know as a Python class (its methods
    still compiled), so this no-op decorator is the whole mechanism; the pure package is
    unaffected.
    """
    return cls


@_python_class
class Expr:
    """An interned expression node.

    ``args`` are the child expressions; ``payload`` is the node's non-expression data (an
    integer value, a symbol name, a coefficient or constant).  Both are fixed at construction.
    """

    __slots__ = ("args", "payload", "key", "depth", "_congruence", "_syms", "__weakref__")

    #: True for claims (comparisons, And/Or/Not, True/False); False for integer-valued nodes.
    is_bool: ClassVar[bool] = False
    #: Rank of the class in the structural order.
    rank: ClassVar[int] = 100
    #: The op's record (:mod:`indexalg.ops`): what the mechanical tables are derived from.
    op: ClassVar[ops.Op]

    args: tuple[Expr, ...]
    payload: Any
    key: SortKey
    #: Nesting depth: 1 for a leaf, 1 + the deepest child otherwise (at most MAX_DEPTH).
    depth: int
    #: the node's congruence (analysis.congruence), computed on first use: context-free
    _congruence: Any
    _syms: frozenset[Expr] | None

    def __new__(cls, *args: Any, **kwargs: Any) -> Expr:
        """``Op(...)`` is ``Op.make(...)``: the canonical node, which need not be of class
        ``Op`` (``FloorDiv(7, 2)`` is the literal 3)."""
        return cls.make(*args, **kwargs)

    @classmethod
    def make(cls, *args: Any, **kwargs: Any) -> Expr:
        """The node of this op over the operands (each op's class defines it)."""
        raise TypeError(f"{cls.__name__} is abstract; build nodes with their constructors")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Nodes are complete when ``__new__`` returns them (interned)."""

    # --- identity -----------------------------------------------------------------------
    # Interned: default object identity is structural identity, so __eq__/__hash__ stay the
    # fast built-in ones.

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, self.payload))

    def __copy__(self) -> Expr:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Expr:
        return self

    def __bool__(self) -> bool:
        raise ExprTypeError(
            f"the truth value of {self} is not defined; use ia.prove(...) to decide a claim"
        )

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        """The node with the same kind and payload over new children (constructors re-run)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return _TEXT_PRINTER[0](self)

    def __repr__(self) -> str:
        return f"ia.parse({str(self)!r})"

    # --- traversal ---------------------------------------------------------------------

    def walk(self) -> Iterator[Expr]:
        """Every node of the tree, pre-order, shared subtrees once."""
        seen: set[int] = set()
        stack: list[Expr] = [self]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            yield node
            stack.extend(reversed(node.args))

    @property
    def symbol_set(self) -> frozenset[Expr]:
        """The symbols in the expression (cached on the node)."""
        syms = self._syms
        if syms is None:
            if type(self) is Symbol:
                syms = frozenset((self,))
            elif not self.args:
                syms = _NO_SYMBOLS
            else:
                syms = frozenset().union(*(a.symbol_set for a in self.args))
            self._syms = syms
        return syms

    @property
    def free_symbols(self) -> tuple[Symbol, ...]:
        """The symbols in the expression, sorted by name."""
        syms = {n for n in self.walk() if type(n) is Symbol}
        return tuple(sorted(syms, key=lambda s: s.name))  # type: ignore[attr-defined]

    def count_ops(self) -> int:
        """Number of operations (sum and product counted per binary operator)."""
        n = 0
        for node in self.walk():
            if type(node) is Add:
                n += len(node.args) - (1 if node.payload == 0 else 0)
                n += sum(1 for t in node.args if type(t) is Mul and t.payload not in (1, -1))
            elif type(node) is Mul:
                n += len(node.args) - 1 + (1 if node.payload not in (1, -1) else 0)
            elif node.args:
                n += 1
        return n

    def subs(self, mapping: Mapping[Expr, ExprLike]) -> Expr:
        """Replace nodes (usually symbols) by expressions, rebuilding bottom-up."""
        table = {k: as_expr(v) for k, v in mapping.items()}
        memo: dict[Expr, Expr] = {}
        # bottom-up with an explicit stack (no recursion); a replaced node's children are
        # not visited
        stack: list[tuple[Expr, bool]] = [(self, False)]
        while stack:
            e, expanded = stack.pop()
            if e in memo:
                continue
            hit = table.get(e)
            if hit is not None or not e.args:
                memo[e] = e if hit is None else hit
                continue
            if not expanded:
                stack.append((e, True))
                stack.extend((a, False) for a in reversed(e.args) if a not in memo)
                continue
            new = tuple([memo[a] for a in e.args])
            memo[e] = e if all(a is b for a, b in zip(new, e.args)) else e.rebuild(new)
        return memo[self]

    # --- operators (integer-valued nodes) ------------------------------------------------

    def __add__(self, other: ExprLike) -> Expr:
        return add(self, other)

    def __radd__(self, other: ExprLike) -> Expr:
        return add(other, self)

    def __sub__(self, other: ExprLike) -> Expr:
        return add(self, mul(-1, other))

    def __rsub__(self, other: ExprLike) -> Expr:
        return add(other, mul(-1, self))

    def __mul__(self, other: ExprLike) -> Expr:
        return mul(self, other)

    def __rmul__(self, other: ExprLike) -> Expr:
        return mul(other, self)

    def __neg__(self) -> Expr:
        return mul(-1, self)

    def __pos__(self) -> Expr:
        return self

    # (``Cls.make``, not ``Cls(...)``: a constructor call is typed as its class, and the
    # compiled build checks that type, but the builders fold: ``x < x`` is ``false``)
    def __floordiv__(self, other: ExprLike) -> Expr:
        return FloorDiv.make(self, other)

    def __rfloordiv__(self, other: ExprLike) -> Expr:
        return FloorDiv.make(other, self)

    def __mod__(self, other: ExprLike) -> Expr:
        return Mod.make(self, other)

    def __rmod__(self, other: ExprLike) -> Expr:
        return Mod.make(other, self)

    def __lt__(self, other: ExprLike) -> Expr:
        return Lt.make(self, other)

    def __le__(self, other: ExprLike) -> Expr:
        return Le.make(self, other)

    def __gt__(self, other: ExprLike) -> Expr:
        return Lt.make(other, self)

    def __ge__(self, other: ExprLike) -> Expr:
        return Le.make(other, self)

    def __and__(self, other: Expr) -> Expr:
        return And.make(self, other)

    def __or__(self, other: Expr) -> Expr:
        return Or.make(self, other)

    def __invert__(self) -> Expr:
        return Not.make(self)

    # Operators with no integer meaning: a clear error, as the parser gives, rather than
    # Python's TypeError from a missing method.

    def __truediv__(self, other: object) -> Expr:
        raise InvalidOperationError(
            f"true division {self} / {other} has no integer value; use // for floor "
            "division, ia.CeilDiv(a, b) for ceiling division"
        )

    def __rtruediv__(self, other: object) -> Expr:
        raise InvalidOperationError(
            f"true division {other} / {self} has no integer value; use // for floor "
            "division, ia.CeilDiv(a, b) for ceiling division"
        )

    def __pow__(self, other: object) -> Expr:
        raise InvalidOperationError(
            f"{self} ** {other}: powers are not built by operators; write the product "
            "(x*x), or parse the text (ia.parse('x**2') reads a literal exponent)"
        )

    def __rpow__(self, other: object) -> Expr:
        raise InvalidOperationError(
            f"{other} ** {self}: a power with an expression exponent is not an index operation"
        )


def postorder(e: Expr) -> list[Expr]:
    """The nodes of ``e``, children before parents, shared subtrees once (no recursion)."""
    out: list[Expr] = []
    seen: set[Expr] = set()
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            out.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for a in reversed(node.args):
            if a not in seen:
                stack.append((a, False))
    return out


def _rebuild(cls: type[Expr], args: tuple[Expr, ...], payload: Any) -> Expr:
    return _intern(cls, args, payload)


# The weak-value table's own dict and callback, used directly: interning is the hottest
# path of the library, and WeakValueDictionary's methods add a Python frame per lookup.
_DATA: dict[tuple[Any, ...], Any] = _TABLE.data  # type: ignore[attr-defined]
_REMOVE = _TABLE._remove  # type: ignore[attr-defined]
_KeyedRef = weakref.KeyedRef


_KEY_OF = operator.attrgetter("key")
_DEPTH_OF = operator.attrgetter("depth")


def _intern(
    cls: type[Expr],
    args: tuple[Expr, ...],
    payload: Any,
    child_keys: tuple[SortKey, ...] | None = None,
    depth: int = 0,
) -> Expr:
    """The one node ``(cls, payload, args)``.  ``child_keys`` and ``depth`` may be passed
    when the caller already knows them (the incremental sum), to keep that path O(1) in
    Python."""
    k = (cls, payload, args)
    ref = _DATA.get(k)
    if ref is not None:
        node = ref()
        if node is not None:
            return node  # type: ignore[no-any-return]
    if not depth:
        depth = 1 + max(map(_DEPTH_OF, args)) if args else 1
    if depth > MAX_DEPTH:
        raise DepthError(MAX_DEPTH)
    node = object.__new__(cls)
    node.args = args
    node.payload = payload
    if child_keys is None:
        child_keys = tuple(map(_KEY_OF, args))
    node.key = (cls.rank, 0 if payload is None else payload, child_keys)
    node.depth = depth
    node._congruence = None
    node._syms = None
    _DATA[k] = _KeyedRef(node, _REMOVE, k)
    return node


def as_expr(value: object) -> Expr:
    """An Expr from an Expr or a Python int (bool and float are refused)."""
    if isinstance(value, Expr):
        return value
    if type(value) is int:
        return integer(value)
    if isinstance(value, bool):
        raise ExprTypeError(f"booleans are not integers: got {value!r}")
    if isinstance(value, int):
        return integer(int(value))
    if hasattr(value, "__index__") and not isinstance(value, float):
        return integer(value.__index__())  # type: ignore[attr-defined]
    raise ExprTypeError(f"expected an integer expression, got {type(value).__name__} {value!r}")


def _int_operand(value: object, what: str) -> Expr:
    e = as_expr(value)
    if e.is_bool:
        raise ExprTypeError(f"{what}: booleans are not integers: {e}")
    return e


def _bool_operand(value: object, what: str) -> Expr:
    if isinstance(value, bool):
        return true if value else false
    if not isinstance(value, Expr) or not value.is_bool:
        raise ExprTypeError(f"{what}: expected a claim (comparison or boolean), got {value!r}")
    return value


# ---------------------------------------------------------------------------------------
# Atoms


@_python_class
class Integer(Expr):
    """An integer literal (unbounded)."""

    __slots__ = ()
    rank = 0
    op = ops.INTEGER

    @staticmethod
    def make(value: int) -> Expr:
        return as_expr(value)

    @property
    def value(self) -> int:
        v: int = self.payload
        return v

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return self


_SMALL: list[Expr] = []


def integer(value: int) -> Expr:
    """The interned :class:`Integer` with this value."""
    if -5 <= value <= 256 and _SMALL:
        return _SMALL[value + 5]
    return _intern(Integer, (), value)


_SMALL.extend(_intern(Integer, (), v) for v in range(-5, 257))


@_python_class
class Symbol(Expr):
    """A named integer variable; its range comes from context, never from the node."""

    __slots__ = ()
    rank = 1
    op = ops.SYMBOL

    @staticmethod
    def make(name: str) -> Expr:
        return _symbol(name)

    @property
    def name(self) -> str:
        n: str = self.payload
        return n

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return self


def _symbol(name: str) -> Expr:
    ref = _DATA.get((Symbol, name, ())) if type(name) is str else None
    if ref is not None:  # an interned symbol's name was checked when it was made
        node = ref()
        if node is not None:
            return node  # type: ignore[no-any-return]
    if (
        not isinstance(name, str)
        or not name.isidentifier()
        or not name.isascii()
        or keyword.iskeyword(name)
    ):
        raise InvalidOperationError(
            f"symbol names must be ASCII identifiers other than Python keywords, got {name!r}"
        )
    return _intern(Symbol, (), name)


@_python_class
class Wild(Expr):
    """A pattern variable in a rewrite rule: ``Wild("x")`` matches any integer expression,
    ``Wild("c1", const=True)`` matches only integer literals."""

    __slots__ = ()
    rank = 2

    @staticmethod
    def make(name: str, *, const: bool = False) -> Expr:
        return wild(name, const=const)

    @property
    def name(self) -> str:
        n: str = self.payload[0]
        return n

    @property
    def const(self) -> bool:
        c: bool = self.payload[1]
        return c

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return self


def wild(name: str, *, const: bool = False) -> Expr:
    return _intern(Wild, (), (name, const))


def symbols(names: str) -> tuple[Expr, ...]:
    """``x, y = ia.symbols("x y")`` (names separated by spaces or commas)."""
    parts = [p for p in names.replace(",", " ").split() if p]
    return tuple(_symbol(p) for p in parts)


# ---------------------------------------------------------------------------------------
# Sums and products (canonical form)


@_python_class
class Add(Expr):
    """``t1 + t2 + ... + const``: terms with distinct monomials, sorted; ``payload`` is the
    integer constant.  At least two summands (counting a non-zero constant)."""

    __slots__ = ()
    rank = 10
    op = ops.ADD

    @staticmethod
    def make(*operands: ExprLike) -> Expr:
        return add(*operands)

    @property
    def const(self) -> int:
        c: int = self.payload
        return c

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return add(self.payload, *args)


@_python_class
class Mul(Expr):
    """``coeff * f1 * f2 * ...``: ``payload`` is the integer coefficient, ``args`` the sorted
    non-integer, non-sum factors (repeats kept).  ``2*x`` is ``Mul`` with coefficient 2."""

    __slots__ = ()
    rank = 11
    op = ops.MUL

    @staticmethod
    def make(*operands: ExprLike) -> Expr:
        return mul(*operands)

    @property
    def coeff(self) -> int:
        c: int = self.payload
        return c

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return mul(self.payload, *args)


def term_factors(t: Expr) -> tuple[int, tuple[Expr, ...]]:
    """A non-sum term as (integer coefficient, its non-literal factors): ``6*x*y`` is
    ``(6, (x, y))``, ``x`` is ``(1, (x,))``.  The one definition of a term's parts
    (re-exported by :mod:`indexalg.poly`)."""
    if type(t) is Mul:
        return t.payload, t.args
    return 1, (t,)


def _make_term(
    coeff: int,
    factors: tuple[Expr, ...],
    child_keys: tuple[SortKey, ...] | None = None,
    depth: int = 0,
) -> Expr:
    if not factors:
        return integer(coeff)
    if coeff == 1 and len(factors) == 1:
        return factors[0]
    return _intern(Mul, factors, coeff, child_keys, depth)


def _mono_key(factors: tuple[Expr, ...]) -> tuple[SortKey, ...]:
    return tuple(f.key for f in factors)


def _build_sum(
    const: int, acc: dict[tuple[Expr, ...], int], nodes: dict[tuple[Expr, ...], Expr | None]
) -> Expr:
    items = [(f, c) for f, c in acc.items() if c != 0]
    if not items:
        return integer(const)
    if len(items) > 1:
        items.sort(key=lambda fc: _mono_key(fc[0]))
    terms = []
    for f, c in items:
        t = nodes.get(f)
        # reuse the operand's own term node when its coefficient survived unchanged
        if t is None or (t.payload if type(t) is Mul else 1) != c:
            t = _make_term(c, f)
        terms.append(t)
    if len(terms) == 1 and const == 0:
        return terms[0]
    return _intern(Add, tuple(terms), const)


def _term_mono_key(t: Expr) -> tuple[SortKey, ...]:
    """The sort key of a sum's term: its monomial's (the factors without the coefficient)."""
    if type(t) is Mul:
        return tuple(map(_KEY_OF, t.args))
    return (t.key,)


def _sum_with_const(s: Expr, const: int) -> Expr:
    """The sum ``s`` with its constant replaced."""
    if const == 0 and len(s.args) == 1:
        return s.args[0]
    if const == s.payload:
        return s
    return _intern(Add, s.args, const, s.key[2], s.depth)


def _sum_plus_term(s: Expr, e: Expr) -> Expr:
    """``s + e`` for a sum ``s`` and one term ``e`` (neither a sum nor a literal): the node
    :func:`add` builds, found by binary search instead of re-sorting all of ``s``'s terms,
    so building a sum term by term (``sum(...)``, ``a + b + c + ...``) is not quadratic in
    Python operations (tuple copies remain, in C)."""
    c, f = term_factors(e)
    mk = _term_mono_key(e)
    args = s.args
    keys: tuple[SortKey, ...] = s.key[2]
    i = bisect.bisect_left(args, mk, key=_term_mono_key)
    const: int = s.payload
    if i < len(args) and term_factors(args[i])[1] == f:
        nc = term_factors(args[i])[0] + c
        if nc == 0:
            new_args = args[:i] + args[i + 1 :]
            if not new_args:
                return integer(const)
            if len(new_args) == 1 and const == 0:
                return new_args[0]
            return _intern(Add, new_args, const, keys[:i] + keys[i + 1 :])
        t = _make_term(nc, f)
        new_args = (*args[:i], t, *args[i + 1 :])
        return _intern(Add, new_args, const, (*keys[:i], t.key, *keys[i + 1 :]))
    new_args = (*args[:i], e, *args[i:])
    depth = max(s.depth, e.depth + 1)
    return _intern(Add, new_args, const, (*keys[:i], e.key, *keys[i:]), depth)


def _add2(a: object, b: object) -> Expr | None:
    """The fast paths of a binary sum with a sum operand; None where the general path runs."""
    if type(a) is not Add:
        a, b = b, a
        if type(a) is not Add:
            return None
    assert isinstance(a, Expr)
    if type(b) is int:
        return _sum_with_const(a, a.payload + b)
    if not isinstance(b, Expr) or type(b) is Add or b.is_bool:
        return None
    if type(b) is Integer:
        return _sum_with_const(a, a.payload + b.payload)
    return _sum_plus_term(a, b)


def add(*operands: ExprLike) -> Expr:
    """The canonical sum of the operands."""
    if len(operands) == 2:
        fast = _add2(operands[0], operands[1])
        if fast is not None:
            return fast
    const = 0
    acc: dict[tuple[Expr, ...], int] = {}
    nodes: dict[tuple[Expr, ...], Expr | None] = {}
    only: Expr | None = None  # the single non-literal operand, while there is one
    n_exprs = 0
    for x in operands:
        if type(x) is int:
            const += x
            continue
        e = _int_operand(x, "+")
        tx = type(e)
        if tx is Integer:
            const += e.payload
            continue
        n_exprs += 1
        only = e
        if tx is Add:
            const += e.payload
            for t in e.args:
                if type(t) is Mul:
                    c, f = t.payload, t.args
                else:
                    c, f = 1, (t,)
                prev = acc.get(f)
                acc[f] = c if prev is None else prev + c
                nodes[f] = t if prev is None else None
        else:
            if tx is Mul:
                c, f = e.payload, e.args
            else:
                c, f = 1, (e,)
            prev = acc.get(f)
            acc[f] = c if prev is None else prev + c
            nodes[f] = e if prev is None else None
    if n_exprs == 1 and only is not None and type(only) is Add:
        # a sum plus literals: same terms, new constant
        if const == 0 and len(only.args) == 1:
            return only.args[0]
        return only if const == only.payload else _intern(Add, only.args, const)
    return _build_sum(const, acc, nodes)


def _mul2(a: object, b: object) -> Expr | None:
    """The fast paths of a binary product with a product operand (see :func:`_sum_plus_term`);
    None where the general path runs."""
    if type(a) is not Mul:
        a, b = b, a
        if type(a) is not Mul:
            return None
    assert isinstance(a, Expr)
    if type(b) is int or type(b) is Integer:
        k: int = b if isinstance(b, int) else b.payload
        coeff = a.payload * k
        if coeff == 0:
            return integer(0)
        if coeff == a.payload:
            return a
        return _make_term(coeff, a.args, a.key[2], a.depth)
    if not isinstance(b, Expr) or type(b) is Add or type(b) is Mul or b.is_bool:
        return None
    args = a.args
    i = bisect.bisect_right(args, b.key, key=_KEY_OF)
    keys: tuple[SortKey, ...] = a.key[2]
    depth = max(a.depth, b.depth + 1)
    return _make_term(a.payload, (*args[:i], b, *args[i:]), (*keys[:i], b.key, *keys[i:]), depth)


def mul(*operands: ExprLike) -> Expr:
    """The canonical product of the operands (sums distributed)."""
    if len(operands) == 2:
        fast = _mul2(operands[0], operands[1])
        if fast is not None:
            return fast
    coeff = 1
    factors: list[Expr] = []
    sums: list[Expr] = []
    for x in operands:
        if type(x) is int:
            coeff *= x
            continue
        e = _int_operand(x, "*")
        tx = type(e)
        if tx is Integer:
            coeff *= e.payload
        elif tx is Mul:
            coeff *= e.payload
            factors.extend(e.args)
        elif tx is Add:
            sums.append(e)
        else:
            factors.append(e)
    if coeff == 0:
        return integer(0)
    if len(factors) > 1:
        factors.sort(key=lambda f: f.key)
    if not sums:
        return _make_term(coeff, tuple(factors))
    # Distribute: (sum of terms) built as coefficient -> monomial accumulation.
    terms: list[tuple[int, tuple[Expr, ...]]] = [(coeff, tuple(factors))]
    for s in sums:
        parts: list[tuple[int, tuple[Expr, ...]]] = [term_factors(t) for t in s.args]
        if s.payload:
            parts.append((s.payload, ()))
        terms = [(c1 * c2, f1 + f2) for c1, f1 in terms for c2, f2 in parts]
    const = 0
    acc: dict[tuple[Expr, ...], int] = {}
    for c, f in terms:
        if not f:
            const += c
            continue
        if len(f) > 1:
            f = tuple(sorted(f, key=lambda g: g.key))
        acc[f] = acc.get(f, 0) + c
    return _build_sum(const, acc, {})


# ---------------------------------------------------------------------------------------
# Division and remainder


@_python_class
class _Division(Expr):
    """The two-operand divisions ``op(dividend, divisor)``: one constructor for the family.
    A literal zero divisor is an error; two literal operands fold to ``fold(a, b)``."""

    __slots__ = ()
    #: The op on two integers (the divisor is non-zero): the evaluator's function.
    fold: ClassVar[staticmethod[[int, int], int]]
    #: What a zero divisor's error calls the operation.
    zero_word: ClassVar[str] = "division"

    @classmethod
    def make(cls, a: ExprLike, b: ExprLike) -> Expr:
        x = _int_operand(a, cls.__name__)
        y = _int_operand(b, cls.__name__)
        if type(y) is Integer:
            if y.payload == 0:
                raise DivisionByZeroError(f"{cls.zero_word} by zero: {cls.__name__}({x}, 0)")
            if type(x) is Integer:
                return integer(cls.fold(x.payload, y.payload))
        return _intern(cls, (x, y), None)

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return type(self).make(*args)


@_python_class
class FloorDiv(_Division):
    """``FloorDiv(a, b)`` = ⌊a / b⌋ (Python ``//``); b = 0 is an error."""

    __slots__ = ()
    rank = 20
    op = ops.FLOORDIV
    fold = staticmethod(ops.floordiv)


@_python_class
class Mod(_Division):
    """``Mod(a, b)`` = a − b·⌊a / b⌋ (Python ``%``: the sign of b); b = 0 is an error."""

    __slots__ = ()
    rank = 21
    op = ops.MOD
    fold = staticmethod(ops.mod)
    zero_word = "remainder"


@_python_class
class CeilDiv(_Division):
    """``CeilDiv(a, b)`` = ⌈a / b⌉ for any sign of b (= −⌊−a / b⌋); b = 0 is an error."""

    __slots__ = ()
    rank = 22
    op = ops.CEILDIV
    fold = staticmethod(ops.ceildiv)


@_python_class
class CleanDiv(_Division):
    """``CleanDiv(a, b)`` evaluates as ⌊a / b⌋; its producer asserted that b divides a.
    Rules may rely on that assertion only where it is proven."""

    __slots__ = ()
    rank = 23
    op = ops.CLEANDIV
    fold = staticmethod(ops.floordiv)


@_python_class
class ModularIndexing(Expr):
    """``ModularIndexing(a, d, m)`` = ``(a // d) % m`` (Python semantics), defined only for
    d ≥ 1 and m ≥ 1; its value lies in [0, m)."""

    __slots__ = ()
    rank = 24
    op = ops.MODULAR_INDEXING

    @staticmethod
    def make(a: ExprLike, d: ExprLike, m: ExprLike) -> Expr:
        x = _int_operand(a, "ModularIndexing")
        dd = _int_operand(d, "ModularIndexing")
        mm = _int_operand(m, "ModularIndexing")
        if type(dd) is Integer and dd.payload < 1:
            raise InvalidOperationError(
                f"ModularIndexing divisor must be >= 1, got {int_summary(dd.payload)}"
            )
        if type(mm) is Integer and mm.payload < 1:
            raise InvalidOperationError(
                f"ModularIndexing modulus must be >= 1, got {int_summary(mm.payload)}"
            )
        if type(x) is Integer and type(dd) is Integer and type(mm) is Integer:
            return integer((x.payload // dd.payload) % mm.payload)
        return _intern(ModularIndexing, (x, dd, mm), None)

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return ModularIndexing.make(*args)


# ---------------------------------------------------------------------------------------
# Min / Max


@_python_class
class _MinMax(Expr):
    __slots__ = ()
    _pick: ClassVar[Any]

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return type(self).make(*args)

    @classmethod
    def _make(cls, operands: tuple[ExprLike, ...]) -> Expr:
        if not operands:
            raise InvalidOperationError(f"{cls.__name__} needs at least one argument")
        lit: int | None = None
        seen: dict[Expr, None] = {}
        stack = list(operands)
        while stack:
            x = stack.pop()
            e = _int_operand(x, cls.__name__)
            if type(e) is cls:
                stack.extend(e.args)
            elif type(e) is Integer:
                lit = e.payload if lit is None else cls._pick(lit, e.payload)
            else:
                seen[e] = None
        items = list(seen)
        if lit is not None:
            items.append(integer(lit))
        if len(items) == 1:
            return items[0]
        items.sort(key=lambda f: f.key)
        return _intern(cls, tuple(items), None)


@_python_class
class Min(_MinMax):
    """The least of its arguments (n-ary, arguments sorted and distinct)."""

    __slots__ = ()
    rank = 30
    op = ops.MIN
    _pick = min

    @classmethod
    def make(cls, *operands: ExprLike) -> Expr:
        return cls._make(operands)


@_python_class
class Max(_MinMax):
    """The greatest of its arguments (n-ary, arguments sorted and distinct)."""

    __slots__ = ()
    rank = 31
    op = ops.MAX
    _pick = max

    @classmethod
    def make(cls, *operands: ExprLike) -> Expr:
        return cls._make(operands)


# ---------------------------------------------------------------------------------------
# Claims


@_python_class
class BoolConst(Expr):
    """The literal claims ``True`` and ``False``."""

    __slots__ = ()
    rank = 40
    is_bool = True
    op = ops.BOOL_CONST

    @property
    def value(self) -> bool:
        return bool(self.payload)

    def __bool__(self) -> bool:
        return bool(self.payload)

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return self


true: Expr = _intern(BoolConst, (), 1)
false: Expr = _intern(BoolConst, (), 0)


def _boolc(v: bool) -> Expr:
    return true if v else false


@_python_class
class _Compare(Expr):
    __slots__ = ()
    is_bool = True
    _op: ClassVar[Any]
    symmetric: ClassVar[bool] = False

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return type(self).make(*args)

    @classmethod
    def _make(cls, a: ExprLike, b: ExprLike) -> Expr:
        x = _int_operand(a, cls.__name__)
        y = _int_operand(b, cls.__name__)
        if type(x) is Integer and type(y) is Integer:
            return _boolc(cls._op(x.payload, y.payload))
        if cls.symmetric and y.key < x.key:
            x, y = y, x
        return _intern(cls, (x, y), None)


@_python_class
class Lt(_Compare):
    """The claim ``a < b`` (``a > b`` is built as ``Lt(b, a)``)."""

    __slots__ = ()
    rank = 41
    op = ops.LT
    _op = staticmethod(ops.lt)

    @classmethod
    def make(cls, a: ExprLike, b: ExprLike) -> Expr:
        return cls._make(a, b)


@_python_class
class Le(_Compare):
    """The claim ``a <= b`` (``a >= b`` is built as ``Le(b, a)``)."""

    __slots__ = ()
    rank = 42
    op = ops.LE
    _op = staticmethod(ops.le)

    @classmethod
    def make(cls, a: ExprLike, b: ExprLike) -> Expr:
        return cls._make(a, b)


@_python_class
class Eq(_Compare):
    """The claim ``a == b`` (arguments in structural order)."""

    __slots__ = ()
    rank = 43
    op = ops.EQ
    _op = staticmethod(ops.eq)
    symmetric = True

    @classmethod
    def make(cls, a: ExprLike, b: ExprLike) -> Expr:
        return cls._make(a, b)


@_python_class
class Ne(_Compare):
    """The claim ``a != b`` (arguments in structural order)."""

    __slots__ = ()
    rank = 44
    op = ops.NE
    _op = staticmethod(ops.ne)
    symmetric = True

    @classmethod
    def make(cls, a: ExprLike, b: ExprLike) -> Expr:
        return cls._make(a, b)


@_python_class
class _Junction(Expr):
    __slots__ = ()
    is_bool = True
    _unit: ClassVar[int]  # the payload of the identity element (And: True)

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return type(self).make(*args)

    @classmethod
    def _make(cls, operands: tuple[Any, ...]) -> Expr:
        seen: dict[Expr, None] = {}
        stack = list(operands)
        while stack:
            e = _bool_operand(stack.pop(), cls.__name__)
            if type(e) is cls:
                stack.extend(e.args)
            elif type(e) is BoolConst:
                if e.payload != cls._unit:
                    return e  # absorbing element
            else:
                seen[e] = None
        items = sorted(seen, key=lambda f: f.key)
        if not items:
            return _boolc(bool(cls._unit))
        if len(items) == 1:
            return items[0]
        return _intern(cls, tuple(items), None)


@_python_class
class And(_Junction):
    """Conjunction of claims (n-ary, sorted, distinct)."""

    __slots__ = ()
    rank = 50
    op = ops.AND
    _unit = 1

    @classmethod
    def make(cls, *operands: Any) -> Expr:
        return cls._make(operands)


@_python_class
class Or(_Junction):
    """Disjunction of claims (n-ary, sorted, distinct)."""

    __slots__ = ()
    rank = 51
    op = ops.OR
    _unit = 0

    @classmethod
    def make(cls, *operands: Any) -> Expr:
        return cls._make(operands)


@_python_class
class Not(Expr):
    """Negation of a claim."""

    __slots__ = ()
    rank = 52
    is_bool = True
    op = ops.NOT

    @staticmethod
    def make(a: Any) -> Expr:
        e = _bool_operand(a, "Not")
        if type(e) is BoolConst:
            return _boolc(not e.payload)
        return _intern(Not, (e,), None)

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return Not.make(args[0])


@_python_class
class Where(Expr):
    """``Where(c, a, b)``: a where the claim c holds, else b (integer-valued)."""

    __slots__ = ()
    rank = 60
    op = ops.WHERE

    @staticmethod
    def make(c: Any, a: ExprLike, b: ExprLike) -> Expr:
        cond = _bool_operand(c, "Where condition")
        x = _int_operand(a, "Where")
        y = _int_operand(b, "Where")
        if type(cond) is BoolConst:
            return x if cond.payload else y
        return _intern(Where, (cond, x, y), None)

    def rebuild(self, args: tuple[Expr, ...]) -> Expr:
        return Where.make(*args)


#: Every node class of the IR; backends (evaluator, printers, encoders) cover all of them.
INTEGER_OPS: tuple[type[Expr], ...] = (
    Integer,
    Symbol,
    Add,
    Mul,
    FloorDiv,
    Mod,
    ModularIndexing,
    CeilDiv,
    CleanDiv,
    Min,
    Max,
    Where,
)
BOOL_OPS: tuple[type[Expr], ...] = (BoolConst, Lt, Le, Eq, Ne, And, Or, Not)
ALL_OPS: tuple[type[Expr], ...] = INTEGER_OPS + BOOL_OPS

#: Every op with its record (:mod:`indexalg.ops`), in the order of :data:`ALL_OPS`: the
#: mechanical tables are derived from these pairs.  An op whose class names no record of its
#: own is left out (tests/test_architecture.py names it).
OP_RECORDS: tuple[tuple[type[Expr], ops.Op], ...] = tuple(
    (cls, cls.__dict__["op"]) for cls in ALL_OPS if "op" in cls.__dict__
)
