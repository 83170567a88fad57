package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/ingest"
)

// stepClock is an engine clock that only moves when told to.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// slowEmbedder stands for a user's embedding endpoint that takes longer
// than jobFlushInterval per call: each call moves the engine's clock on by
// step. Its vectors are deterministic.
type slowEmbedder struct {
	clock *stepClock
	step  time.Duration
}

func (s slowEmbedder) Name() string { return "slow" }
func (s slowEmbedder) Dims() int    { return 4 }
func (s slowEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return s.EmbedPassages(ctx, texts)
}
func (s slowEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	s.clock.advance(s.step)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{1, float32(len(t) % 7), float32(i % 3), 0.5}
	}
	return out, nil
}

func (s slowEmbedder) Embedder(EmbeddingConfig) (Embedder, error) { return s, nil }

// TestJobFlushSizes checks the flushes of an asynchronous job whose
// flushes are slower than jobFlushInterval (a slow embedder here; on a
// cluster, the refresh each flush waits for): they grow from
// jobFirstFlushDocs by doubling up to jobFlushDocs. The interval counted
// from the start of the previous flush made every flush after the first
// store a single document (one document per flush, about one a second on
// a cluster).
func TestJobFlushSizes(t *testing.T) {
	clock := &stepClock{now: time.Unix(1_800_000_000, 0)}
	for _, tc := range []struct {
		docs int
		want string // processed after each flush
	}{
		{200, "[16 48 112 200]"},
		{700, "[16 48 112 240 496 700]"},
	} {
		t.Run(fmt.Sprint(tc.docs), func(t *testing.T) {
			e, err := Open(Options{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Now: clock.Now,
				Embedders: slowEmbedder{clock: clock, step: 2 * jobFlushInterval}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx := context.Background()
			if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{}); err != nil {
				t.Fatal(err)
			}
			docs := make([]DocumentInput, tc.docs)
			for i := range docs {
				docs[i] = DocumentInput{DocumentID: fmt.Sprintf("d%d", i), Sections: []ingest.Section{{Type: "p", Content: fmt.Sprintf("document %d about topic %d", i, i%13)}}}
			}
			var flushes []int
			res, err := e.Ingest(ctx, "", "c", IngestRequest{Documents: docs, jobID: "job-1", Progress: func(n int) { flushes = append(flushes, n) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Documents) != tc.docs {
				t.Fatalf("%d documents stored, want %d", len(res.Documents), tc.docs)
			}
			if got := fmt.Sprint(flushes); got != tc.want {
				t.Errorf("processed after each flush %s, want %s", got, tc.want)
			}
		})
	}
}
