package embed

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestQueriesDoNotWaitForPassages holds the passage session's only run
// slot, as an ingest's run in flight does, and checks that a query is
// still embedded (in its own session, equal to the vector of the shared
// test model) while a passage call waits for the slot until its context
// ends.
func TestQueriesDoNotWaitForPassages(t *testing.T) {
	l, err := LoadLocal(modelDir(t, "bge-small-en-v1.5"), LocalOptions{LibraryPath: libPath(t), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	if _, err := l.EmbedPassages(ctx, []string{"warm up"}); err != nil {
		t.Fatal(err)
	}
	l.passage.sem <- struct{}{} // an ingest's run in flight
	released := false
	release := func() {
		if !released {
			<-l.passage.sem
			released = true
		}
	}
	defer release()

	qctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	got, err := l.EmbedQueries(qctx, []string{"effects of vitamin d on bone density"})
	if err != nil {
		t.Fatalf("query while the passage session is busy: %v", err)
	}
	want, err := loadModel(t, "bge-small-en-v1.5").EmbedQueries(ctx, []string{"effects of vitamin d on bone density"})
	if err != nil {
		t.Fatal(err)
	}
	ref := make([]float64, len(want[0]))
	for k, x := range want[0] {
		ref[k] = float64(x)
	}
	if c := cosine(got[0], ref); c < 0.9999 {
		t.Errorf("query vector of the query session: cosine %.6f to the reference model's", c)
	}

	pctx, pcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer pcancel()
	if _, err := l.EmbedPassages(pctx, []string{"a passage"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("passage while the passage slot is held: %v, want context.DeadlineExceeded", err)
	}
	release()
	if _, err := l.EmbedPassages(ctx, []string{"a passage"}); err != nil {
		t.Fatalf("passage after the slot is free: %v", err)
	}
}

// TestSessionThreads checks the intra-op thread counts the two sessions
// get: by default one CPU fewer for passages (at least one) than for
// queries, and what the options say otherwise.
func TestSessionThreads(t *testing.T) {
	for _, tt := range []struct{ procs, passage, query int }{{1, 1, 1}, {2, 1, 2}, {4, 3, 4}, {16, 15, 16}} {
		if p, q := DefaultThreads(tt.procs); p != tt.passage || q != tt.query {
			t.Errorf("DefaultThreads(%d) = %d, %d; want %d, %d", tt.procs, p, q, tt.passage, tt.query)
		}
	}
	defP, defQ := DefaultThreads(runtime.GOMAXPROCS(0))
	for _, tt := range []struct {
		name           string
		opts           LocalOptions
		passage, query int
	}{
		{"defaults", LocalOptions{}, defP, defQ},
		{"explicit", LocalOptions{Threads: 2, QueryThreads: 3}, 2, 3},
		{"passages only", LocalOptions{Threads: 4}, 4, defQ},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.LibraryPath = libPath(t)
			l, err := LoadLocal(modelDir(t, "all-minilm-l6-v2"), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if p, q := l.Threads(); p != tt.passage || q != tt.query {
				t.Errorf("Threads() = %d, %d; want %d, %d", p, q, tt.passage, tt.query)
			}
			if _, err := l.EmbedPassages(context.Background(), []string{"runs"}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := LoadLocal(modelDir(t, "all-minilm-l6-v2"), LocalOptions{LibraryPath: libPath(t), QueryThreads: -1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("QueryThreads -1: %v, want ErrInvalidConfig", err)
	}
}

// TestQueryTuningKeepsVectors loads query sessions with tunings that must
// not change the vectors (parallel execution on 2 inter-op threads,
// spinning stopped after each run, a coarser dynamic block base, no
// arena) and checks each against the default session's vector for
// queries of several lengths.
func TestQueryTuningKeepsVectors(t *testing.T) {
	ctx := context.Background()
	qs := []string{"bone", "what causes bone fractures in elderly patients", "does vitamin D supplementation reduce the risk of hip fractures in older women"}
	want, err := loadModel(t, "bge-small-en-v1.5").EmbedQueries(ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tune SessionTuning
	}{
		{"inter-op=2", SessionTuning{InterOpThreads: 2}},
		{"spin+stop+block-base=4", SessionTuning{Spin: true, Config: map[string]string{"session.force_spinning_stop": "1", "session.dynamic_block_base": "4"}}},
		{"no-arena,no-mem-pattern", SessionTuning{NoArena: true, NoMemPattern: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := LoadLocal(modelDir(t, "bge-small-en-v1.5"), LocalOptions{LibraryPath: libPath(t), QueryTuning: tc.tune})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			got, err := l.EmbedQueries(ctx, qs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range qs {
				if c := cosine(got[i], toF64(want[i])); c < 0.9999 {
					t.Errorf("%q: cosine %.6f to the default session's vector", qs[i], c)
				}
			}
		})
	}
}

// TestQueryRunsInFlight holds one run slot of the query session, as a
// concurrent search's model run does, and checks that by default another
// query still runs (two runs in flight), while with QueryWorkers 1 it
// waits for the slot until its context ends; bad counts are refused.
func TestQueryRunsInFlight(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		workers int
		wait    bool
	}{{0, false}, {1, true}} {
		l, err := LoadLocal(modelDir(t, "bge-small-en-v1.5"), LocalOptions{LibraryPath: libPath(t), QueryWorkers: tc.workers})
		if err != nil {
			t.Fatal(err)
		}
		l.query.sem <- struct{}{} // a concurrent search's run in flight
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = l.EmbedQueries(qctx, []string{"effects of vitamin d on bone density"})
		cancel()
		<-l.query.sem
		if tc.wait && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("QueryWorkers %d, one run in flight: err %v, want context.DeadlineExceeded", tc.workers, err)
		}
		if !tc.wait && err != nil {
			t.Errorf("QueryWorkers %d, one run in flight: %v, want the query embedded", tc.workers, err)
		}
		l.Close()
	}
	if _, err := LoadLocal(modelDir(t, "bge-small-en-v1.5"), LocalOptions{LibraryPath: libPath(t), QueryWorkers: -1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("QueryWorkers -1: %v, want ErrInvalidConfig", err)
	}
}
