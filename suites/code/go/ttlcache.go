// Package ttlcache provides a map whose entries expire after a fixed duration.
package ttlcache

import (
	"sync"
	"time"
)

type entry[V any] struct {
	value   V
	expires time.Time
}

// Cache is safe for concurrent use. The zero value is not usable; call New.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	ttl   time.Duration
	items map[K]entry[V]
	now   func() time.Time // replaced in tests
}

// New returns a cache whose entries live for ttl (e.g. 90*time.Second).
func New[K comparable, V any](ttl time.Duration) *Cache[K, V] {
	if ttl <= 0 {
		panic("ttlcache: ttl must be positive")
	}
	return &Cache[K, V]{ttl: ttl, items: make(map[K]entry[V]), now: time.Now}
}

// Set stores v under k, replacing any previous value and resetting its expiry.
func (c *Cache[K, V]) Set(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[k] = entry[V]{value: v, expires: c.now().Add(c.ttl)}
}

// Get returns the value for k and whether it was present and not expired.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok || !c.now().Before(e.expires) {
		delete(c.items, k) // lazily drop the expired entry
		var zero V
		return zero, false
	}
	return e.value, true
}

// Len counts entries that have not expired yet.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	now, n := c.now(), 0
	for _, e := range c.items {
		if now.Before(e.expires) {
			n++
		}
	}
	return n
}

// Purge removes every expired entry and reports how many were removed.
func (c *Cache[K, V]) Purge() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	now, removed := c.now(), 0
	for k, e := range c.items {
		if !now.Before(e.expires) {
			delete(c.items, k)
			removed++
		}
	}
	return removed
}
