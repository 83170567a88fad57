package server

import (
	"math"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Defaults of the authentication limits (Config).
const (
	// defaultLoginFailuresPerMinute is the failed logins a client (remote
	// address) or a user name may have in a burst, regained at this rate
	// per minute.
	defaultLoginFailuresPerMinute = 10
	// loginLimiterKeys bounds the clients and user names tracked; beyond
	// it, new clients share one bucket.
	loginLimiterKeys = 100000
	// bcryptWait is how long a password check waits for a bcrypt worker
	// before the request answers 429.
	bcryptWait = 5 * time.Second
)

// loginLimiter limits failed logins with one token bucket per key: a key
// holds at most burst tokens, each failure takes one, and tokens come back
// at rate per second. A key without a token is refused until one is back.
// Buckets that are full again are forgotten, so memory holds only keys
// that failed recently (at most maxKeys; beyond it new keys share the
// bucket "*"). It is safe for concurrent use.
type loginLimiter struct {
	mu      sync.Mutex
	burst   float64
	rate    float64 // tokens per second
	maxKeys int
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// newLoginLimiter allows perMinute failures in a burst per key, regained
// at perMinute per minute.
func newLoginLimiter(perMinute, maxKeys int) *loginLimiter {
	return &loginLimiter{
		burst:   float64(perMinute),
		rate:    float64(perMinute) / 60,
		maxKeys: maxKeys,
		buckets: map[string]*bucket{},
		now:     time.Now,
	}
}

// refill brings b up to date at now and reports whether it is full.
func (l *loginLimiter) refill(b *bucket, now time.Time) bool {
	if d := now.Sub(b.last).Seconds(); d > 0 {
		b.tokens = math.Min(l.burst, b.tokens+d*l.rate)
		b.last = now
	}
	return b.tokens >= l.burst
}

// allow reports whether every key may try a password now; when not, it
// returns how long until all may.
func (l *loginLimiter) allow(keys ...string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var wait time.Duration
	for _, k := range keys {
		b := l.buckets[k]
		if b == nil {
			continue
		}
		l.refill(b, now)
		if b.tokens >= 1 {
			continue
		}
		if d := time.Duration((1 - b.tokens) / l.rate * float64(time.Second)); d > wait {
			wait = d
		}
	}
	return wait == 0, wait
}

// fail records a failed login of every key.
func (l *loginLimiter) fail(keys ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for _, k := range keys {
		b := l.buckets[k]
		if b == nil {
			if len(l.buckets) >= l.maxKeys {
				l.prune(now)
			}
			if len(l.buckets) >= l.maxKeys {
				k = "*"
			}
			if b = l.buckets[k]; b == nil {
				b = &bucket{tokens: l.burst, last: now}
				l.buckets[k] = b
			}
		}
		l.refill(b, now)
		b.tokens = math.Max(0, b.tokens-1)
	}
}

// prune forgets the buckets that are full again.
func (l *loginLimiter) prune(now time.Time) {
	for k, b := range l.buckets {
		if l.refill(b, now) {
			delete(l.buckets, k)
		}
	}
}

// clientKey is the limiter key of a remote address: the IP, or for IPv6
// its /64 network (one host usually holds a whole /64).
func clientKey(ip net.IP) string {
	if ip.To4() == nil && len(ip) == net.IPv6len {
		return "ip:" + ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return "ip:" + ip.String()
}

// retrySeconds rounds a wait up to whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// setRetryAfter sets the Retry-After header from an error's
// details.retry_after_seconds.
func setRetryAfter(ctx *fasthttp.RequestCtx, details map[string]any) {
	s, ok := details["retry_after_seconds"].(int)
	if !ok || s < 1 {
		s = 1
	}
	ctx.Response.Header.Set("Retry-After", strconv.Itoa(s))
}

// tooManyRequests writes a 429 naming the limit, with Retry-After.
func tooManyRequests(ctx *fasthttp.RequestCtx, limit string, wait time.Duration, msg string) {
	details := map[string]any{"limit": limit, "retry_after_seconds": retrySeconds(wait)}
	setRetryAfter(ctx, details)
	writeErrorStatus(ctx, 429, msg, details)
}
