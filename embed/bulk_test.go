package embed

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func TestPlanBulk(t *testing.T) {
	for _, tc := range []struct {
		lens  []int
		batch int
		want  string
	}{
		{nil, 4, ""},
		{[]int{3}, 4, "[3:0]"},
		{[]int{5, 3, 5, 3, 5}, 4, "[3:1 3] [5:0 2 4]"},
		{[]int{4, 4, 4, 4, 4}, 2, "[4:0 1] [4:2 3] [4:4]"},
		{[]int{2, 9, 2, 7}, 16, "[2:0 2] [7:3] [9:1]"},
	} {
		seqs := make([][]int32, len(tc.lens))
		for i, n := range tc.lens {
			seqs[i] = make([]int32, n)
		}
		order, batches := planBulk(seqs, tc.batch)
		var got []string
		for _, b := range batches {
			s := fmt.Sprintf("[%d:", b.seqLen)
			for k, i := range order[b.lo:b.hi] {
				if len(seqs[i]) != b.seqLen {
					t.Errorf("%v: sequence %d of length %d in a batch of length %d", tc.lens, i, len(seqs[i]), b.seqLen)
				}
				if k > 0 {
					s += " "
				}
				s += fmt.Sprint(i)
			}
			got = append(got, s+"]")
		}
		if g := fmt.Sprint(slices.Concat(got)); g != "["+tc.want+"]" {
			t.Errorf("%v batch %d: %s, want [%s]", tc.lens, tc.batch, g, tc.want)
		}
	}
}

// TestEmbedSymmetric: bge-small-en-v1.5 embeds symmetric texts without
// its retrieval instruction; bulk vectors come back in the order of the
// texts and stay close to the vectors of the texts embedded alone.
func TestEmbedSymmetric(t *testing.T) {
	l := loadModel(t, "bge-small-en-v1.5")
	if p := l.Manifest().SymmetricPrefix(); p != "" {
		t.Errorf("bge symmetric prefix %q, want none", p)
	}
	texts := []string{"play the newest album of the band", "what is the weather in Paris", "book a table for two",
		"rate this book five stars", "what is the weather in Rome", "play some jazz", "", "find the movie schedule",
		"add this song to my road trip playlist", "will it rain tomorrow"}
	ctx := context.Background()
	want, err := l.EmbedPassages(ctx, texts) // bge's passage prefix is empty too
	if err != nil {
		t.Fatal(err)
	}
	alone, err := l.EmbedSymmetric(ctx, texts, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.EmbedSymmetric(ctx, texts, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) || len(alone) != len(texts) {
		t.Fatalf("%d and %d vectors for %d texts", len(alone), len(got), len(texts))
	}
	for i := range texts {
		if c := cosine32(alone[i], want[i]); c < 0.999 {
			t.Errorf("text %q: symmetric vector alone at cosine %.4f to the unprefixed one", texts[i], c)
		}
		c := cosine32(got[i], want[i])
		if c < 0.9 {
			t.Errorf("text %q: bulk cosine %.4f < 0.9", texts[i], c)
		}
		for j := range texts {
			if j != i && cosine32(got[i], want[j]) > c {
				t.Errorf("text %q: bulk vector closer to %q", texts[i], texts[j])
			}
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.EmbedSymmetric(cctx, texts, true); err == nil {
		t.Error("no error with a cancelled context")
	}
}

func TestSymmetricPrefix(t *testing.T) {
	for _, tc := range []struct{ query, passage, want string }{
		{"Represent this sentence for searching relevant passages: ", "", ""},
		{"query: ", "passage: ", "query: "},
		{"", "", ""},
	} {
		if got := (Manifest{QueryPrefix: tc.query, PassagePrefix: tc.passage}).SymmetricPrefix(); got != tc.want {
			t.Errorf("%q/%q: %q, want %q", tc.query, tc.passage, got, tc.want)
		}
	}
}
