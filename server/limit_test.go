package server

import (
	"fmt"
	"net"
	"testing"
	"time"
)

// fakeClock is a settable time source for the limiter.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestLimiter(perMinute, maxKeys int) (*loginLimiter, *fakeClock) {
	c := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newLoginLimiter(perMinute, maxKeys)
	l.now = c.now
	return l, c
}

func TestLoginLimiterBurstAndRefill(t *testing.T) {
	l, c := newTestLimiter(10, 100)
	for i := range 10 {
		if ok, _ := l.allow("ip:a"); !ok {
			t.Fatalf("failure %d refused within the burst of 10", i)
		}
		l.fail("ip:a")
	}
	ok, wait := l.allow("ip:a")
	if ok {
		t.Fatal("11th try allowed after 10 failures")
	}
	// One token comes back every 6 s at 10 per minute.
	if wait <= 0 || wait > 6*time.Second {
		t.Fatalf("wait %v, want in (0, 6s]", wait)
	}
	if ok, _ := l.allow("ip:b"); !ok {
		t.Fatal("another key is limited")
	}
	// Any limited key refuses the attempt, and the wait is the longest.
	if ok, _ := l.allow("ip:b", "ip:a"); ok {
		t.Fatal("a limited key among several was allowed")
	}
	c.t = c.t.Add(wait)
	if ok, _ := l.allow("ip:a"); !ok {
		t.Fatalf("still limited after the advised wait %v", wait)
	}
	l.fail("ip:a")
	if ok, _ := l.allow("ip:a"); ok {
		t.Fatal("a failure with the one regained token left the key allowed")
	}
	// After a minute the bucket is full again, and forgotten by prune.
	c.t = c.t.Add(time.Minute)
	for range 10 {
		if ok, _ := l.allow("ip:a"); !ok {
			t.Fatal("limited after a full minute")
		}
		l.fail("ip:a")
	}
	c.t = c.t.Add(time.Minute)
	l.prune(c.t)
	if len(l.buckets) != 0 {
		t.Fatalf("%d buckets kept after they refilled", len(l.buckets))
	}
}

// TestLoginLimiterBoundedKeys checks that many clients cannot grow the
// limiter beyond maxKeys: new keys then share one bucket, still limited.
func TestLoginLimiterBoundedKeys(t *testing.T) {
	l, _ := newTestLimiter(3, 50)
	for i := range 1000 {
		l.fail(fmt.Sprintf("ip:%d", i))
	}
	if len(l.buckets) > 51 {
		t.Fatalf("%d buckets, want at most 51", len(l.buckets))
	}
	if ok, _ := l.allow("*"); ok {
		t.Fatal("the shared overflow bucket is not limited after 950 failures")
	}
}

func TestClientKey(t *testing.T) {
	for _, c := range []struct{ ip, want string }{
		{"127.0.0.2", "ip:127.0.0.2"},
		{"2001:db8:1:2:3:4:5:6", "ip:2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "ip:2001:db8:1:2::/64"},
	} {
		if got := clientKey(net.ParseIP(c.ip)); got != c.want {
			t.Errorf("clientKey(%s) = %s, want %s", c.ip, got, c.want)
		}
	}
}

func TestRetrySeconds(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {5100 * time.Millisecond, 6}} {
		if got := retrySeconds(c.d); got != c.want {
			t.Errorf("retrySeconds(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}
