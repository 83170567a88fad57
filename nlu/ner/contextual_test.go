package ner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/nlu/token"
)

var (
	statesOnce sync.Once
	statesLoc  *embed.Local
	statesErr  error
)

// wordStates loads the embedding model the contextual tagger reads
// (installed by make models) once per test binary.
func wordStates(t testing.TB) WordStates {
	t.Helper()
	tg, err := EnglishContextual()
	if err != nil {
		t.Fatal(err)
	}
	model, dims := tg.Contextual()
	if model != "bge-small-en-v1.5" || dims != 384 {
		t.Fatalf("contextual tagger reads %s (%d), want bge-small-en-v1.5 (384)", model, dims)
	}
	statesOnce.Do(func() {
		reg := embed.NewRegistry(embed.CachePaths(embed.DefaultCacheDir()))
		statesLoc, statesErr = reg.Local(model)
	})
	if statesErr != nil {
		t.Fatalf("%s not installed (make models): %v", model, statesErr)
	}
	return statesLoc.WordStates
}

// TestEnglishContextualQuality tags every sixth sentence of CoNLL-2003
// valid.txt (542 sentences) as a client sends them (words joined by spaces, through
// package token and TagEnglishContext with the real model's word vectors)
// and compares with the lexical tagger on the same path. The bench command
// runs all of valid.txt.
func TestEnglishContextualQuality(t *testing.T) {
	states := wordStates(t)
	var valid []Sentence
	for i, s := range readConll(t, "valid.txt") {
		if i%6 == 0 {
			valid = append(valid, s)
		}
	}
	type counts struct{ tp, fp, fn int }
	var lex, ctxc counts
	for _, s := range valid {
		gold := goldTextSpans(s)
		toks := token.Tokenize(strings.Join(s.Words, " "))
		a, err := TagEnglish(toks)
		if err != nil {
			t.Fatal(err)
		}
		b, err := TagEnglishContext(context.Background(), toks, states)
		if err != nil {
			t.Fatal(err)
		}
		lex.tp, lex.fp, lex.fn = addSpanCounts(lex.tp, lex.fp, lex.fn, gold, a)
		ctxc.tp, ctxc.fp, ctxc.fn = addSpanCounts(ctxc.tp, ctxc.fp, ctxc.fn, gold, b)
	}
	f1 := func(c counts) float64 { return 2 * float64(c.tp) / float64(2*c.tp+c.fp+c.fn) }
	fl, fc := f1(lex), f1(ctxc)
	t.Logf("%d valid sentences through text: lexical F1 %.3f, contextual F1 %.3f", len(valid), fl, fc)
	// Measured lexical 0.877, contextual 0.909; floors a little under.
	if fc < 0.895 || fc < fl+0.02 {
		t.Errorf("contextual F1 %.3f (lexical %.3f), want >= 0.895 and 0.02 over the lexical", fc, fl)
	}
}

// TestTagEnglishContextSplits checks that the words reach the word-vector
// function sentence by sentence, at most maxStateWords at once, in order,
// and that its failure is returned.
func TestTagEnglishContextSplits(t *testing.T) {
	var calls [][]string
	rec := func(ctx context.Context, words []string) ([][]float32, error) {
		calls = append(calls, append([]string(nil), words...))
		out := make([][]float32, len(words))
		for i := range out {
			out[i] = make([]float32, 384)
		}
		return out, nil
	}
	text := "Peter Blackburn lives in London. He works for the BBC! " + strings.Repeat("word ", 300)
	if _, err := TagEnglishContext(context.Background(), token.Tokenize(text), rec); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, c := range calls {
		got = append(got, len(c))
	}
	want := []int{6, 6, 128, 128, 44}
	if fmt.Sprint(got) != fmt.Sprint(want) || calls[0][0] != "Peter" || calls[1][5] != "!" {
		t.Errorf("calls of %v words (%q, %q), want %v", got, calls[0], calls[1], want)
	}
	boom := errors.New("boom")
	_, err := TagEnglishContext(context.Background(), token.Tokenize(text), func(context.Context, []string) ([][]float32, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	short := func(ctx context.Context, words []string) ([][]float32, error) { return nil, nil }
	if _, err := TagEnglishContext(context.Background(), token.Tokenize(text), short); err == nil {
		t.Error("a word-vector function returning too few vectors was accepted")
	}
	wide := func(ctx context.Context, words []string) ([][]float32, error) {
		out := make([][]float32, len(words))
		for i := range out {
			out[i] = make([]float32, 768)
		}
		return out, nil
	}
	if _, err := TagEnglishContext(context.Background(), token.Tokenize(text), wide); err == nil {
		t.Error("word vectors of another model's length were accepted")
	}
	// TagVectors falls back to the lexical features for such vectors.
	tg, err := EnglishContextual()
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("Peter Blackburn lives in London .")
	vw, _ := wide(context.Background(), words)
	if got := tg.TagVectors(words, vw); len(got) != len(words) {
		t.Errorf("TagVectors with 768-float vectors: %v", got)
	}
}

// BenchmarkTagEnglish compares the lexical and the contextual tagger on a
// two-sentence, 25-word text (the contextual cost is mostly the two model
// runs):
//
//	go test ./nlu/ner -run '^$' -bench TagEnglish -benchtime 50x
func BenchmarkTagEnglish(b *testing.B) {
	text := "Peter Blackburn of the European Commission flew to Paris on Monday to meet the French finance minister. He said Germany would not change its position."
	toks := token.Tokenize(text)
	states := wordStates(b)
	// Load both models and the embedding session before timing.
	if _, err := TagEnglish(toks); err != nil {
		b.Fatal(err)
	}
	if _, err := TagEnglishContext(context.Background(), toks, states); err != nil {
		b.Fatal(err)
	}
	b.Run("lexical", func(b *testing.B) {
		for b.Loop() {
			if _, err := TagEnglish(toks); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("contextual", func(b *testing.B) {
		for b.Loop() {
			if _, err := TagEnglishContext(context.Background(), toks, states); err != nil {
				b.Fatal(err)
			}
		}
	})
}
