package nlu

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestEmbeddingCache checks that the cache embeds each new text once,
// keeps embedders apart, stays within its bound, hands out copies and
// passes errors through.
func TestEmbeddingCache(t *testing.T) {
	var seen [][]string
	fail := false
	emb := func(ctx context.Context, texts []string) ([][]float32, error) {
		if fail {
			return nil, errors.New("boom")
		}
		seen = append(seen, append([]string(nil), texts...))
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = []float32{float32(len(t)), 1}
		}
		return out, nil
	}
	c := newEmbeddingCache(4)
	a, b := c.wrap("a", emb), c.wrap("b", emb)
	ctx := context.Background()
	steps := []struct {
		e     func(context.Context, []string) ([][]float32, error)
		texts []string
		calls []string // texts the embedder must see (nil: no call)
	}{
		{a, []string{"x", "yy", "x"}, []string{"x", "yy"}},
		{a, []string{"yy", "zzz"}, []string{"zzz"}},
		{a, []string{"x", "zzz"}, nil},
		{b, []string{"x"}, []string{"x"}},
	}
	for i, st := range steps {
		seen = nil
		got, err := st.e(ctx, st.texts)
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range got {
			if v[0] != float32(len(st.texts[j])) {
				t.Errorf("step %d: vector of %q is %v", i, st.texts[j], v)
			}
		}
		var calls []string
		if len(seen) > 0 {
			calls = seen[0]
		}
		if len(seen) > 1 || !slices.Equal(calls, st.calls) {
			t.Errorf("step %d: embedder saw %v, want %v", i, seen, st.calls)
		}
		got[0][0] = -1 // the caller owns its slices
	}
	if v, _ := a(ctx, []string{"x"}); v[0][0] != 1 {
		t.Errorf("cached vector changed by a caller: %v", v)
	}
	if _, err := a(ctx, []string{"p", "q", "r"}); err != nil {
		t.Fatal(err)
	}
	if len(c.m) > 4 {
		t.Errorf("cache holds %d vectors, bound 4", len(c.m))
	}
	fail = true
	if _, err := a(ctx, []string{"new"}); err == nil {
		t.Error("embedder error not returned")
	}
	if c.wrap("a", nil) != nil {
		t.Error("wrapping no embedder gave one")
	}
}
