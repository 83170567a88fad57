package invindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// textTestDoc is one generated document: distinct terms with weighted
// frequencies and a weighted length.
type textTestDoc struct {
	doc    uint32
	terms  []TermFreq
	length float32
}

// textTestCorpus generates numDocs documents (some skipped, some empty) over
// a Zipf-distributed vocabulary of vocab terms, with title-like boosted
// occurrences, from a fixed seed.
func textTestCorpus(seed uint64, numDocs, vocab int) []textTestDoc {
	r := rand.New(rand.NewPCG(seed, 7))
	z := rand.NewZipf(r, 1.1, 2, uint64(vocab-1))
	var out []textTestDoc
	for d := range numDocs {
		if r.IntN(20) == 0 {
			continue // a document number without any Add
		}
		n := r.IntN(40)
		counts := map[string]float32{}
		var length float32
		for range n {
			boost := float32(1)
			if r.IntN(8) == 0 {
				boost = 2.5 // a title occurrence
			}
			counts[fmt.Sprintf("t%03d", z.Uint64())] += boost
			length += boost
		}
		doc := textTestDoc{doc: uint32(d), length: length}
		for term, f := range counts {
			doc.terms = append(doc.terms, TermFreq{Term: term, Freq: f})
		}
		slices.SortFunc(doc.terms, func(a, b TermFreq) int { return cmpString(a.Term, b.Term) })
		out = append(out, doc)
	}
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func textBuild(docs []textTestDoc) *TextIndex {
	b := NewTextBuilder()
	for _, d := range docs {
		b.Add(d.doc, d.terms, d.length)
	}
	return b.Build()
}

// textNaivePostings is the reference posting list of term: every document
// whose generated terms contain it, with the quantized frequency.
func textNaivePostings(docs []textTestDoc, term string) (ds []uint32, tfs []uint16) {
	for _, d := range docs {
		for _, tf := range d.terms {
			if tf.Term == term {
				ds = append(ds, d.doc)
				tfs = append(tfs, postQuantizeTF(tf.Freq))
			}
		}
	}
	return ds, tfs
}

func TestTextIndexStats(t *testing.T) {
	docs := textTestCorpus(1, 700, 300)
	idx := textBuild(docs)
	if want := docs[len(docs)-1].doc + 1; idx.NumDocs() != want {
		t.Fatalf("NumDocs = %d, want %d", idx.NumDocs(), want)
	}
	var total float64
	for _, d := range docs {
		total += float64(d.length)
		if got := idx.DocLength(d.doc); got != d.length {
			t.Fatalf("DocLength(%d) = %v, want %v", d.doc, got, d.length)
		}
	}
	if idx.TotalLength() != total {
		t.Fatalf("TotalLength = %v, want %v", idx.TotalLength(), total)
	}
	if idx.DocLength(idx.NumDocs()) != 0 {
		t.Fatal("DocLength out of range is not 0")
	}
	var prev string
	n := 0
	idx.Terms(func(term string, df uint32) bool {
		if n > 0 && term <= prev {
			t.Fatalf("Terms out of order: %q after %q", term, prev)
		}
		want, _ := textNaivePostings(docs, term)
		if int(df) != len(want) || idx.DocFreq(term) != df {
			t.Fatalf("df(%q) = %d / %d, want %d", term, df, idx.DocFreq(term), len(want))
		}
		prev = term
		n++
		return true
	})
	if n != idx.NumTerms() || n < 100 {
		t.Fatalf("Terms visited %d terms, NumTerms %d", n, idx.NumTerms())
	}
	if idx.DocFreq("nope") != 0 || idx.DocFreq("") != 0 {
		t.Fatal("unknown term has a document frequency")
	}
}

func TestPostingsIter(t *testing.T) {
	docs := textTestCorpus(2, 3000, 200)
	idx := textBuild(docs)
	r := rand.New(rand.NewPCG(3, 3))
	tests := []struct {
		name string
		term string
	}{
		{"common", "t002"},
		{"medium", "t010"},
		{"rare", "t150"},
		{"unknown", "zzz"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantDocs, wantTFs := textNaivePostings(docs, tc.term)
			it := idx.Postings(tc.term)
			if it.Len() != len(wantDocs) {
				t.Fatalf("Len = %d, want %d", it.Len(), len(wantDocs))
			}
			var got []uint32
			for it.Next() {
				got = append(got, it.At())
				if want := postTF(wantTFs[len(got)-1]); it.Freq() != want {
					t.Fatalf("Freq at %d = %v, want %v", it.At(), it.Freq(), want)
				}
			}
			if it.Next() || it.Err() != nil {
				t.Fatal("Next after the end")
			}
			if !slices.Equal(got, wantDocs) {
				t.Fatalf("Next walk = %v, want %v", got, wantDocs)
			}
			// Random increasing seeks, including repeats and jumps over
			// several blocks, against a linear reference.
			it = idx.Postings(tc.term)
			target := uint32(0)
			for range 200 {
				target += uint32(r.IntN(60))
				want := -1
				for i, d := range wantDocs {
					if d >= target {
						want = i
						break
					}
				}
				ok := it.Seek(target)
				if ok != (want >= 0) {
					t.Fatalf("Seek(%d) = %v, want %v", target, ok, want >= 0)
				}
				if !ok {
					break
				}
				// target never falls behind the current document, so
				// the reference is the first document ≥ target.
				if it.At() != wantDocs[want] {
					t.Fatalf("Seek(%d) at %d, want %d", target, it.At(), wantDocs[want])
				}
				target = max(target, it.At())
			}
		})
	}
}

func TestTermBitmap(t *testing.T) {
	docs := textTestCorpus(4, 1000, 100)
	idx := textBuild(docs)
	for _, term := range []string{"t002", "t050", "missing"} {
		want, _ := textNaivePostings(docs, term)
		if got := idx.TermBitmap(term).ToArray(); !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Errorf("TermBitmap(%q) = %v, want %v", term, got, want)
		}
	}
}

func TestTextBuilderEdgeCases(t *testing.T) {
	b := NewTextBuilder()
	b.Add(0, []TermFreq{{"a", 1}, {"b", 0}, {"c", -1}}, 2)
	b.Add(2, []TermFreq{{"a", 1}, {"a", 2}}, 3) // repeated term: summed
	b.Add(3, nil, 0)
	idx := b.Build()
	if idx.NumDocs() != 4 || idx.DocLength(1) != 0 || idx.TotalLength() != 5 {
		t.Fatalf("stats: %d docs, len(1)=%v, total %v", idx.NumDocs(), idx.DocLength(1), idx.TotalLength())
	}
	if idx.DocFreq("b") != 0 || idx.DocFreq("c") != 0 || idx.DocFreq("a") != 2 {
		t.Fatalf("df a=%d b=%d c=%d", idx.DocFreq("a"), idx.DocFreq("b"), idx.DocFreq("c"))
	}
	it := idx.Postings("a")
	it.Seek(1)
	if it.At() != 2 || it.Freq() != 3 {
		t.Fatalf("doc %d tf %v, want doc 2 tf 3", it.At(), it.Freq())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("out-of-order Add did not panic")
		}
	}()
	b = NewTextBuilder()
	b.Add(5, nil, 1)
	b.Add(5, nil, 1)
}

func TestQuantizeTF(t *testing.T) {
	tests := []struct {
		in   float32
		want float32
	}{
		{1, 1}, {2.5, 2.5}, {0.01, 1.0 / 16}, {0, 0}, {-3, 0}, {1e9, postMaxTF}, {3.03, 3},
	}
	for _, tc := range tests {
		if got := postTF(postQuantizeTF(tc.in)); got != tc.want {
			t.Errorf("quantize(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
