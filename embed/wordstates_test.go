package embed

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestWordStates checks the per-word contextual vectors of the default
// model: one non-zero vector per word, deterministic, context-dependent
// (the same word in two sentences differs, a word is closer to itself in
// another sentence than to another word), and zero past the input limit.
func TestWordStates(t *testing.T) {
	l := loadModel(t, "bge-small-en-v1.5")
	ctx := context.Background()
	a := strings.Fields("Peter Blackburn flew to Paris on Monday .")
	b := strings.Fields("Paris is the capital of France .")
	va, err := l.WordStates(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(va) != len(a) {
		t.Fatalf("%d vectors for %d words", len(va), len(a))
	}
	for i, v := range va {
		if len(v) != l.Dims() || slices.Max(v) == 0 && slices.Min(v) == 0 {
			t.Fatalf("word %q: vector of %d floats, all zero %v", a[i], len(v), slices.Max(v) == 0)
		}
	}
	again, err := l.WordStates(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(va[4], again[4]) {
		t.Error("two runs of one sentence differ")
	}
	vb, err := l.WordStates(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	same, other := cosine32(va[4], vb[0]), cosine32(va[4], va[6])
	t.Logf("cos(Paris, Paris) %.3f, cos(Paris, Monday) %.3f", same, other)
	if slices.Equal(va[4], vb[0]) || same <= other {
		t.Errorf("Paris in two sentences: cos %.3f (equal %v); Paris vs Monday %.3f", same, slices.Equal(va[4], vb[0]), other)
	}
	// Past the 512-token limit words get zero vectors.
	long := make([]string, 600)
	for i := range long {
		long[i] = "word"
	}
	vl, err := l.WordStates(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Max(vl[0]) == 0 || slices.Max(vl[599]) != 0 || slices.Min(vl[599]) != 0 {
		t.Error("want a vector for the first word and zero for the 600th")
	}
	if v, err := l.WordStates(ctx, nil); err != nil || len(v) != 0 {
		t.Errorf("no words: %v, %v", v, err)
	}
}
