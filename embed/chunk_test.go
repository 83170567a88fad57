package embed

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/najdi/najdi/internal/testutil"
)

// TestSentenceSpansCzechUD measures sentence boundary recall and precision
// on UD Czech-CAC dev: the gold sentences of each document are joined with
// spaces and split again.
func TestSentenceSpansCzechUD(t *testing.T) {
	f, err := os.Open(filepath.Join(sharedData(t), "czech", "ud_czech_cac", "cs_cac-ud-dev.conllu"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() && len(docs) < 60 {
		line := sc.Text()
		if strings.HasPrefix(line, "# newdoc") || len(docs) == 0 {
			docs = append(docs, nil)
		}
		if s, ok := strings.CutPrefix(line, "# text = "); ok {
			docs[len(docs)-1] = append(docs[len(docs)-1], s)
		}
	}
	var tp, fp, fn int
	for _, sents := range docs {
		text := strings.Join(sents, " ")
		gold := map[int]bool{}
		off := 0
		for _, s := range sents[:max(0, len(sents)-1)] {
			off += len(s)
			gold[off] = true
			off++
		}
		spans := sentenceSpans(text)
		for _, sp := range spans[:max(0, len(spans)-1)] {
			if gold[sp.End] {
				tp++
				delete(gold, sp.End)
			} else {
				fp++
			}
		}
		fn += len(gold)
	}
	recall, precision := float64(tp)/float64(tp+fn), float64(tp)/float64(tp+fp)
	t.Logf("Czech UD boundaries: %d docs, recall %.3f, precision %.3f", len(docs), recall, precision)
	if tp+fn < 300 {
		t.Fatalf("only %d gold boundaries", tp+fn)
	}
	if recall < 0.85 || precision < 0.90 {
		t.Errorf("recall %.3f (floor 0.85), precision %.3f (floor 0.90)", recall, precision)
	}
}

// checkChunks verifies the ChunkText contract on s.
func checkChunks(t *testing.T, s string, chunks []Chunk, counter TokenCounter, maxTokens int) {
	t.Helper()
	covered := make([]bool, len(s))
	prev := 0
	for _, c := range chunks {
		if c.Start < prev || c.End <= c.Start || c.End > len(s) {
			t.Fatalf("bad chunk %v after %d in %d bytes", c, prev, len(s))
		}
		text := s[c.Start:c.End]
		if strings.TrimSpace(text) != text {
			t.Errorf("chunk %q not trimmed", text)
		}
		if n := counter.CountTokens(text); n > maxTokens {
			t.Errorf("chunk of %d tokens > %d: %q", n, maxTokens, text)
		}
		for i := c.Start; i < c.End; i++ {
			covered[i] = true
		}
		prev = c.End
	}
	for i, r := range s {
		if !unicode.IsSpace(r) && !covered[i] {
			t.Fatalf("byte %d (%q) of %q is in no chunk", i, r, s)
		}
	}
}

func TestChunkTextCases(t *testing.T) {
	long := strings.Repeat("a-", 40) + "a"
	tests := []struct {
		name      string
		in        string
		maxTokens int
		want      []string
	}{
		{"blank", " \n\t ", 10, nil},
		{"no limit", "  one. two  ", 0, []string{"one. two"}},
		{"pack", "One two. Three four. Five six.", 4, []string{"One two. Three four.", "Five six."}},
		{"long sentence by words", "one two three four five six seven", 3, []string{"one two three", "four five six", "seven"}},
		// "a-" is two tokens: a long run without white space is cut
		// between its words.
		{"long run by inner words", long, 20, []string{long[:20], long[20:40], long[40:60], long[60:80], long[80:]}},
		// state - of - the - art is seven tokens: it is kept whole while it
		// fits, else cut between its words, never inside one.
		{"white space first", "use state-of-the-art methods now", 8, []string{"use state-of-the-art", "methods now"}},
		{"hyphens second", "x state-of-the-art", 4, []string{"x state-", "of-the-", "art"}},
	}
	tok, err := LoadTokenizer(filepath.Join(modelDir(t, "bge-small-en-v1.5"), "tokenizer.json"), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var counter TokenCounter = tok
			if tt.name == "pack" {
				counter = nil // word counting
			}
			chunks := ChunkText(tt.in, counter, tt.maxTokens)
			var got []string
			for _, c := range chunks {
				got = append(got, tt.in[c.Start:c.End])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestChunkTextLongWord checks that a single word longer than maxTokens is
// cut at character boundaries into pieces that fit.
func TestChunkTextLongWord(t *testing.T) {
	tok, err := LoadTokenizer(filepath.Join(modelDir(t, "bge-small-en-v1.5"), "tokenizer.json"), true)
	if err != nil {
		t.Fatal(err)
	}
	const word = "pneumonoultramicroscopicsilicovolcanoconiosis"
	const maxTokens = 3
	n := tok.CountTokens(word)
	if n <= maxTokens {
		t.Fatalf("%q is only %d tokens", word, n)
	}
	chunks := ChunkText(word, tok, maxTokens)
	checkChunks(t, word, chunks, tok, maxTokens)
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(word[c.Start:c.End])
	}
	if b.String() != word || len(chunks) < (n+maxTokens-1)/maxTokens {
		t.Errorf("%d tokens in %d chunks %v", n, len(chunks), chunks)
	}
}

// TestChunkTextSciFact checks the contract on real abstracts and that chunks
// end on sentence ends.
func TestChunkTextSciFact(t *testing.T) {
	tok, err := LoadTokenizer(filepath.Join(modelDir(t, "bge-small-en-v1.5"), "tokenizer.json"), true)
	if err != nil {
		t.Fatal(err)
	}
	texts := scifactTexts(t, 300)
	for _, maxTokens := range []int{32, 128, 256} {
		var chunks, sentenceEnds int
		for _, s := range texts {
			cs := ChunkText(s, tok, maxTokens)
			checkChunks(t, s, cs, tok, maxTokens)
			ends := map[int]bool{}
			for _, sp := range sentenceSpans(s) {
				ends[sp.End] = true
			}
			for _, c := range cs {
				chunks++
				if ends[c.End] {
					sentenceEnds++
				}
			}
		}
		share := float64(sentenceEnds) / float64(chunks)
		t.Logf("max %d tokens: %d chunks, %.3f end on a sentence end", maxTokens, chunks, share)
		if maxTokens == 256 && share < 0.97 {
			t.Errorf("only %.3f of 256-token chunks end on a sentence end", share)
		}
	}
}

// scifactTexts returns the first n SciFact abstracts.
func scifactTexts(tb testing.TB, n int) []string {
	tb.Helper()
	var out []string
	for _, d := range testutil.SciFactDocs(tb, n) {
		out = append(out, d.Text)
	}
	return out
}
