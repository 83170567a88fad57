package summary

import (
	"errors"
	"sync"
	"testing"
)

// TestCount checks exact counts against the reference values of OpenAI's
// cookbook "How to count tokens with tiktoken" (Python tiktoken, the
// compare_encodings examples).
func TestCount(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
	}{
		{O200kBase, "tiktoken is great!", 6},
		{Cl100kBase, "tiktoken is great!", 6},
		{O200kBase, "antidisestablishmentarianism", 6},
		{Cl100kBase, "antidisestablishmentarianism", 6},
		{O200kBase, "2 + 2 = 4", 7},
		{Cl100kBase, "2 + 2 = 4", 7},
		{O200kBase, "お誕生日おめでとう", 8},
		{Cl100kBase, "お誕生日おめでとう", 9},
		{"", "お誕生日おめでとう", 8}, // the default is o200k_base
		{O200kBase, "", 0},
	}
	for _, tc := range tests {
		tk, err := NewTokenizer(tc.name, nil)
		if err != nil {
			t.Fatalf("NewTokenizer(%q): %v", tc.name, err)
		}
		if got := tk.Count(tc.text); got != tc.want {
			t.Errorf("%s Count(%q) = %d, want %d", tk.Name(), tc.text, got, tc.want)
		}
	}
}

func TestNewTokenizer(t *testing.T) {
	emb := testTokenizers(t)[2]
	tests := []struct {
		name     string
		embed    Tokenizer
		wantName string
		wantErr  error
	}{
		{"", nil, O200kBase, nil},
		{O200kBase, nil, O200kBase, nil},
		{Cl100kBase, nil, Cl100kBase, nil},
		{Embedding, emb, Embedding, nil},
		{Embedding, nil, "", ErrInvalid},
		{"gpt2", nil, "", ErrInvalid},
		{"O200K_BASE", nil, "", ErrInvalid},
	}
	for _, tc := range tests {
		tk, err := NewTokenizer(tc.name, tc.embed)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("NewTokenizer(%q) error = %v, want %v", tc.name, err, tc.wantErr)
			continue
		}
		if err == nil && tk.Name() != tc.wantName {
			t.Errorf("NewTokenizer(%q).Name() = %q, want %q", tc.name, tk.Name(), tc.wantName)
		}
	}
	a, _ := NewTokenizer(O200kBase, nil)
	b, _ := NewTokenizer("", nil)
	if a != b {
		t.Error("o200k_base codec is not cached")
	}
}

// TestCountConcurrent counts from many goroutines at once (run with -race).
func TestCountConcurrent(t *testing.T) {
	docs := loadSciFact(t, 16)
	for _, tk := range testTokenizers(t) {
		want := make([]int, len(docs))
		for i, d := range docs {
			want[i] = tk.Count(docText(d))
		}
		var wg sync.WaitGroup
		errs := make(chan string, len(docs))
		for i, d := range docs {
			wg.Go(func() {
				if got := tk.Count(docText(d)); got != want[i] {
					errs <- d.ID
				}
			})
		}
		wg.Wait()
		close(errs)
		for id := range errs {
			t.Errorf("%s: concurrent count of doc %s differs", tk.Name(), id)
		}
	}
}
