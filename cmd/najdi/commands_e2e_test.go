package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// TestCLICommands checks the client commands' JSON output and exit codes
// against a real server with authentication: collections, models, jobs,
// search with paging and the cut-off, and each documented exit code.
func TestCLICommands(t *testing.T) {
	s := startServer(t, "--no-embeddings", "--users", testutil.UsersFile(t, "alice:wonderland"))
	api := apiClient(s, "alice", "wonderland")
	ctx := context.Background()
	if _, _, err := api.PutCollection(ctx, "kw", map[string]any{"embedding_config": map[string]any{"model": "none"}}); err != nil {
		t.Fatal(err)
	}
	env := []string{"NAJDI_SERVER=" + s.url, "NAJDI_USER=alice", "NAJDI_PASSWORD=wonderland"}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var rows strings.Builder
	rows.WriteString("id,text\n")
	for i := range 12 {
		rows.WriteString("r" + string(rune('a'+i)) + ",apple " + strings.Repeat("apple ", i) + "pie\n")
	}
	rows.WriteString("bad id,apple with a broken id\n")
	csv := write("fruit.csv", rows.String())

	// 3: a record could not be ingested; the summary names it.
	r := cli(t, env, "ingest", csv, "--collection", "kw", "--json", "--progress", "none", "--job-records", "1")
	sum := summary(t, r)
	if r.code != 3 || len(sum.RecordErrors) != 1 || sum.RecordErrors[0].Record == nil || *sum.RecordErrors[0].Record != 12 || sum.Documents != 12 {
		t.Fatalf("ingest with a bad record: exit %d, %+v\n%s", r.code, sum, r.stderr)
	}
	if !strings.Contains(r.stderr, "ERRORS: 1 records were not ingested") || !strings.Contains(r.stderr, "fruit.csv record 12") {
		t.Errorf("the summary does not list the bad record:\n%s", r.stderr)
	}

	// The progress bar (what a terminal shows): redrawn in place, full at the end.
	r = cli(t, env, "ingest", csv, "--collection", "kw", "--restart", "--progress", "bar", "--job-records", "1")
	if r.code != 3 || !strings.Contains(r.stderr, "\r\x1b[K") || !strings.Contains(r.stderr, "kw [====") || !strings.Contains(r.stderr, "=] 100%  1/1 files  12 records") {
		t.Errorf("progress bar: exit %d, stderr %q", r.code, r.stderr)
	}

	// search --json pages and reports the cut-off.
	r = cli(t, env, "search", "apple", "--collection", "kw", "--max-results", "5", "--offset", "5", "--json")
	var sr struct {
		Documents []struct {
			DocumentID string `json:"document_id"`
		} `json:"documents"`
		Metadata struct {
			NextOffset    *int `json:"next_offset"`
			BelowMinScore int  `json:"below_min_score"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sr); err != nil || r.code != 0 || len(sr.Documents) != 5 || sr.Metadata.NextOffset == nil || *sr.Metadata.NextOffset != 10 {
		t.Fatalf("search page 2: exit %d %s %s (%v)", r.code, r.stdout, r.stderr, err)
	}
	type scored struct {
		Documents []struct {
			Score float64 `json:"score"`
		} `json:"documents"`
		Metadata struct {
			BelowMinScore int `json:"below_min_score"`
		} `json:"metadata"`
	}
	var all, cut scored
	r = cli(t, env, "search", "apple", "--collection", "kw", "--max-results", "20", "--min-score", "0", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &all); err != nil || len(all.Documents) != 12 {
		t.Fatalf("search with --min-score 0: %s (%v)", r.stdout, err)
	}
	threshold := all.Documents[5].Score
	want := 0
	for _, d := range all.Documents {
		if d.Score >= threshold {
			want++
		}
	}
	r = cli(t, env, "search", "apple", "--collection", "kw", "--max-results", "20", "--min-score", fmt.Sprint(threshold), "--json")
	if err := json.Unmarshal([]byte(r.stdout), &cut); err != nil || len(cut.Documents) != want || cut.Metadata.BelowMinScore != 12-want {
		t.Fatalf("search with --min-score %v: %d documents, %d below, want %d and %d: %s (%v)", threshold, len(cut.Documents), cut.Metadata.BelowMinScore, want, 12-want, r.stdout, err)
	}
	r = cli(t, env, "search", "apple", "pie", "--collection", "kw", "--max-results", "2")
	if r.code != 0 || !strings.Contains(r.stdout, "  1. r") || !strings.Contains(r.stdout, "next page: --offset 2") {
		t.Errorf("search for a person:\n%s", r.stdout)
	}

	// collections, models and jobs as JSON.
	r = cli(t, env, "collections", "--json")
	var cs struct {
		Collections []struct {
			CollectionID  string `json:"collection_id"`
			DocumentCount int    `json:"document_count"`
		} `json:"collections"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cs); err != nil || len(cs.Collections) != 1 || cs.Collections[0].CollectionID != "kw" || cs.Collections[0].DocumentCount != 12 {
		t.Fatalf("collections --json: %s (%v)", r.stdout, err)
	}
	req, _ := http.NewRequest("POST", s.url+"/models", strings.NewReader(`{"name": "codes", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"code": "[A-Z]{2}-[0-9]+"}}}}`))
	req.SetBasicAuth("alice", "wonderland")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create a model: %v %v", resp, err)
	}
	r = cli(t, env, "models", "--json")
	var ms struct {
		Models []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ms); err != nil || len(ms.Models) != 1 || ms.Models[0].Name != "codes" {
		t.Fatalf("models --json: %s (%v)", r.stdout, err)
	}
	if r = cli(t, env, "models"); !strings.Contains(r.stdout, "annotator regex") {
		t.Errorf("models:\n%s", r.stdout)
	}
	r = cli(t, env, "jobs", "--json", "--collection", "kw")
	var js struct {
		Jobs []struct {
			Status    string `json:"status"`
			Processed int    `json:"processed"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil || len(js.Jobs) != 2 || js.Jobs[0].Status != "done" || js.Jobs[0].Processed != 12 || js.Jobs[1].Processed != 12 {
		t.Fatalf("jobs --json (the CSV ran twice as a job): %s (%v)", r.stdout, err)
	}

	// The other exit codes.
	for _, tt := range []struct {
		name string
		env  []string
		args []string
		code int
		msg  string
	}{
		{"wrong password", []string{"NAJDI_SERVER=" + s.url, "NAJDI_USER=alice", "NAJDI_PASSWORD=nope"}, []string{"collections"}, 4, "NAJDI_PASSWORD"},
		{"no credentials", []string{"NAJDI_SERVER=" + s.url}, []string{"search", "x", "--collection", "kw"}, 4, "unauthorized"},
		{"missing collection", env, []string{"ingest", csv, "--collection", "nope"}, 5, "--create"},
		{"search a missing collection", env, []string{"search", "x", "--collection", "nope"}, 5, "nope"},
		{"no paths", env, []string{"ingest", "--collection", "kw"}, 2, "file or directory"},
		{"no collection", env, []string{"search", "x"}, 2, "--collection"},
		{"bad flag", env, []string{"collections", "--colour"}, 2, "colour"},
		{"missing path", env, []string{"ingest", filepath.Join(dir, "absent"), "--collection", "kw"}, 2, "absent"},
		{"bad filter", env, []string{"search", "--collection", "kw", "--filter", "{nope"}, 2, "--filter"},
		{"server error", env, []string{"search", "x", "--collection", "kw", "--offset", "20000"}, 1, "offset"},
		{"no server", []string{"NAJDI_SERVER=http://127.0.0.1:1"}, []string{"collections"}, 1, "is najdi running"},
		{"user without a password on a pipe", []string{"NAJDI_SERVER=" + s.url, "NAJDI_USER=alice"}, []string{"collections"}, 2, "NAJDI_PASSWORD"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.env, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.msg) {
				t.Fatalf("najdi %v: exit %d, want %d; stderr %q should name %q", tt.args, r.code, tt.code, r.stderr, tt.msg)
			}
		})
	}
}

// TestCLIIngestRetriesOverload ingests with more files at once than the
// server admits (--max-ingests 1): the refused uploads (429) are sent
// again after their Retry-After, and every file ends up ingested.
func TestCLIIngestRetriesOverload(t *testing.T) {
	s := startServer(t, "--no-embeddings", "--max-ingests", "1", "--ingest-workers", "1")
	api := apiClient(s, "", "")
	if _, _, err := api.PutCollection(context.Background(), "busy", map[string]any{"embedding_config": map[string]any{"model": "none"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 24 {
		body := fmt.Sprintf("Report %d\n\n%s", i, strings.Repeat(fmt.Sprintf("Paragraph about topic %d with several words in it. ", i), 400))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%02d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := cli(t, []string{"NAJDI_SERVER=" + s.url}, "ingest", dir, "--collection", "busy", "--concurrency", "6", "--json", "--progress", "none")
	sum := summary(t, r)
	if r.code != 0 || sum.Ingested != 24 || sum.Documents != 24 || len(sum.Failed) != 0 {
		t.Fatalf("exit %d: %+v\n%s", r.code, sum, r.stderr)
	}
	if n := len(allIDs(t, api, "busy")); n != 24 {
		t.Fatalf("%d documents, want 24", n)
	}
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	refused := false
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "najdi_http_requests_total{route=\"/v1/collections/{id}/documents\",method=\"POST\",code=\"429\"}") {
			refused = true
		}
	}
	if !refused {
		t.Fatalf("no upload was refused with 429, so no retry was tested:\n%s", b.String())
	}
}
