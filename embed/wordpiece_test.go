package embed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type parityFile struct {
	MaxTokens int `json:"max_tokens"`
	Cases     []struct {
		Text string  `json:"text"`
		IDs  []int32 `json:"ids"`
	} `json:"cases"`
}

// TestTokenizerParity compares ids with those of Hugging Face tokenizers on
// the same tokenizer.json (embed/testdata/tokenizer_parity.json, written by
// scripts/embed_reference.py).
func TestTokenizerParity(t *testing.T) {
	tok, err := LoadTokenizer(filepath.Join(modelDir(t, "bge-small-en-v1.5"), "tokenizer.json"), true)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/tokenizer_parity.json")
	if err != nil {
		t.Fatal(err)
	}
	var pf parityFile
	if err := json.Unmarshal(data, &pf); err != nil {
		t.Fatal(err)
	}
	if len(pf.Cases) < 20 {
		t.Fatalf("only %d parity cases", len(pf.Cases))
	}
	for _, c := range pf.Cases {
		got := tok.Encode(c.Text, pf.MaxTokens)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q):\n got %v\nwant %v", c.Text, got, c.IDs)
		}
		if n := tok.CountTokens(c.Text); len(c.IDs) < pf.MaxTokens && n != len(c.IDs)-2 {
			t.Errorf("CountTokens(%q) = %d, want %d", c.Text, n, len(c.IDs)-2)
		}
	}
}

// TestVocabTxtParity writes the vocabulary as a BERT vocab.txt and checks
// that the vocab.txt loader tokenizes the parity cases the same way.
func TestVocabTxtParity(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(modelDir(t, "bge-small-en-v1.5"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hf hfTokenizer
	if err := json.Unmarshal(data, &hf); err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(hf.Model.Vocab))
	for piece, id := range hf.Model.Vocab {
		lines[id] = piece
	}
	path := filepath.Join(t.TempDir(), "vocab.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(path, true)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := parseTokenizerJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var pf parityFile
	raw, err := os.ReadFile("testdata/tokenizer_parity.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &pf); err != nil {
		t.Fatal(err)
	}
	for _, c := range pf.Cases {
		if got, want := tok.Encode(c.Text, pf.MaxTokens), ref.Encode(c.Text, pf.MaxTokens); !slices.Equal(got, want) {
			t.Errorf("vocab.txt Encode(%q) = %v, tokenizer.json %v", c.Text, got, want)
		}
	}
}

// TestEncodeOddInput checks that invalid UTF-8 and degenerate inputs still
// give [CLS] … [SEP] within the limit.
func TestEncodeOddInput(t *testing.T) {
	tok, err := LoadTokenizer(filepath.Join(modelDir(t, "bge-small-en-v1.5"), "tokenizer.json"), true)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		max  int
		want int // length of the result
	}{
		{"\xff\xfe invalid \xc3", 512, 3},
		{"\x00\x01\x02", 512, 2},
		{strings.Repeat("word ", 1000), 16, 16},
		{strings.Repeat("word ", 10), 0, 12},
		{"ab", 3, 3},
	}
	for _, tt := range tests {
		ids := tok.Encode(tt.in, tt.max)
		if len(ids) != tt.want || ids[0] != tok.cls || ids[len(ids)-1] != tok.sep {
			t.Errorf("Encode(%q, %d) = %v, want %d ids framed by [CLS] [SEP]", tt.in, tt.max, ids, tt.want)
		}
	}
}
