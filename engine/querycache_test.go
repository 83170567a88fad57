package engine

import (
	"fmt"
	"strings"
	"testing"
)

// TestQueryCacheLRU checks eviction order, the key (model and text), the
// length bound and a disabled cache.
func TestQueryCacheLRU(t *testing.T) {
	c := newQueryCache(2)
	v := func(f float32) []float32 { return []float32{f} }
	c.put("m", "a", v(1))
	c.put("m", "b", v(2))
	if _, ok := c.get("m", "a"); !ok { // a becomes the most recent
		t.Fatal("a missing")
	}
	c.put("m", "c", v(3)) // evicts b
	for _, tc := range []struct {
		model, text string
		want        float32 // 0 = absent
	}{
		{"m", "a", 1}, {"m", "b", 0}, {"m", "c", 3}, {"other", "a", 0},
	} {
		got, ok := c.get(tc.model, tc.text)
		if ok != (tc.want != 0) || ok && got[0] != tc.want {
			t.Errorf("get(%q, %q) = %v, %v; want %v", tc.model, tc.text, got, ok, tc.want)
		}
	}
	c.put("m", "c", v(4)) // replaces
	if got, _ := c.get("m", "c"); got[0] != 4 || c.len() != 2 {
		t.Errorf("replaced c = %v, len %d", got, c.len())
	}
	c.put("m", strings.Repeat("x", maxCachedQueryBytes+1), v(5))
	if _, ok := c.get("m", strings.Repeat("x", maxCachedQueryBytes+1)); ok {
		t.Error("a long query was cached")
	}
	var off *queryCache = newQueryCache(-1)
	off.put("m", "a", v(1))
	if _, ok := off.get("m", "a"); ok || off.len() != 0 {
		t.Error("a disabled cache cached")
	}
	big := newQueryCache(100)
	for i := range 1000 {
		big.put("m", fmt.Sprint(i), v(float32(i)))
	}
	if big.len() != 100 {
		t.Errorf("len %d, want the bound 100", big.len())
	}
	for i := 900; i < 1000; i++ {
		if _, ok := big.get("m", fmt.Sprint(i)); !ok {
			t.Errorf("recent %d evicted", i)
		}
	}
}

// BenchmarkQueryCacheHit measures the cost of a cache hit (the embedding
// it saves costs milliseconds).
func BenchmarkQueryCacheHit(b *testing.B) {
	c := newQueryCache(DefaultQueryCacheSize)
	vec := make([]float32, 384)
	qs := make([]string, DefaultQueryCacheSize)
	for i := range qs {
		qs[i] = fmt.Sprintf("what causes the %d-th kind of cancer", i)
		c.put("bge-small-en-v1.5", qs[i], vec)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := c.get("bge-small-en-v1.5", qs[i%len(qs)]); !ok {
			b.Fatal("miss")
		}
		i++
	}
}
