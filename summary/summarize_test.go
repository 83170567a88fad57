package summary

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// randomCase builds a random Summarize input from real SciFact documents:
// 0–12 documents (some reshaped: one huge unpunctuated section, an empty
// document, extra sections), random evidence, a query made of words of one
// of the documents (or none), a budget in 1..5000 skewed to small values.
func randomCase(rng *rand.Rand, corpus []Doc) (query string, docs []Doc, budget int) {
	n := rng.IntN(13)
	for range n {
		d := corpus[rng.IntN(len(corpus))]
		d.Sections = append([]Section(nil), d.Sections...)
		switch rng.IntN(12) {
		case 0:
			d.Sections = nil // no text at all
		case 1: // one long section without sentence ends
			d.Sections = []Section{{Type: "text", Content: strings.Repeat(strings.ReplaceAll(d.Sections[1].Content, ".", ""), 1+rng.IntN(4))}}
		case 2:
			d.Sections = append(d.Sections, Section{Type: "h1", Content: "Příliš žluťoučký kůň úpěl ďábelské ódy. Zkouška"}, Section{Type: "empty", Content: " \n "})
		case 3: // a single short sentence
			w := strings.Fields(d.Sections[0].Content)
			d.Sections = []Section{{Type: "title", Content: strings.Join(w[:min(len(w), 1+rng.IntN(5))], " ")}}
		}
		for range rng.IntN(4) {
			if len(d.Sections) == 0 {
				break
			}
			si := rng.IntN(len(d.Sections))
			l := utf8.RuneCountInString(d.Sections[si].Content)
			if l == 0 {
				continue
			}
			a := rng.IntN(l)
			d.Evidence = append(d.Evidence, Evidence{Section: si, Start: a, End: a + 1 + rng.IntN(200), Score: rng.Float64()})
		}
		docs = append(docs, d)
	}
	if len(docs) > 0 && rng.IntN(8) > 0 {
		src := strings.Fields(docText(docs[rng.IntN(len(docs))]))
		if len(src) > 0 {
			for range 1 + rng.IntN(8) {
				query += src[rng.IntN(len(src))] + " "
			}
		}
	}
	if rng.IntN(2) == 0 {
		budget = 1 + rng.IntN(200)
	} else {
		budget = 1 + rng.IntN(5000)
	}
	return query, docs, budget
}

// TestSummarizeProperties runs Summarize on random inputs with all three
// tokenizers and checks the budget, the counts, the strategy's promise
// (every document is included when their shortest excerpts fit, otherwise
// the top ones) and that excerpts are real text cut at word boundaries.
func TestSummarizeProperties(t *testing.T) {
	corpus := loadSciFact(t, 300)
	toks := testTokenizers(t)
	analyzers := []*text.Analyzer{nil, text.NewAnalyzer(text.English), text.NewAnalyzer(text.Czech)}
	seps := [][2]string{{"", ""}, {" ¶ ", "\n=====\n"}, {"\n", "\n\n"}}
	rng := rand.New(rand.NewPCG(1, 2))
	iters := 2400
	if testing.Short() {
		iters = 300
	}
	methods := map[string]int{}
	for it := range iters {
		query, docs, budget := randomCase(rng, corpus)
		sep := seps[rng.IntN(len(seps))]
		cfg := Config{MaxTokens: budget, SummarySeparator: sep[0], DocumentSeparator: sep[1], Tokenizer: toks[it%len(toks)], Analyzer: analyzers[rng.IntN(len(analyzers))]}
		wantString := rng.IntN(2) == 0
		r, err := Summarize(query, docs, cfg, wantString)
		if err != nil {
			t.Fatalf("case %d: %v", it, err)
		}
		methods[r.Method]++
		checkResult(t, it, query, docs, cfg, wantString, r)
		if t.Failed() {
			t.Fatalf("case %d failed: tokenizer %s budget %d docs %d query %q", it, cfg.Tokenizer.Name(), budget, len(docs), query)
		}
	}
	// The generator must exercise every level and the tail cut.
	for _, m := range append(Levels[:], "top_documents", "none") {
		if methods[m] == 0 {
			t.Errorf("no case used method %q (methods seen: %v)", m, methods)
		}
	}
}

// checkResult verifies one Summarize result.
func checkResult(t *testing.T, it int, query string, docs []Doc, cfg Config, wantString bool, r Result) {
	t.Helper()
	full, _ := cfg.withDefaults()
	tk := full.Tokenizer
	if r.OriginalCount != len(docs) || r.SummaryCount != len(r.Summaries) || r.SummaryCount > r.OriginalCount {
		t.Errorf("case %d: counts original %d summary %d, len(docs) %d len(summaries) %d", it, r.OriginalCount, r.SummaryCount, len(docs), len(r.Summaries))
	}
	sum := 0
	for _, s := range r.Summaries {
		sum += tk.Count(s.Content)
	}
	if sum > cfg.MaxTokens {
		t.Errorf("case %d: summaries hold %d tokens, budget %d", it, sum, cfg.MaxTokens)
	}
	want := sum
	if wantString {
		joined := make([]string, len(r.Summaries))
		for i, s := range r.Summaries {
			joined[i] = s.Content
		}
		if j := strings.Join(joined, full.DocumentSeparator); r.String != j {
			t.Errorf("case %d: String is not the summaries joined", it)
		}
		want = tk.Count(r.String)
		if want > cfg.MaxTokens {
			t.Errorf("case %d: summary string holds %d tokens, budget %d", it, want, cfg.MaxTokens)
		}
	} else if r.String != "" {
		t.Errorf("case %d: String set without being requested", it)
	}
	if r.PromptTokens != want {
		t.Errorf("case %d: PromptTokens %d, want %d", it, r.PromptTokens, want)
	}
	if r.Message == "" || r.Method == "" {
		t.Errorf("case %d: empty method or message", it)
	}
	// The summarized documents are the top documents with text, in order.
	var withText []int
	for i, d := range docs {
		if strings.TrimSpace(docText(d)) != "" {
			withText = append(withText, i)
		}
	}
	for i, s := range r.Summaries {
		d := docs[withText[i]]
		if s.DocumentID != d.ID {
			t.Errorf("case %d: summary %d is of %s, want %s", it, i, s.DocumentID, d.ID)
			continue
		}
		checkExcerpt(t, it, d, s.Content, full.SummarySeparator)
	}
	// Every document is included whenever the shortest excerpts allow it.
	if r.SummaryCount < len(withText) {
		w := newWeights(query, docs, full.Analyzer)
		var mins []string
		total := 0
		for _, di := range withText[:r.SummaryCount+1] {
			st := &docState{p: prepare(di, &docs[di], w)}
			st.initWords(w)
			m := st.shorten(full, min(MinWords, len(st.words)))
			if f := st.shorten(full, len(st.words)); f.tokens <= m.tokens {
				m = f
			}
			mins = append(mins, m.text)
			total += tk.Count(m.text)
		}
		fitsAll := total <= cfg.MaxTokens && (!wantString || tk.Count(strings.Join(mins, full.DocumentSeparator)) <= cfg.MaxTokens)
		if fitsAll {
			t.Errorf("case %d: only %d of %d documents, but the shortest excerpts of %d fit", it, r.SummaryCount, len(withText), r.SummaryCount+1)
		}
		if r.Method != "top_documents" && r.SummaryCount > 0 {
			t.Errorf("case %d: documents dropped with method %q", it, r.Method)
		}
	}
}

// checkExcerpt checks that every piece of an excerpt is text of the
// document that starts and ends at word boundaries.
func checkExcerpt(t *testing.T, it int, d Doc, content, sep string) {
	t.Helper()
	if content == "" {
		t.Errorf("case %d: empty summary of %s", it, d.ID)
	}
	for _, piece := range strings.Split(content, sep) {
		cut := strings.HasPrefix(piece, Ellipsis+" ") || strings.HasSuffix(piece, " "+Ellipsis)
		piece = strings.TrimSuffix(strings.TrimPrefix(piece, Ellipsis+" "), " "+Ellipsis)
		if piece == "" {
			t.Errorf("case %d: empty piece in summary of %s", it, d.ID)
			continue
		}
		found := false
		for _, s := range d.Sections {
			for off := 0; ; {
				k := strings.Index(s.Content[off:], piece)
				if k < 0 {
					break
				}
				a, b := off+k, off+k+len(piece)
				before, _ := utf8.DecodeLastRuneInString(s.Content[:a])
				after, _ := utf8.DecodeRuneInString(s.Content[b:])
				if (a == 0 || unicode.IsSpace(before)) && (b == len(s.Content) || unicode.IsSpace(after) || !cut) {
					found = true
					break
				}
				off = a + 1
			}
		}
		if !found {
			t.Errorf("case %d: piece %q of %s is not document text cut at word boundaries", it, piece, d.ID)
		}
	}
}

func TestSummarizeInvalid(t *testing.T) {
	if _, err := Summarize("q", nil, Config{MaxTokens: -1}, true); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative budget: error %v, want ErrInvalid", err)
	}
	r, err := Summarize("q", nil, Config{}, true)
	if err != nil || r.SummaryCount != 0 || r.Method != "none" {
		t.Errorf("no documents: %+v, %v", r, err)
	}
}

// TestSummarizeLevels checks each level's excerpt on small documents whose
// token counts are computed from the text, not copied from output.
func TestSummarizeLevels(t *testing.T) {
	tk, err := NewTokenizer(O200kBase, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := Doc{ID: "d", Sections: []Section{
		{Type: "title", Content: "Rivers of Bohemia"},
		{Type: "text", Content: "Bohemia has many rivers. Today the Vltava river flows north through the old city of Prague. Its water is cold. Summers are warm. Boats carry tourists. The Elbe takes the Vltava north. Fish live there."},
		{Type: "note", Content: "Unrelated closing words here."},
	}}
	q := "Vltava Prague"
	textSec := d.Sections[1].Content
	best := "Today the Vltava river flows north through the old city of Prague."
	second := "The Elbe takes the Vltava north."
	passages := "Bohemia has many rivers. " + best + " Its water is cold.\n\nBoats carry tourists. " + second + " Fish live there."
	sentences := best + "\n\n" + second
	// Shortened: the longest window of the best sentence within the
	// budget that holds the most query weight: both terms (Vltava is word
	// 2, Prague the last, 12th) from 10 words on, so it ends at "Prague.";
	// below, one term of equal weight and the earliest window wins.
	short := func(budget int) string {
		w := strings.Fields(best)
		for k := len(w) - 1; k >= MinWords; k-- {
			s := Ellipsis + " " + strings.Join(w[len(w)-k:], " ")
			if k < 10 {
				s = strings.Join(w[:k], " ") + " " + Ellipsis
			}
			if tk.Count(s) <= budget {
				return s
			}
		}
		return ""
	}
	tests := []struct {
		name   string
		budget int
		method string
		want   string
	}{
		{"sections", tk.Count(textSec), "sections", textSec},
		{"passages", tk.Count(passages), "passages", passages},
		{"sentences", tk.Count(sentences), "sentences", sentences},
		{"best sentence", tk.Count(best), "best_sentence", best},
		{"shortened", tk.Count(best) - 1, "shortened_sentences", short(tk.Count(best) - 1)},
		{"shortened more", tk.Count(best) - 6, "shortened_sentences", short(tk.Count(best) - 6)},
		{"too small", tk.Count(Ellipsis+" of Prague.") - 1, "none", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Summarize(q, []Doc{d}, Config{MaxTokens: tc.budget, Tokenizer: tk}, true)
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != tc.method {
				t.Errorf("method %q, want %q (%s)", r.Method, tc.method, r.Message)
			}
			got := ""
			if len(r.Summaries) > 0 {
				got = r.Summaries[0].Content
			}
			if got != tc.want || r.String != tc.want {
				t.Errorf("summary %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSummarizeEvidence: evidence from the retrievers decides the excerpt
// when the query terms do not.
func TestSummarizeEvidence(t *testing.T) {
	content := "Cats sleep a lot. Dogs bark at strangers. Birds sing early."
	start := len([]rune("Cats sleep a lot. "))
	d := Doc{ID: "d", Sections: []Section{{Type: "text", Content: content}}, Evidence: []Evidence{{Section: 0, Start: start, End: start + 10, Score: 0.9}}}
	tk, _ := NewTokenizer(O200kBase, nil)
	want := "Dogs bark at strangers."
	r, err := Summarize("pets", []Doc{d}, Config{MaxTokens: tk.Count(want), Tokenizer: tk}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Summaries) != 1 || r.Summaries[0].Content != want {
		t.Errorf("summaries %+v, want %q", r.Summaries, want)
	}
}

func BenchmarkSummarize(b *testing.B) {
	corpus := loadSciFact(b, 200)
	docs := corpus[100:110]
	q := "diffusion tensor imaging of white matter in preterm infants"
	for _, budget := range []int{100, 1000} {
		b.Run(fmt.Sprintf("docs=10/budget=%d", budget), func(b *testing.B) {
			cfg := Config{MaxTokens: budget}
			b.ReportAllocs()
			n := 0
			for _, d := range docs {
				n += len(docText(d))
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				if _, err := Summarize(q, docs, cfg, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCount(b *testing.B) {
	text := docText(loadSciFact(b, 1)[0])
	for _, tk := range testTokenizers(b) {
		b.Run(tk.Name(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				sink += tk.Count(text)
			}
		})
	}
}

// sink keeps benchmark results alive.
var sink int
