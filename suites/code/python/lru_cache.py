"""A small least-recently-used cache with a doubly linked list and a dict.

``OrderedDict`` would do the job in fewer lines; this version exists because it
also tracks hit/miss statistics and supports a per-entry cost, so the cache can
be bounded by total size (bytes) instead of entry count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Hashable, Iterator, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass
class _Node(Generic[K, V]):
    key: K
    value: V
    cost: int
    prev: "_Node[K, V] | None" = None
    next: "_Node[K, V] | None" = None


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    evictions: int = 0

    @property
    def hit_rate(self) -> float:
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0


@dataclass
class LRUCache(Generic[K, V]):
    """Evicts the least recently used entries once ``capacity`` is exceeded.

    >>> c = LRUCache(capacity=2)
    >>> c.put("a", 1); c.put("b", 2); c.get("a")
    1
    >>> c.put("c", 3)  # evicts "b", the least recently used
    >>> "b" in c
    False
    """

    capacity: int
    stats: CacheStats = field(default_factory=CacheStats)
    _map: dict[K, _Node[K, V]] = field(default_factory=dict, repr=False)
    _head: _Node | None = field(default=None, repr=False)  # most recent
    _tail: _Node | None = field(default=None, repr=False)  # least recent
    _used: int = 0

    def __post_init__(self) -> None:
        if self.capacity <= 0:
            raise ValueError(f"capacity must be positive, got {self.capacity}")

    def __len__(self) -> int:
        return len(self._map)

    def __contains__(self, key: object) -> bool:
        return key in self._map

    def __iter__(self) -> Iterator[K]:
        node = self._head
        while node is not None:
            yield node.key
            node = node.next

    def get(self, key: K, default: V | None = None) -> V | None:
        node = self._map.get(key)
        if node is None:
            self.stats.misses += 1
            return default
        self.stats.hits += 1
        self._move_to_front(node)
        return node.value

    def put(self, key: K, value: V, cost: int = 1) -> None:
        if cost > self.capacity:
            raise ValueError(f"entry cost {cost} exceeds cache capacity {self.capacity}")
        old = self._map.pop(key, None)
        if old is not None:
            self._unlink(old)
            self._used -= old.cost
        node = _Node(key, value, cost)
        self._map[key] = node
        self._push_front(node)
        self._used += cost
        while self._used > self.capacity and self._tail is not None:
            victim = self._tail
            self._unlink(victim)
            del self._map[victim.key]
            self._used -= victim.cost
            self.stats.evictions += 1

    def _push_front(self, node: _Node) -> None:
        node.prev, node.next = None, self._head
        if self._head is not None:
            self._head.prev = node
        self._head = node
        if self._tail is None:
            self._tail = node

    def _unlink(self, node: _Node) -> None:
        if node.prev is not None:
            node.prev.next = node.next
        else:
            self._head = node.next
        if node.next is not None:
            node.next.prev = node.prev
        else:
            self._tail = node.prev
        node.prev = node.next = None

    def _move_to_front(self, node: _Node) -> None:
        if node is not self._head:
            self._unlink(node)
            self._push_front(node)
