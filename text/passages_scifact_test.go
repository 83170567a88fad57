package text

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// scifactTexts returns the first n abstracts and n queries of BEIR SciFact.
func scifactTexts(t testing.TB, n int) (docs, queries []string) {
	t.Helper()
	read := func(name string, fn func(map[string]any)) {
		f, err := os.Open(filepath.Join(testutil.SharedData(t), "beir", "scifact", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			fn(m)
		}
	}
	read("corpus.jsonl", func(m map[string]any) {
		if len(docs) < n {
			docs = append(docs, m["text"].(string))
		}
	})
	read("queries.jsonl", func(m map[string]any) {
		if len(queries) < n {
			queries = append(queries, m["text"].(string))
		}
	})
	return docs, queries
}

// TestStemKeepsFirstByte checks what matchTerms relies on: stemming keeps
// the first byte of a folded word of more than two bytes (unless it is an
// apostrophe), and a stem of n bytes starts with the word's first
// stemKeep(n) bytes, for every
// word of 2,000 SciFact abstracts, the Czech UD forms and random ASCII
// words.
func TestStemKeepsFirstByte(t *testing.T) {
	docs, _ := scifactTexts(t, 2000)
	var words []string
	for _, d := range docs {
		words = append(words, strings.Fields(d)...)
	}
	for _, fl := range czechFormLemmas(t) {
		words = append(words, fl[0])
	}
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		b := make([]byte, 1+r.Intn(14))
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz'yyee"[r.Intn(31)]
		}
		words = append(words, string(b))
	}
	for _, w := range words {
		var buf [2*MaxTokenBytes + 4]byte
		f := appendFold(buf[:0], w)
		if len(f) <= 2 || f[0] == '\'' || !isASCIIWord(f) {
			continue
		}
		for _, stem := range []func([]byte) []byte{stemEnglish, func(b []byte) []byte { return stemCzech(b, CzechIndex) }} {
			first := f[0]
			s := stem(slices.Clone(f))
			if len(s) > 0 && s[0] != first {
				t.Fatalf("%q (folded %q) stems to %q: first byte changed", w, f, s)
			}
			if len(s) > 0 && !strings.HasPrefix(string(f), string(s[:stemKeep(len(s))])) {
				t.Fatalf("%q (folded %q) stems to %q: its first %d bytes are not the word's", w, f, s, stemKeep(len(s)))
			}
		}
	}
}

// TestMatchTermsAgreesWithAnalyze checks that matchTerms yields exactly the
// tokens of Analyze whose term is in the set, for SciFact abstracts and
// Czech sentences with query terms and random document terms.
func TestMatchTermsAgreesWithAnalyze(t *testing.T) {
	docs, queries := scifactTexts(t, 300)
	cs := czechSentences(t)
	if len(cs) > 300 {
		cs = cs[:300]
	}
	r := rand.New(rand.NewSource(2))
	for _, tc := range []struct {
		lang  Language
		texts []string
	}{{English, docs}, {Czech, cs}, {English, append(slices.Clone(queries), "'Tis O'Brien's 'quoted' words, Ýear ÇA 日本語 Ĳssel")}} {
		a := NewAnalyzer(tc.lang)
		for i, s := range tc.texts {
			terms := map[string]bool{}
			all := a.AppendTerms(nil, s)
			for _, q := range a.AppendTerms(nil, queries[i%len(queries)]) {
				terms[q] = true
			}
			for range 3 {
				if len(all) > 0 {
					terms[all[r.Intn(len(all))]] = true
				}
			}
			var filter termFilter
			for t := range terms {
				filter.add(t)
			}
			var want, got []Token
			a.Analyze(s, func(tk Token) {
				if terms[tk.Term] {
					want = append(want, tk)
				}
			})
			ts := a.matchTerms(s, &filter)
			for term, ok := ts.next(); ok; term, ok = ts.next() {
				if terms[string(term)] {
					got = append(got, Token{Term: string(term), Start: ts.start, End: ts.end})
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s text %d: matchTerms %v, Analyze %v", tc.lang, i, got, want)
			}
		}
	}
}

// BenchmarkPassagesSciFact cuts the passages of 10 SciFact abstracts (the
// hits of one search page) for each of 20 SciFact queries per iteration.
func BenchmarkPassagesSciFact(b *testing.B) {
	docs, queries := scifactTexts(b, 200)
	a := NewAnalyzer(English)
	qts := make([]map[string]float64, 20)
	for i := range qts {
		qts[i] = queryTerms(a, queries[i])
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, qt := range qts {
			for j := range 10 {
				Passages(a, qt, []string{docs[(i*10+j)%len(docs)]}, PassageOptions{})
			}
		}
	}
}
