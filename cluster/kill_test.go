//go:build clusterkill

package cluster

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKillNodeMidIngest kills the node with SIGKILL during a multi-batch
// ingest, restarts it with the script and checks that every document the
// call did not report failed survived, and that retrying the failed ones
// completes the collection. It restarts the nodes, so it is not part of
// make test: run it with make cluster-kill-test (build tag clusterkill).
func TestKillNodeMidIngest(t *testing.T) {
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		f := c.Info().Flavour
		cfg := c.cfg
		cfg.BulkDocs = 20
		cfg.MaxRetries = 2
		c2, err := New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := c2.CreateCollection(ctx, "kill", basicSchema); err != nil {
			t.Fatal(err)
		}
		var docs []Document
		for i := range 300 {
			docs = append(docs, Document{ID: fmt.Sprintf("k%03d", i), Terms: map[string]float32{"w": 1}, Length: 1,
				Chunks: []Chunk{{Vector: unit(1, float32(i), 0, 1)}}})
		}
		killed := make(chan error, 1)
		go func() {
			for range 3000 {
				var r struct {
					Count int64 `json:"count"`
				}
				body := map[string]any{"query": map[string]any{"term": map[string]any{fKind: "doc"}}}
				if c.doJSON(ctx, "POST", "/"+c.alias("kill")+"/_count", nil, body, &r) == nil && r.Count >= 40 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			pid, err := script("pid", string(f))
			if err == nil {
				err = exec.Command("kill", "-9", strings.TrimSpace(pid)).Run()
			}
			killed <- err
		}()
		failed, ingestErr := c2.Ingest(ctx, "kill", docs)
		if err := <-killed; err != nil {
			t.Fatalf("kill -9 of the node: %v", err)
		}
		if !errors.Is(ingestErr, ErrUnavailable) {
			t.Fatalf("ingest with the node killed: %v, want ErrUnavailable", ingestErr)
		}
		t0 := time.Now()
		if _, err := script("up", string(f)); err != nil {
			t.Fatalf("restart: %v", err)
		}
		t.Logf("%s killed mid-ingest (%v); restarted in %s", f, ingestErr, time.Since(t0).Round(time.Second))
		// The restart may have used up the test's context; wait for the
		// collection's shard to be recovered.
		ctx = testCtx(t)
		if err := c.doJSON(ctx, "GET", "/_cluster/health/"+c.alias("kill"),
			map[string][]string{"wait_for_status": {"yellow"}, "timeout": {"120s"}}, nil, nil); err != nil {
			t.Fatalf("index health after restart: %v", err)
		}
		bad := map[string]bool{}
		for _, d := range failed {
			bad[d.ID] = true
		}
		stored, err := c.FilterIDs(ctx, "kill", Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var retry []Document
		for _, d := range docs {
			if bad[d.ID] {
				retry = append(retry, d)
			} else if !slices.Contains(stored, d.ID) {
				t.Fatalf("document %s was acknowledged but is lost after kill -9", d.ID)
			}
		}
		t.Logf("%d acknowledged documents survived, %d reported failed", len(docs)-len(bad), len(bad))
		if f, err := c.Ingest(ctx, "kill", retry); err != nil || len(f) > 0 {
			t.Fatal(f, err)
		}
		if n, _ := c.Count(ctx, []string{"kill"}, Filter{}); n != int64(len(docs)) {
			t.Fatalf("Count after retry = %d, want %d", n, len(docs))
		}
		if n := c.countKind(t, "kill", "chunk"); n != int64(len(docs)) {
			t.Fatalf("%d chunks after retry, want %d", n, len(docs))
		}
	})
}
