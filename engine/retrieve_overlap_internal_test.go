package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/ingest"
)

// gateEmbedder stands for a user's embedding endpoint whose query
// embedding cannot finish before the search's keyword retrieval ran: each
// EmbedQueries waits for keywordRan (closed by the instrumented searcher
// below), at most wait, then takes after longer and answers, or fails
// with err. Passages embed
// at once. Its vectors are deterministic.
type gateEmbedder struct {
	keywordRan chan struct{}
	wait       time.Duration
	after      time.Duration // the embedding's time after keyword retrieval ran
	err        error
	calls      chan string // the texts of each EmbedQueries call
}

func (g gateEmbedder) Name() string { return "gate" }
func (g gateEmbedder) Dims() int    { return 4 }
func (g gateEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	g.calls <- strings.Join(texts, "|")
	select {
	case <-g.keywordRan:
		time.Sleep(g.after)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(g.wait):
		return nil, fmt.Errorf("keyword retrieval did not run within %s of the query embedding's start", g.wait)
	}
	if g.err != nil {
		return nil, g.err
	}
	return g.EmbedPassages(ctx, texts)
}
func (g gateEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{1, float32(len(t) % 7), float32(strings.Count(t, "e") % 5), 0.5}
	}
	return out, nil
}
func (g gateEmbedder) Embedder(EmbeddingConfig) (Embedder, error) { return g, nil }

// keywordSignal is the engine's own backend with its searchers' keyword
// step instrumented: it closes ran after the real keyword retrieval and
// delay, or instead of it fails the step with err.
type keywordSignal struct {
	backend
	ran   chan struct{}
	err   error
	delay time.Duration // added to the keyword step's time
}

func (k *keywordSignal) search(p *plan) (searcher, error) {
	s, err := k.backend.search(p)
	if err != nil {
		return nil, err
	}
	return signalSearcher{s, k}, nil
}

type signalSearcher struct {
	searcher
	k *keywordSignal
}

func (s signalSearcher) keyword(g *group, qt queryTerms, cand int) error {
	err := s.k.err
	if err == nil {
		err = s.searcher.keyword(g, qt, cand)
		time.Sleep(s.k.delay)
	}
	select {
	case <-s.k.ran:
	default:
		close(s.k.ran)
	}
	return err
}

// TestQueryEmbeddingOverlapsKeyword checks that a hybrid search embeds its
// query concurrently with the keyword retrieval (the embedding cannot end
// before keyword retrieval ran, and the search still succeeds with the
// keyword and semantic evidence fused), that an embedding error wins over
// a keyword error as when the embedding came first, that a cancelled
// search returns without leaving the embedding goroutine behind, and that
// a cached query vector is not embedded again.
func TestQueryEmbeddingOverlapsKeyword(t *testing.T) {
	for _, tc := range []struct {
		name       string
		embedErr   error
		keywordErr error
		cancel     bool
		wantKind   error // nil: any
		wantMsg    string
	}{
		{name: "overlap"},
		{name: "embedding fails", embedErr: errors.New("endpoint down"), wantKind: ErrUpstream, wantMsg: "endpoint down"},
		{name: "both fail", embedErr: errors.New("endpoint down"), keywordErr: errors.New("index unreadable"), wantKind: ErrUpstream, wantMsg: "endpoint down"},
		{name: "keyword fails", keywordErr: errors.New("index unreadable"), wantMsg: "index unreadable"},
		{name: "cancelled", cancel: true, wantKind: ErrUpstream, wantMsg: "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := make(chan struct{})
			emb := gateEmbedder{keywordRan: ran, wait: 5 * time.Second, after: 30 * time.Millisecond, err: tc.embedErr, calls: make(chan string, 4)}
			if tc.cancel {
				// Nothing ends the embedding but the cancellation.
				emb.keywordRan = make(chan struct{})
			}
			e, err := Open(Options{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Embedders: emb})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx := context.Background()
			if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{}); err != nil {
				t.Fatal(err)
			}
			docs := []DocumentInput{
				{DocumentID: "a", Sections: []ingest.Section{{Type: "p", Content: "bone fractures in elderly patients"}}},
				{DocumentID: "b", Sections: []ingest.Section{{Type: "p", Content: "vitamin supplements and heart disease"}}},
				{DocumentID: "c", Sections: []ingest.Section{{Type: "p", Content: "the weather in spring"}}},
			}
			if _, err := e.Ingest(ctx, "", "c", IngestRequest{Documents: docs}); err != nil {
				t.Fatal(err)
			}
			e.be = &keywordSignal{backend: e.be, ran: ran, err: tc.keywordErr, delay: 40 * time.Millisecond}
			before := runtime.NumGoroutine()
			sctx, cancel := context.WithCancel(ctx)
			defer cancel()
			if tc.cancel {
				go func() {
					<-emb.calls
					cancel()
				}()
			}
			resp, err := e.Search(sctx, "", []string{"c"}, SearchRequest{Query: "bone fractures"})
			if tc.wantMsg == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Documents) == 0 || resp.Documents[0].DocumentID != "a" || resp.Documents[0].Source != "sem-key" {
					t.Fatalf("documents %+v, want a first, found by both retrievers", resp.Documents)
				}
				// embed_ms is the time the search waited for the vector
				// once keyword retrieval (40 ms) was done: the embedding's
				// 30 ms after it, not its 70 ms in all; retrieve_ms holds
				// the keyword step; the stages add up to at most took_ms.
				tm := resp.Metadata.Timings
				if tm.EmbedCached || tm.EmbedMS < 25 || tm.EmbedMS > 62 || tm.RetrieveMS < 38 {
					t.Errorf("timings %+v, want an uncached embedding whose wait is about 30 ms and retrieval of at least 40 ms", *tm)
				}
				if sum := tm.EmbedMS + tm.RetrieveMS + tm.FuseMS + tm.LoadMS + tm.RenderMS; sum > resp.Metadata.TookMS+0.01 || tm.RetrieveMS < 0 {
					t.Errorf("timings %+v sum to %.3f ms, took_ms %.3f", *tm, sum, resp.Metadata.TookMS)
				}
				// The same query again: its vector comes from the cache,
				// with no embedding call.
				resp, err = e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "bone fractures"})
				if err != nil {
					t.Fatal(err)
				}
				if !resp.Metadata.Timings.EmbedCached || len(emb.calls) != 1 {
					t.Errorf("repeated query: cached %v, %d embedding calls, want cached and 1 call", resp.Metadata.Timings.EmbedCached, len(emb.calls))
				}
			} else {
				if err == nil {
					t.Fatalf("search succeeded, want an error with %q", tc.wantMsg)
				}
				var ee *Error
				if tc.wantKind != nil && (!errors.As(err, &ee) || !errors.Is(err, tc.wantKind)) {
					t.Errorf("error %v (%T), want kind %s", err, err, tc.wantKind)
				}
				if !strings.Contains(err.Error(), tc.wantMsg) {
					t.Errorf("error %q, want it to mention %q", err, tc.wantMsg)
				}
			}
			// No goroutine of the search outlives it.
			deadline := time.Now().Add(2 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines after the search, %d before", n, before)
			}
		})
	}
}
