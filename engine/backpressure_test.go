package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestIngestSlotsPriority checks that a waiting synchronous ingest gets the
// next slot before jobs that waited longer, that a job's yield hands its
// slot over, and that a cancelled waiter leaves the queue.
func TestIngestSlotsPriority(t *testing.T) {
	e := &Engine{opts: Options{MaxIngests: 1}, slots: newIngestSlots(1), done: make(chan struct{})}
	ctx := context.Background()
	job1, err := e.ingestTurn(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 3)
	go func() {
		t2, err := e.ingestTurn(ctx, true)
		if err == nil {
			order <- "job2"
			t2.release()
		}
	}()
	waitFor(t, func() bool { return waiters(e.slots, prioJob) == 1 })
	// A synchronous ingest arrives later than job2 and is served first.
	syncDone := make(chan struct{})
	go func() {
		st, err := e.ingestTurn(ctx, false)
		if err == nil {
			order <- "sync"
			st.release()
		}
		close(syncDone)
	}()
	waitFor(t, func() bool { return waiters(e.slots, prioSync) == 1 })
	// A second synchronous ingest is over MaxIngests 1: refused at once.
	if _, err := e.ingestTurn(ctx, false); !errors.Is(err, ErrBusy) {
		t.Fatalf("second synchronous ingest: %v, want ErrBusy", err)
	}
	// A cancelled waiter leaves the queue.
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { _, err := e.ingestTurn(cctx, true); errc <- err }()
	waitFor(t, func() bool { return waiters(e.slots, prioJob) == 2 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	// job1 yields at a flush: the synchronous ingest runs, then job1 again
	// (job2 stays behind job1's turn).
	if err := job1.yield(ctx); err != nil {
		t.Fatal(err)
	}
	<-syncDone
	if got := <-order; got != "sync" {
		t.Fatalf("first served %s, want sync", got)
	}
	if !job1.held {
		t.Fatal("job1 does not hold a slot after yield")
	}
	if len(order) != 0 {
		t.Fatal("job2 ran before job1 took its turn back")
	}
	job1.release()
	job1.release() // idempotent
	if got := <-order; got != "job2" {
		t.Fatalf("then %s, want job2", got)
	}
	waitFor(t, func() bool { e.slots.mu.Lock(); defer e.slots.mu.Unlock(); return e.slots.free == 1 })
	if n := e.syncIngests.Load(); n != 0 {
		t.Fatalf("%d synchronous ingests counted after all ended", n)
	}
	// Close wakes waiters with ErrClosed.
	hold, _ := e.ingestTurn(ctx, true)
	go func() { _, err := e.ingestTurn(ctx, true); errc <- err }()
	waitFor(t, func() bool { return waiters(e.slots, prioJob) == 1 })
	close(e.done)
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("waiter at close: %v, want ErrClosed", err)
	}
	hold.release()
}

func waiters(s *ingestSlots, prio int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiters[prio])
}

func waitFor(t *testing.T, cond func() bool) { waitForIn(t, 10*time.Second, cond) }

func waitForIn(t *testing.T, limit time.Duration, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(start) > limit {
			t.Fatalf("condition not reached in %v", limit)
		}
	}
}

// TestJobBounds checks the job queue bounds: per owner and in total
// StartIngest answers ErrBusy (naming the limit) and stores nothing; jobs
// resumed by Open count against the bounds; an ended job frees its place.
func TestJobBounds(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dir: dir, IngestWorkers: 1, MaxIngestJobs: 3, MaxIngestJobsPerOwner: 2}
	e, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, o := range []string{"a", "b", "c"} {
		if _, _, err := e.PutCollection(ctx, o, "jobs", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
			t.Fatal(err)
		}
	}
	var csv strings.Builder
	csv.WriteString("a,b\n")
	for i := range 20000 {
		fmt.Fprintf(&csv, "alpha %d,beta %d\n", i, i)
	}
	req := IngestRequest{Format: "csv", Data: []byte(csv.String())}
	limitOf := func(err error) string {
		t.Helper()
		var ee *Error
		if !errors.As(err, &ee) || !errors.Is(err, ErrBusy) {
			t.Fatalf("got %v, want ErrBusy", err)
		}
		if s, _ := ee.Details["retry_after_seconds"].(int); s <= 0 {
			t.Fatalf("details %v without retry_after_seconds", ee.Details)
		}
		return ee.Details["limit"].(string)
	}
	var ids []string
	for range 2 {
		id, err := e.StartIngest("a", "jobs", req)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := e.StartIngest("a", "jobs", req); limitOf(err) != "max_ingest_jobs_per_owner" {
		t.Fatalf("third job of a: %v", err)
	}
	bid, err := e.StartIngest("b", "jobs", req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.StartIngest("c", "jobs", req); limitOf(err) != "max_ingest_jobs" {
		t.Fatalf("fourth job: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err = Open(opts); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// The resumed jobs fill the queue: c still waits.
	if _, err := e.StartIngest("c", "jobs", req); err == nil {
		// Only when a job ended before Close (a fast machine) may it pass.
		ended := false
		for _, j := range [][2]string{{"a", ids[0]}, {"a", ids[1]}, {"b", bid}} {
			if st, _ := e.Job(j[0], "jobs", j[1]); st.Status == "done" && st.Restarts == 0 {
				ended = true
			}
		}
		if !ended {
			t.Fatal("a job was accepted while resumed jobs fill the queue")
		}
	} else if !errors.Is(err, ErrBusy) {
		t.Fatal(err)
	}
	for _, id := range ids {
		waitForIn(t, 3*time.Minute, func() bool { st, _ := e.Job("a", "jobs", id); return st.Status != "running" })
		if st, _ := e.Job("a", "jobs", id); st.Status != "done" || st.Processed != 20000 {
			t.Fatalf("job %s: %+v", id, st)
		}
	}
	if _, err := e.StartIngest("a", "jobs", req); err != nil {
		t.Fatalf("after a's jobs ended: %v", err)
	}
}

// TestQueuedJobsHoldNoUpload queues jobs behind a held ingest turn and
// checks that their uploads, stored durably by StartIngest, are not kept in
// memory while they wait (the job reads its upload when its turn comes),
// and that the jobs then run to the end.
func TestQueuedJobsHoldNoUpload(t *testing.T) {
	e, err := Open(Options{Dir: t.TempDir(), IngestWorkers: 1, MaxIngestJobsPerOwner: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "q", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	hold, err := e.ingestTurn(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	const jobs, size = 6, 8 << 20
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	var ids []string
	rows := 0
	for j := range jobs {
		var b strings.Builder
		b.WriteString("id,body\n")
		i := 0
		for ; b.Len() < size; i++ {
			fmt.Fprintf(&b, "j%d-%d,upload %d of job %d %s\n", j, i, i, j, strings.Repeat("queued ", 1000))
		}
		rows = i
		id, err := e.StartIngest("", "q", IngestRequest{Format: "csv", IDField: "id", Data: []byte(b.String())})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	waitFor(t, func() bool { return waiters(e.slots, prioJob) == jobs })
	// Pebble holds a large batch in memory until it has flushed it: wait
	// for the heap to come down.
	var grew int64
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(100 * time.Millisecond) {
		if grew = int64(heap()) - int64(before); grew < jobs*size/2 {
			break
		}
	}
	if grew >= jobs*size/2 {
		t.Errorf("the heap grew by %d MiB with %d queued jobs of %d MiB", grew>>20, jobs, size>>20)
	}
	hold.release()
	for _, id := range ids {
		waitForIn(t, 3*time.Minute, func() bool { st, _ := e.Job("", "q", id); return st.Status != "running" })
		if st, _ := e.Job("", "q", id); st.Status != "done" || len(st.Documents) != rows {
			t.Fatalf("job %s: status %s, %d documents, error %q", id, st.Status, len(st.Documents), st.Error)
		}
	}
}
