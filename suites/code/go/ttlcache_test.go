package ttlcache

import (
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (f *fakeClock) Now() time.Time          { return f.t }
func (f *fakeClock) Advance(d time.Duration) { f.t = f.t.Add(d) }

func newTestCache(ttl time.Duration) (*Cache[string, int], *fakeClock) {
	clock := &fakeClock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	c := New[string, int](ttl)
	c.now = clock.Now
	return c, clock
}

func TestGetBeforeAndAfterExpiry(t *testing.T) {
	tests := []struct {
		name    string
		elapsed time.Duration
		wantOK  bool
	}{
		{"fresh", 0, true},
		{"just before", 59*time.Second + 999*time.Millisecond, true},
		{"exactly at ttl", time.Minute, false},
		{"long after", 36 * time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock := newTestCache(time.Minute)
			c.Set("東京", 13_960_000)
			clock.Advance(tt.elapsed)
			got, ok := c.Get("東京")
			if ok != tt.wantOK {
				t.Fatalf("Get ok = %v, want %v", ok, tt.wantOK)
			}
			if ok && got != 13_960_000 {
				t.Errorf("Get = %d, want 13960000", got)
			}
		})
	}
}

func TestSetResetsExpiry(t *testing.T) {
	c, clock := newTestCache(10 * time.Second)
	c.Set("k", 1)
	clock.Advance(8 * time.Second)
	c.Set("k", 2)
	clock.Advance(8 * time.Second)
	if v, ok := c.Get("k"); !ok || v != 2 {
		t.Fatalf("Get = (%d, %v), want (2, true)", v, ok)
	}
}

func TestPurgeAndLen(t *testing.T) {
	c, clock := newTestCache(time.Second)
	c.Set("a", 1)
	c.Set("b", 2)
	clock.Advance(2 * time.Second)
	c.Set("c", 3)
	if n := c.Len(); n != 1 {
		t.Errorf("Len = %d, want 1", n)
	}
	if removed := c.Purge(); removed != 2 {
		t.Errorf("Purge removed %d, want 2", removed)
	}
}

func TestNewPanicsOnZeroTTL(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("expected a panic for ttl = 0")
		}
	}()
	New[int, int](0)
}
