package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentJobResumedAfterClose (run under -race by make test) stops
// the engine while an asynchronous ingest runs and opens it again: the job
// is resumed from its stored upload and ends with every record stored once;
// its status survives another reopen.
func TestConcurrentJobResumedAfterClose(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.PutCollection(context.Background(), "", "jobs", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	const rows = 30000
	var csv strings.Builder
	csv.WriteString("a,b\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&csv, "alpha %d,beta %d\n", i, i)
	}
	id, err := e.StartIngest("", "jobs", IngestRequest{Format: "csv", Data: []byte(csv.String())})
	if err != nil {
		t.Fatal(err)
	}
	// Poll while the job runs (exercises the status lock under -race).
	var before JobStatus
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
		if before, err = e.Job("", "jobs", id); err != nil {
			t.Fatal(err)
		}
		if before.Processed > 0 || before.Status != "running" {
			break
		}
	}
	if before.Status != "running" {
		t.Fatalf("job %s before Close, want running (make the upload bigger)", before.Status)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err = Open(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	var st JobStatus
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if st, err = e.Job("", "jobs", id); err != nil {
			t.Fatal(err)
		}
		if st.Status != "running" || time.Since(start) > time.Minute {
			break
		}
	}
	if st.Status != "done" || st.Processed != rows || st.Restarts != 1 {
		t.Fatalf("job after reopen: status %s, processed %d, restarts %d, error %q; want done, %d, 1", st.Status, st.Processed, st.Restarts, st.Error, rows)
	}
	c, err := e.GetCollection(context.Background(), "", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	if c.DocumentCount != rows {
		t.Fatalf("%d documents, want %d", c.DocumentCount, rows)
	}
	if _, err := e.Job("", "other", id); err == nil {
		t.Error("a job is visible under another collection")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err = Open(Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if st2, err := e.Job("", "jobs", id); err != nil || st2.Status != "done" || st2.Processed != rows || st2.Restarts != st.Restarts {
		t.Fatalf("job after a second reopen: %+v, %v", st2, err)
	}
}

// TestJobClockIsOptionsNow checks that a job's start and finish times come
// from Options.Now, like the rest of the engine, and that the retention of
// finished jobs is measured on that clock: a job is dropped at reopen once
// the clock has moved past jobRetention.
func TestJobClockIsOptionsNow(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	clock := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	e, err := Open(Options{Dir: dir, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.PutCollection(context.Background(), "", "jobs", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	id, err := e.StartIngest("", "jobs", IngestRequest{Format: "csv", Data: []byte("a\nalpha\n")})
	if err != nil {
		t.Fatal(err)
	}
	var st JobStatus
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(5 * time.Millisecond) {
		if st, err = e.Job("", "jobs", id); err != nil {
			t.Fatal(err)
		}
		if st.Status != "running" {
			break
		}
	}
	if st.Status != "done" || !st.StartedAt.Equal(clock) || st.FinishedAt == nil || !st.FinishedAt.Equal(clock) {
		t.Fatalf("job %+v, want done, started and finished at %v", st, clock)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clock = clock.Add(jobRetention + time.Hour)
	mu.Unlock()
	if e, err = Open(Options{Dir: dir, Now: now}); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Job("", "jobs", id); err == nil {
		t.Fatal("a job finished longer than jobRetention ago by Options.Now is still listed")
	}
}
