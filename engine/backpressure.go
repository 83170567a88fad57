package engine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Backpressure. Ingest work (parsing, analysis, embedding) runs in at most
// Options.IngestWorkers ingests at once, so that searches always have a
// core; the others wait for a turn. Synchronous ingests (a client waits for
// the answer) go before asynchronous jobs, and a job hands its turn over at
// each flush when a synchronous ingest or the merger waits. Beyond Options.MaxIngests
// synchronous ingests, and beyond Options.MaxIngestJobs (per owner:
// MaxIngestJobsPerOwner) unfinished jobs, work is refused with ErrBusy
// instead of queueing without bound.

// Defaults of the backpressure options.
const (
	defaultMaxIngests            = 8
	defaultMaxIngestJobs         = 32
	defaultMaxIngestJobsPerOwner = 8
)

// Retry-After advice of ErrBusy errors.
const (
	ingestRetryAfter = 2 * time.Second
	jobRetryAfter    = 10 * time.Second
)

// A job flushes its buffer at least every jobFlushDocs documents or
// jobFlushInterval, so that its processed count grows while it runs.
const (
	jobFlushDocs     = 256
	jobFlushInterval = time.Second
)

// defaultIngestWorkers leaves one CPU to searches: max(1, GOMAXPROCS-1).
func defaultIngestWorkers() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// busyf returns an ErrBusy error naming the limit reached.
func busyf(limit string, retry time.Duration, format string, args ...any) error {
	return &Error{Kind: ErrBusy, Message: fmt.Sprintf(format, args...), Details: map[string]any{
		"limit": limit, "retry_after_seconds": int(retry / time.Second),
	}}
}

// Priorities of ingest turns: a lower number goes first. The background
// merger goes with synchronous ingests, so that segments written by jobs
// are merged while jobs keep coming.
const (
	prioSync  = 0
	prioMerge = prioSync
	prioJob   = 1
)

// ingestSlots is a counting semaphore whose waiters are served by
// priority, then in arrival order.
type ingestSlots struct {
	mu      sync.Mutex
	free    int
	waiters [2][]chan struct{}
}

func newIngestSlots(n int) *ingestSlots { return &ingestSlots{free: n} }

// waiting reports whether someone of priority prio or better waits.
func (s *ingestSlots) waiting(prio int) bool {
	for p := 0; p <= prio; p++ {
		if len(s.waiters[p]) > 0 {
			return true
		}
	}
	return false
}

// acquire takes a slot, waiting behind the waiters of the same or better
// priority. It fails with ctx's error, or ErrClosed when done closes.
func (s *ingestSlots) acquire(ctx context.Context, done <-chan struct{}, prio int) error {
	return s.acquireAt(ctx, done, prio, false)
}

// acquireAt is acquire; with front, the waiter goes before the others of
// its priority (a job that handed its turn over takes it back first).
func (s *ingestSlots) acquireAt(ctx context.Context, done <-chan struct{}, prio int, front bool) error {
	s.mu.Lock()
	if s.free > 0 && !s.waiting(prio) {
		s.free--
		s.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	if front {
		s.waiters[prio] = append([]chan struct{}{ch}, s.waiters[prio]...)
	} else {
		s.waiters[prio] = append(s.waiters[prio], ch)
	}
	s.mu.Unlock()
	var err error
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-done:
		err = ErrClosed
	}
	s.mu.Lock()
	for i, c := range s.waiters[prio] {
		if c == ch {
			s.waiters[prio] = append(s.waiters[prio][:i:i], s.waiters[prio][i+1:]...)
			s.mu.Unlock()
			return err
		}
	}
	s.mu.Unlock()
	// The slot was granted while we gave up: pass it on.
	s.release()
	return err
}

// release returns a slot: to the first waiter of the best priority, or to
// the free count.
func (s *ingestSlots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.waiters {
		if len(s.waiters[p]) > 0 {
			ch := s.waiters[p][0]
			s.waiters[p] = s.waiters[p][1:]
			close(ch)
			return
		}
	}
	s.free++
}

// ingestTurn is one ingest's hold on an ingest slot.
type ingestTurn struct {
	e    *Engine
	prio int
	held bool
	sync bool // counted in Engine.syncIngests
}

// ingestTurn admits an ingest and waits for its turn: a job waits behind
// every synchronous ingest; a synchronous ingest beyond MaxIngests fails
// with ErrBusy at once.
func (e *Engine) ingestTurn(ctx context.Context, job bool) (*ingestTurn, error) {
	t := &ingestTurn{e: e, prio: prioJob}
	if ctx == nil {
		ctx = context.Background()
	}
	if !job {
		t.prio, t.sync = prioSync, true
		if n := e.syncIngests.Add(1); n > int64(e.opts.MaxIngests) {
			e.syncIngests.Add(-1)
			return nil, busyf("max_ingests", ingestRetryAfter, "too many ingests at once: %d run or wait (server flag --max-ingests); retry later", e.opts.MaxIngests)
		}
	}
	if err := e.slots.acquire(ctx, e.done, t.prio); err != nil {
		t.release()
		return nil, err
	}
	t.held = true
	return t, nil
}

// yield hands the turn of a job over when a synchronous ingest waits, and
// waits for the next turn.
func (t *ingestTurn) yield(ctx context.Context) error {
	if t == nil || !t.held || t.prio == prioSync {
		return nil
	}
	s := t.e.slots
	s.mu.Lock()
	w := s.waiting(t.prio - 1)
	s.mu.Unlock()
	if !w {
		return nil
	}
	s.release()
	t.held = false
	if ctx == nil {
		ctx = context.Background()
	}
	if err := s.acquireAt(ctx, t.e.done, t.prio, true); err != nil {
		return err
	}
	t.held = true
	return nil
}

// release ends the turn. It may be called more than once.
func (t *ingestTurn) release() {
	if t == nil {
		return
	}
	if t.held {
		t.e.slots.release()
		t.held = false
	}
	if t.sync {
		t.e.syncIngests.Add(-1)
		t.sync = false
	}
}

// admitJob counts a new job of owner against MaxIngestJobs and
// MaxIngestJobsPerOwner, or fails with ErrBusy. Jobs resumed by Open are
// counted with force (they were accepted before) and so can exceed the
// bounds until they end.
func (jt *jobTable) admit(j *job, maxTotal, maxOwner int, force bool) error {
	jt.mu.Lock()
	defer jt.mu.Unlock()
	owner := j.rec.Owner
	if !force {
		if jt.active >= maxTotal {
			return busyf("max_ingest_jobs", jobRetryAfter, "too many ingest jobs: %d are queued or running on this server (server flag --max-ingest-jobs); retry later", jt.active)
		}
		if jt.perOwner[owner] >= maxOwner {
			return busyf("max_ingest_jobs_per_owner", jobRetryAfter, "too many ingest jobs: %d of yours are queued or running (server flag --max-ingest-jobs-per-owner); retry when one has finished", jt.perOwner[owner])
		}
	}
	jt.active++
	jt.perOwner[owner]++
	j.counted = true
	return nil
}

// leave uncounts j; jt.mu must be held.
func (jt *jobTable) leave(j *job) {
	if !j.counted {
		return
	}
	j.counted = false
	jt.active--
	if jt.perOwner[j.rec.Owner]--; jt.perOwner[j.rec.Owner] <= 0 {
		delete(jt.perOwner, j.rec.Owner)
	}
}
