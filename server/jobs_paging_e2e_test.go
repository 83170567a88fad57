package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
)

// jobStatus is the part of a job status the tests read.
type jobStatus struct {
	JobID        string   `json:"job_id"`
	CollectionID string   `json:"collection_id"`
	Status       string   `json:"status"`
	Processed    int      `json:"processed"`
	Total        *int     `json:"total"`
	BytesTotal   int64    `json:"bytes_total"`
	BytesRead    int64    `json:"bytes_read"`
	Rate         *float64 `json:"documents_per_second"`
	ETA          *float64 `json:"eta_seconds"`
	Documents    []any    `json:"documents"`
}

func decodeJSON[T any](t *testing.T, r resp) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %s: %v", truncate(r.body, 300), err)
	}
	return v
}

// TestJobProgressAndList follows an asynchronous CSV ingest: while it runs
// its status reports processed documents, bytes read, a rate and an ETA;
// when done, total and every byte. GET /v1/jobs and GET
// /v1/collections/{id}/jobs list the caller's jobs only.
func TestJobProgressAndList(t *testing.T) {
	n := start(t, "", "--no-embeddings", "--users", testutil.UsersFile(t, "alice:wonderland", "bob:builder"))
	alice, bob := n.as("alice", "wonderland"), n.as("bob", "builder")
	keywordCollection(t, alice, "prog", "")
	keywordCollection(t, bob, "prog", "")
	const rows = 1900
	csv := overloadCSV(rows, 3)
	id := must(t, alice.do("POST", "/v1/collections/prog/documents?async=true&id_field=id&format=csv", "text/csv", csv), 202).json(t)["job_id"].(string)
	var running []jobStatus
	var final jobStatus
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st := decodeJSON[jobStatus](t, must(t, alice.getJSON("/v1/collections/prog/jobs/"+id), 200))
		if st.BytesTotal != int64(len(csv)) {
			t.Fatalf("bytes_total %d, want %d", st.BytesTotal, len(csv))
		}
		if st.Status != "running" {
			final = st
			break
		}
		running = append(running, st)
		if time.Now().After(deadline) {
			t.Fatal("job still running after 2 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if final.Status != "done" || final.Processed != rows || final.Total == nil || *final.Total != rows || final.BytesRead != final.BytesTotal {
		t.Fatalf("finished job: %+v", final)
	}
	if final.Rate != nil || final.ETA != nil {
		t.Errorf("a finished job reports a rate or ETA: %+v", final)
	}
	measured := false
	for i, st := range running {
		if st.BytesRead < 0 || st.BytesRead > st.BytesTotal || (i > 0 && st.BytesRead < running[i-1].BytesRead) {
			t.Fatalf("bytes_read %d of %d (before: %+v)", st.BytesRead, st.BytesTotal, running[max(0, i-1)])
		}
		if st.Processed > 0 && st.Processed < rows {
			if st.Rate == nil || *st.Rate <= 0 || st.ETA == nil || *st.ETA < 0 {
				t.Fatalf("running with %d processed: rate %v, eta %v", st.Processed, st.Rate, st.ETA)
			}
			measured = true
		}
	}
	if !measured {
		t.Fatalf("no running status with processed between 0 and %d among %d polls", rows, len(running))
	}

	// An envelope job knows its total from the start.
	env := `{"documents": [{"document_id": "e1", "sections": [{"type": "p", "content": "one"}]}, {"document_id": "e2", "sections": [{"type": "p", "content": "two"}]}]}`
	id2 := must(t, alice.do("POST", "/v1/collections/prog/documents?async=true", "application/json", []byte(env)), 202).json(t)["job_id"].(string)
	st := decodeJSON[jobStatus](t, must(t, alice.getJSON("/v1/collections/prog/jobs/"+id2), 200))
	if st.Total == nil || *st.Total != 2 {
		t.Fatalf("envelope job total %v, want 2 from the start: %+v", st.Total, st)
	}
	waitJob(t, alice, "prog", id2, time.Minute)

	type jobList struct {
		Jobs []jobStatus `json:"jobs"`
	}
	ids := func(l jobList) []string {
		var out []string
		for _, j := range l.Jobs {
			if j.Documents != nil {
				t.Errorf("job %s is listed with its documents", j.JobID)
			}
			out = append(out, j.JobID)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		n    *node
		path string
		want []string
	}{
		{"all of alice", alice, "/v1/jobs", []string{id2, id}},
		{"of a collection", alice, "/v1/collections/prog/jobs", []string{id2, id}},
		{"by status", alice, "/v1/jobs?status=done&collection_id=prog", []string{id2, id}},
		{"none running", alice, "/v1/jobs?status=failed", nil},
		{"the newest", alice, "/v1/jobs?limit=1", []string{id2}},
		{"bob sees none of alice's", bob, "/v1/jobs", nil},
		{"bob's collection of the same id", bob, "/v1/collections/prog/jobs", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(decodeJSON[jobList](t, must(t, tt.n.getJSON(tt.path), 200)))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("%s: %v, want %v", tt.path, got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/v1/jobs?status=paused", 400, "status"},
		{"/v1/jobs?status=", 400, "status: empty value"},
		{"/v1/jobs?collection_id=", 400, "collection_id: empty value"},
		{"/v1/jobs?limit=", 400, "limit: empty value"},
		{"/v1/collections/prog/jobs?status=", 400, "status: empty value"},
		{"/v1/jobs?collection_id=nope", 404, "nope"},
		{"/v1/jobs?limit=0", 400, "limit"},
		{"/v1/jobs?limit=1001", 400, "limit"},
		{"/v1/jobs?offset=3", 400, "offset"},
		{"/v1/collections/nope/jobs", 404, "nope"},
	} {
		r := must(t, alice.getJSON(tt.path), tt.status)
		if r.errorCode(t) == "" || !strings.Contains(string(r.body), tt.want) {
			t.Errorf("%s: %s does not name %q", tt.path, r.body, tt.want)
		}
	}
	must(t, alice.do("POST", "/v1/jobs", "application/json", nil), 405)
	// A deleted collection's jobs are gone from the list.
	must(t, alice.do("DELETE", "/v1/collections/prog", "", nil), 204)
	if got := ids(decodeJSON[jobList](t, must(t, alice.getJSON("/v1/jobs"), 200))); len(got) != 0 {
		t.Fatalf("jobs of a deleted collection are listed: %v", got)
	}
}

// TestSearchPaging pages through a keyword ranking with offset: the pages
// concatenate to the one-page ranking, next_offset leads from page to page
// and is absent on the last, on the search body and the query endpoint.
func TestSearchPaging(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "pg", "")
	var sb strings.Builder
	sb.WriteString("id,text\n")
	const docs = 25
	for i := range docs {
		// Ranked by how often "apple" appears among other words.
		fmt.Fprintf(&sb, "d%02d,%s%s\n", i, strings.Repeat("apple ", 1+i%7), strings.Repeat("pear plum ", 1+i%5))
	}
	sb.WriteString("z1,nothing about fruit here\n")
	must(t, n.do("POST", "/v1/collections/pg/documents?id_field=id", "text/csv", []byte(sb.String())), 200)

	type page struct {
		Documents []struct {
			DocumentID string  `json:"document_id"`
			Score      float64 `json:"score"`
		} `json:"documents"`
		Metadata struct {
			BelowMinScore *int `json:"below_min_score"`
			NextOffset    *int `json:"next_offset"`
		} `json:"metadata"`
	}
	ids := func(p page) []string {
		var out []string
		for _, d := range p.Documents {
			out = append(out, d.DocumentID)
		}
		return out
	}
	all := decodeJSON[page](t, must(t, n.postJSON("/v1/collections/pg/search", map[string]any{"query": "apple", "max_results": 100}), 200))
	if len(all.Documents) != docs || all.Metadata.NextOffset != nil || all.Metadata.BelowMinScore == nil || *all.Metadata.BelowMinScore != 0 {
		t.Fatalf("one page of 100: %d documents, metadata %+v", len(all.Documents), all.Metadata)
	}
	for _, via := range []string{"search", "query"} {
		var got []string
		offset, pages := 0, 0
		for {
			var r resp
			if via == "search" {
				r = n.postJSON("/v1/collections/pg/search", map[string]any{"query": "apple", "max_results": 10, "offset": offset})
			} else {
				r = n.getJSON(fmt.Sprintf("/v1/collections/pg/query?query=apple&max_results=10&offset=%d", offset))
			}
			p := decodeJSON[page](t, must(t, r, 200))
			got = append(got, ids(p)...)
			pages++
			if p.Metadata.NextOffset == nil {
				if len(p.Documents) != docs-offset {
					t.Fatalf("%s: last page at %d has %d documents", via, offset, len(p.Documents))
				}
				break
			}
			if *p.Metadata.NextOffset != offset+10 || len(p.Documents) != 10 {
				t.Fatalf("%s: page at %d: %d documents, next_offset %d", via, offset, len(p.Documents), *p.Metadata.NextOffset)
			}
			offset = *p.Metadata.NextOffset
		}
		if pages != 3 || !slices.Equal(got, ids(all)) {
			t.Fatalf("%s: %d pages %v, want the ranking %v", via, pages, got, ids(all))
		}
	}
	p := decodeJSON[page](t, must(t, n.postJSON("/v1/collections/pg/search", map[string]any{"query": "apple", "offset": 40}), 200))
	if len(p.Documents) != 0 || p.Metadata.NextOffset != nil {
		t.Fatalf("offset past the end: %+v", p)
	}
	// Filter-only requests page in id order.
	const matchAll = "filter=%7B%22match_all%22%3A%7B%7D%7D"
	p = decodeJSON[page](t, must(t, n.getJSON("/v1/collections/pg/query?"+matchAll+"&max_results=4&offset=20"), 200))
	if got := ids(p); !slices.Equal(got, []string{"d20", "d21", "d22", "d23"}) || p.Metadata.NextOffset == nil || *p.Metadata.NextOffset != 24 {
		t.Fatalf("filter-only page at 20: %v next %v", got, p.Metadata.NextOffset)
	}
	p = decodeJSON[page](t, must(t, n.getJSON("/v1/collections/pg/query?"+matchAll+"&max_results=4&offset=24"), 200))
	if got := ids(p); !slices.Equal(got, []string{"d24", "z1"}) || p.Metadata.NextOffset != nil {
		t.Fatalf("filter-only page at 24: %v next %v", got, p.Metadata.NextOffset)
	}
	for _, tt := range []struct {
		body any
		path string
		want string
	}{
		{map[string]any{"query": "apple", "offset": -1}, "", "offset"},
		{map[string]any{"query": "apple", "offset": 9995, "max_results": 10}, "", "10000"},
		{map[string]any{"query": "apple", "offset": "2"}, "", "offset"},
		{map[string]any{"query": "apple", "min_score": 1.5}, "", "min_score"},
		{map[string]any{"query": "apple", "min_score": -0.1}, "", "min_score"},
		{nil, "/v1/collections/pg/query?query=apple&offset=x", "offset"},
		{nil, "/v1/collections/pg/query?query=apple&min_score=high", "min_score"},
	} {
		var r resp
		if tt.path != "" {
			r = n.getJSON(tt.path)
		} else {
			r = n.postJSON("/v1/collections/pg/search", tt.body)
		}
		must(t, r, 400)
		if r.errorCode(t) != "invalid_request" || !strings.Contains(string(r.body), tt.want) {
			t.Errorf("%v %s: %s does not name %q", tt.body, tt.path, r.body, tt.want)
		}
	}
}

// TestSearchMinScore checks the relevance cut-off with the real model:
// by default documents without evidence (score 0) are left out and
// counted in below_min_score; min_score 0 returns them; a higher
// min_score keeps exactly the documents scoring at least that.
func TestSearchMinScore(t *testing.T) {
	n := start(t, "")
	must(t, n.putJSON("/v1/collections/ms", `{}`), 201)
	env := map[string]any{"documents": []map[string]any{
		{"document_id": "loops", "sections": []map[string]any{{"type": "p", "content": "Trace compilation records hot loops of a JavaScript interpreter and compiles them to machine code."}}},
		{"document_id": "jit", "sections": []map[string]any{{"type": "p", "content": "A just-in-time compiler turns frequently executed bytecode into native instructions."}}},
		{"document_id": "soup", "sections": []map[string]any{{"type": "p", "content": "Simmer the onions slowly in butter, then add the stock and the thyme."}}},
		{"document_id": "garden", "sections": []map[string]any{{"type": "p", "content": "Tomatoes need sun, regular watering and a stake to climb."}}},
		{"document_id": "ferry", "sections": []map[string]any{{"type": "p", "content": "The ferry to the island leaves the harbour twice a day in summer."}}},
	}}
	must(t, n.postJSON("/v1/collections/ms/documents", env), 200)
	type res struct {
		Documents []struct {
			DocumentID string  `json:"document_id"`
			Score      float64 `json:"score"`
		} `json:"documents"`
		Metadata struct {
			BelowMinScore int `json:"below_min_score"`
		} `json:"metadata"`
	}
	q := "tracing JIT compiler for JavaScript loops"
	def := decodeJSON[res](t, must(t, n.postJSON("/v1/collections/ms/search", map[string]any{"query": q, "max_results": 5}), 200))
	zero := decodeJSON[res](t, must(t, n.postJSON("/v1/collections/ms/search", map[string]any{"query": q, "max_results": 5, "min_score": 0}), 200))
	t.Logf("default: %+v; min_score 0: %+v", def, zero)
	if len(zero.Documents) != 5 || zero.Metadata.BelowMinScore != 0 {
		t.Fatalf("min_score 0: %d documents, below_min_score %d; want all 5, 0", len(zero.Documents), zero.Metadata.BelowMinScore)
	}
	zeros := 0
	for _, d := range zero.Documents {
		if d.Score == 0 {
			zeros++
		}
	}
	if zeros == 0 {
		t.Fatalf("no document scores 0 for %q: the test needs one without evidence: %+v", q, zero)
	}
	if len(def.Documents) != 5-zeros || def.Metadata.BelowMinScore != zeros {
		t.Fatalf("default: %d documents, below_min_score %d; want %d, %d", len(def.Documents), def.Metadata.BelowMinScore, 5-zeros, zeros)
	}
	if def.Documents[0].DocumentID != "loops" {
		t.Errorf("best document %s, want loops", def.Documents[0].DocumentID)
	}
	cut := zero.Documents[1].Score
	hi := decodeJSON[res](t, must(t, n.getJSON(fmt.Sprintf("/v1/collections/ms/query?query=%s&max_results=5&min_score=%v", strings.ReplaceAll(q, " ", "+"), cut)), 200))
	want := 0
	for _, d := range zero.Documents {
		if d.Score >= cut {
			want++
		}
	}
	if len(hi.Documents) != want || hi.Metadata.BelowMinScore != 5-want {
		t.Fatalf("min_score %v: %d documents, below_min_score %d; want %d, %d", cut, len(hi.Documents), hi.Metadata.BelowMinScore, want, 5-want)
	}
}

// TestEnumTextSearchableAnyWay ingests enum_text values by every route a
// value can take (envelope fields, CSV columns, JSON and JSON-lines
// records, declared and inferred) and finds each by keyword search and by
// a term filter.
func TestEnumTextSearchableAnyWay(t *testing.T) {
	for _, model := range []string{"none", "default"} {
		t.Run(model, func(t *testing.T) {
			var n *node
			if model == "none" {
				n = start(t, "", "--no-embeddings")
			} else {
				n = start(t, "")
			}
			must(t, n.putJSON("/v1/collections/et", `{"embedding_config": {"model": "`+model+`"}, "fields": {"brand": {"type": "enum_text"}}}`), 201)
			must(t, n.postJSON("/v1/collections/et/documents", `{"documents": [
				{"document_id": "env", "sections": [{"type": "p", "content": "a kettle"}], "fields": {"brand": "Zorblax", "maker": "Quillfen"}}]}`), 200)
			must(t, n.do("POST", "/v1/collections/et/documents?id_field=id", "text/csv", []byte("id,name,brand,maker\ncsv,a toaster,Vendrik,Ostrava Works\n")), 200)
			must(t, n.do("POST", "/v1/collections/et/documents?id_field=id&format=json", "application/json", []byte(`[{"id": "json", "name": "a blender", "brand": "Plumbago", "maker": "Tessaly"}]`)), 200)
			must(t, n.do("POST", "/v1/collections/et/documents?id_field=id", "application/x-ndjson", []byte(`{"id": "jsonl", "name": "a mixer", "brand": "Korvath", "maker": "Umbrette"}`+"\n")), 200)
			for _, tt := range []struct{ field, value, doc string }{
				{"brand", "Zorblax", "env"}, {"maker", "Quillfen", "env"},
				{"brand", "Vendrik", "csv"}, {"maker", "Ostrava Works", "csv"},
				{"brand", "Plumbago", "json"}, {"maker", "Tessaly", "json"},
				{"brand", "Korvath", "jsonl"}, {"maker", "Umbrette", "jsonl"},
			} {
				word := strings.Fields(tt.value)[0]
				sr := search(t, n, "/v1/collections/et/search", map[string]any{"query": strings.ToLower(word), "max_results": 1})
				if len(sr.Documents) == 0 || sr.Documents[0].DocumentID != tt.doc || !strings.Contains(sr.Documents[0].Source, "key") {
					t.Errorf("query %q: %+v, want %s found by keyword", word, sr.Documents, tt.doc)
				}
				sr = search(t, n, "/v1/collections/et/search", map[string]any{"filter": map[string]any{"term": map[string]any{tt.field: tt.value}}})
				if len(sr.Documents) != 1 || sr.Documents[0].DocumentID != tt.doc {
					t.Errorf("filter %s=%q: %+v, want %s", tt.field, tt.value, sr.Documents, tt.doc)
				}
			}
		})
	}
}

// TestJobProgressSmallEmbedded follows a job of 120 CSV records with the
// real embedding model: parsing runs far ahead of embedding, and the job
// must still report documents stored before its end (it used to store
// them in one flush and show processed 0 until done).
func TestJobProgressSmallEmbedded(t *testing.T) {
	n := start(t, "")
	must(t, n.putJSON("/v1/collections/small", `{}`), 201)
	var sb strings.Builder
	sb.WriteString("id,name,about\n")
	for i := range 120 {
		fmt.Fprintf(&sb, "r%03d,Item %d,A short description of item %d that mentions rivers mountains and coastlines.\n", i, i, i)
	}
	id := must(t, n.do("POST", "/v1/collections/small/documents?async=true", "text/csv", []byte(sb.String())), 202).json(t)["job_id"].(string)
	var seen []int
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st := decodeJSON[jobStatus](t, must(t, n.getJSON("/v1/collections/small/jobs/"+id), 200))
		if st.Status != "running" {
			if st.Status != "done" || st.Processed != 120 {
				t.Fatalf("job ended: %+v", st)
			}
			break
		}
		if len(seen) == 0 || seen[len(seen)-1] != st.Processed {
			seen = append(seen, st.Processed)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still running; processed %v", seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("processed while running: %v", seen)
	between := 0
	for _, p := range seen {
		if p > 0 && p < 120 {
			between++
		}
	}
	if between < 2 {
		t.Fatalf("processed while running: %v, want at least two values between 0 and 120", seen)
	}
}
