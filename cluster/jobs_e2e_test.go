package cluster

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestServeJobsAcrossReplicas runs two real najdi replicas on one cluster
// node: an asynchronous ingest accepted by replica a is readable, with
// its progress, from b; a is killed with SIGKILL mid-job and b resumes
// the job once a's lease expires, so every record of the accepted upload
// is stored once (the records have no ids: the resumed run generates the
// same ones); a replica started afterwards with an empty data directory
// reads the finished job. NLU phrase sets and models made, changed or
// deleted through one replica are served by the other at once, without a
// restart; a collection's size_bytes is its index's store size.
func TestServeJobsAcrossReplicas(t *testing.T) {
	const records = 300
	var b strings.Builder
	b.WriteString("text,group\n") // no id column: generated ids
	for i := range records {
		fmt.Fprintf(&b, "record %d about topic%d and word%d,g%d\n", i, i%17, i%101, i%5)
	}
	upload := []byte(b.String())
	for _, f := range testFlavours() {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel() // one node each: the flavours wait on their own refreshes
			args := append(clusterArgs(t, f, uniquePrefix()), "--cluster-job-lease", "3s")
			a := startNajdi(t, "", args...)
			rb := startNajdi(t, "", args...)
			if s, body := a.json(t, "PUT", "/v1/collections/jobs", map[string]any{"embedding_config": map[string]any{"model": "none"}}); s != 201 {
				t.Fatalf("create: %d %v", s, body)
			}
			s, body := a.call(t, "POST", "/v1/collections/jobs/documents?async=true", "text/csv", upload)
			if s != 202 {
				t.Fatalf("async ingest on a: HTTP %d %v", s, body)
			}
			id := body.(map[string]any)["job_id"].(string)
			path := "/v1/collections/jobs/jobs/" + id
			status := func(n *najdi) map[string]any {
				t.Helper()
				s, body := n.json(t, "GET", path, nil)
				if s != 200 {
					t.Fatalf("GET job on %s: HTTP %d %v", n.url, s, body)
				}
				return body.(map[string]any)
			}
			// b reads the job a runs, and its progress.
			deadline := time.Now().Add(2 * time.Minute)
			var st map[string]any
			for {
				st = status(rb)
				if st["status"] != "running" {
					t.Fatalf("job ended before a was killed (make the upload larger): %v", short(st))
				}
				if st["processed"].(float64) > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("b sees no progress of a's job: %v", short(st))
				}
				time.Sleep(200 * time.Millisecond)
			}
			t.Logf("%s: b sees a's job at %v of %d records; killing a", f, st["processed"], records)
			a.kill()
			killed := time.Now()
			deadline = time.Now().Add(5 * time.Minute)
			for st = status(rb); st["status"] == "running"; st = status(rb) {
				if time.Now().After(deadline) {
					t.Fatalf("job not finished 5 minutes after a was killed: %v\nb's log:\n%s", short(st), rb.log)
				}
				time.Sleep(500 * time.Millisecond)
			}
			t.Logf("%s: job %s after %.1f s since the kill, restarts %v", f, st["status"], time.Since(killed).Seconds(), st["restarts"])
			if st["status"] != "done" || st["processed"].(float64) != records || st["restarts"] == nil || st["restarts"].(float64) < 1 {
				t.Fatalf("resumed job: %v, want done, %d processed, restarts ≥ 1", short(st), records)
			}
			if n := docCount(t, rb, "jobs"); n != records {
				t.Fatalf("collection holds %v documents after the resumed job, want %d", n, records)
			}
			// A new replica with an empty data directory has the job too.
			a2 := startNajdi(t, "", args...)
			if st2 := status(a2); st2["status"] != "done" || st2["job_id"] != id {
				t.Fatalf("job on a new replica: %v", short(st2))
			}
			s, list := a2.json(t, "GET", "/v1/jobs?collection_id=jobs", nil)
			if s != 200 || !strings.Contains(fmt.Sprint(list), id) {
				t.Fatalf("GET /v1/jobs on a new replica: %d %v", s, short(list))
			}
			// size_bytes is the index's store size.
			_, info := rb.json(t, "GET", "/v1/collections/jobs", nil)
			if n, _ := info.(map[string]any)["size_bytes"].(float64); n <= 0 {
				t.Fatalf("size_bytes %v of a collection of %d documents", info.(map[string]any)["size_bytes"], records)
			}

			// NLU: what one replica does, the other serves at once.
			s, ps := a2.json(t, "POST", "/phrase-sets", map[string]any{"name": "colours", "phrases": []any{map[string]any{"text": "red"}}})
			if s != 201 {
				t.Fatalf("create phrase set on a2: %d %v", s, ps)
			}
			psID := ps.(map[string]any)["phrase_set_id"].(string)
			s, m := rb.json(t, "POST", "/models", map[string]any{"name": "closed-ner", "phrase_set_ids": []any{psID}})
			if s != 201 {
				t.Fatalf("b: model over a2's phrase set: %d %v", s, m)
			}
			modelID := m.(map[string]any)["model_id"].(string)
			spans := func(n *najdi, text string) string {
				t.Helper()
				s, an := n.json(t, "POST", "/models/"+modelID+"/analyze", map[string]any{"text": text})
				if s != 200 {
					t.Fatalf("analyze on %s: %d %v", n.url, s, an)
				}
				var out []string
				for _, x := range an.(map[string]any)["annotations"].([]any) {
					out = append(out, x.(map[string]any)["text"].(string))
				}
				return strings.Join(out, ",")
			}
			if got := spans(a2, "red or green"); got != "red" {
				t.Fatalf("a2 with b's model: %q, want red", got)
			}
			if s, body := rb.json(t, "PUT", "/phrase-sets/"+psID, map[string]any{"name": "colours", "phrases": []any{map[string]any{"text": "green"}}}); s != 200 {
				t.Fatalf("update phrase set on b: %d %v", s, body)
			}
			if got := spans(a2, "red or green"); got != "green" {
				t.Fatalf("a2 after b updated the phrase set: %q, want green", got)
			}
			if s, body := a2.json(t, "DELETE", "/models/"+modelID, nil); s != 204 && s != 200 {
				t.Fatalf("delete model on a2: %d %v", s, body)
			}
			if s, _ := rb.json(t, "GET", "/models/"+modelID, nil); s != 404 {
				t.Fatalf("b: model deleted on a2: HTTP %d, want 404", s)
			}
		})
	}
}
