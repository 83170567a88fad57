package bench

import (
	"testing"
	"time"

	"github.com/najdi/najdi/engine"
)

// TestOverloadSmall runs the overload workload briefly on a small keyword
// collection with a job queue of two: searches answer in both phases,
// submissions beyond the queue are refused with 429 and Retry-After, and
// nothing else fails.
func TestOverloadSmall(t *testing.T) {
	res, err := Overload(OverloadConfig{
		SeedDocs: 200, JobDocs: 300, Words: 30, Idle: time.Second, Saturated: 3 * time.Second,
		Engine: engine.Options{MaxIngestJobs: 2, MaxIngestJobsPerOwner: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("idle p99 %v, saturated p99 %v, %d jobs accepted, %d refused, RSS %v", res.IdleP99, res.SatP99, res.JobsAccepted, res.Jobs429, res.RSSSamples)
	if res.IdleQueries == 0 || res.SatQueries == 0 || res.SearchErrors != 0 {
		t.Errorf("searches: %d idle, %d saturated, %d errors", res.IdleQueries, res.SatQueries, res.SearchErrors)
	}
	if res.JobsAccepted < 2 || res.Jobs429 == 0 || res.RetryAfter == "" {
		t.Errorf("jobs: %d accepted, %d refused with Retry-After %q; want 2 or more, some, a value", res.JobsAccepted, res.Jobs429, res.RetryAfter)
	}
	if len(res.OtherStatus) > 0 {
		t.Errorf("unexpected answers: %v", res.OtherStatus)
	}
	if len(res.RSSSamples) < 2 || res.RSSPeak == 0 {
		t.Errorf("RSS samples %v, peak %d", res.RSSSamples, res.RSSPeak)
	}
	// The memory readings carry the runtime's, the store's and the data's
	// figures, and the trend of the second half is fitted on them.
	if len(res.Mem) < 2 {
		t.Fatalf("%d memory readings", len(res.Mem))
	}
	if last := res.Mem[len(res.Mem)-1]; last.HeapLive <= 0 || last.RSSAnon <= 0 || last.Goroutines <= 0 || last.LiveDocs <= 0 || last.IndexBytes <= 0 || last.Written <= 0 {
		t.Errorf("memory readings %+v", res.Mem)
	}
	if tr := res.Trend(); tr.Samples < 1 || tr.Window <= 0 {
		t.Errorf("trend %+v", tr)
	}
}
