"""Bounded memo tables, and the one registry :func:`indexalg.clear_caches` empties.

Every table the library keeps between calls to remember an answer is a :class:`Memo` (or a
:class:`GroupedMemo`, a memo of memos): made at module level with a name and a size limit,
it registers itself here, so clearing "every cache" is :func:`clear_all` and needs no list
kept by hand.  ``tests/test_caches.py`` runs the library and checks that every module-level
table that filled up is one of these.

When a memo is full, the oldest quarter of its entries go (insertion order is age; a memo
made with ``lru=True`` moves an entry to the young end on every hit).  A memo never changes
an answer: nodes are interned and immutable, and a key holds everything the answer depends
on (the ranges included), so an evicted entry is recomputed to the same value.

Tables that a query fills and needs *during* the query (a context's interval table, whose
entries also mark re-entrancy) are not memos of this kind: they belong to an
:class:`~indexalg.analysis.context.Context`, trimmed between queries, and the contexts
themselves live in a :class:`Memo`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from itertools import islice
from typing import Generic, Protocol, TypeVar

__all__ = ["Memo", "GroupedMemo", "Table", "clear_all", "registered"]

K = TypeVar("K")
V = TypeVar("V")
G = TypeVar("G")


class Table(Protocol):
    """What the registry knows of a memo."""

    name: str
    limit: int

    def clear(self) -> None: ...

    def __len__(self) -> int: ...


#: name -> memo: every memo alive (a memo made in a test goes when the test drops it)
_REGISTRY: weakref.WeakValueDictionary[str, Table] = weakref.WeakValueDictionary()


def _register(name: str, memo: Table) -> None:
    _REGISTRY[name] = memo  # a module reloaded replaces its memo under the same name


def _evict_oldest(table: dict[K, V]) -> None:
    """Drop the oldest quarter of ``table`` (at least one entry)."""
    for k in list(islice(table, max(1, len(table) // 4))):
        del table[k]


class Memo(Generic[K, V]):
    """A dict of at most ``limit`` entries, registered under ``name`` for
    :func:`clear_all`.  ``get`` answers None for a missing key (values are never None)."""

    __slots__ = ("name", "limit", "lru", "table", "__weakref__")

    def __init__(self, name: str, limit: int, *, lru: bool = False) -> None:
        self.name = name
        self.limit = limit
        self.lru = lru
        self.table: dict[K, V] = {}
        _register(name, self)

    def get(self, key: K) -> V | None:
        t = self.table
        hit = t.get(key)
        if hit is not None and self.lru:
            del t[key]
            t[key] = hit  # now the youngest
        return hit

    def put(self, key: K, value: V) -> None:
        t = self.table
        if len(t) >= self.limit and key not in t:
            _evict_oldest(t)
        t[key] = value

    def clear(self) -> None:
        self.table.clear()

    def __len__(self) -> int:
        return len(self.table)

    def __contains__(self, key: object) -> bool:
        return key in self.table

    def __iter__(self) -> Iterator[K]:
        return iter(self.table)

    def __repr__(self) -> str:
        return f"Memo({self.name!r}, {len(self.table)}/{self.limit})"


class GroupedMemo(Generic[G, K, V]):
    """A memo keyed by ``(group, key)``, stored as group -> {key: value}: no key tuple per
    entry, so the cyclic garbage collector has fewer objects to scan.  At most ``limit``
    entries in all; when full, the tables of the oldest other groups go until a quarter is
    free, then (if need be) all of the current group's but the entry just made."""

    __slots__ = ("name", "limit", "groups", "size", "__weakref__")

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit
        self.groups: dict[G, dict[K, V]] = {}
        self.size = 0
        _register(name, self)

    def get(self, group: G, key: K) -> V | None:
        inner = self.groups.get(group)
        return None if inner is None else inner.get(key)

    def put(self, group: G, key: K, value: V) -> None:
        inner = self.groups.get(group)
        if inner is None:
            inner = self.groups[group] = {}
        if key not in inner:
            self.size += 1
        inner[key] = value
        if self.size > self.limit:
            self._trim(group, key, value)

    def _trim(self, group: G, key: K, value: V) -> None:
        keep = self.limit - self.limit // 4
        for old in list(self.groups):  # oldest groups first
            if self.size <= keep:
                return
            if old is not group:
                dropped = self.groups.pop(old, None)
                self.size -= 0 if dropped is None else len(dropped)
        if self.size > keep:
            self.groups[group] = {key: value}
            self.size = sum(len(t) for t in self.groups.values())

    def clear(self) -> None:
        self.groups.clear()
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def __contains__(self, item: object) -> bool:
        """``(key, group) in memo``: whether that entry is held."""
        if not isinstance(item, tuple) or len(item) != 2:
            return False
        inner = self.groups.get(item[1])
        return inner is not None and item[0] in inner

    def __repr__(self) -> str:
        return f"GroupedMemo({self.name!r}, {self.size}/{self.limit})"


def registered() -> dict[str, Table]:
    """Every memo alive, by name."""
    return dict(_REGISTRY)


def clear_all() -> None:
    """Empty every memo (what :func:`indexalg.clear_caches` does)."""
    for memo in list(_REGISTRY.values()):
        memo.clear()
