package server_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// searchResp is a search, query or answer response as the tests decode it.
type searchResp struct {
	SearchID  string `json:"search_id"`
	Documents []struct {
		DocumentID   string         `json:"document_id"`
		CollectionID string         `json:"collection_id"`
		Score        float64        `json:"score"`
		Source       string         `json:"source"`
		Content      *string        `json:"content"`
		Sections     []mSection     `json:"sections"`
		Fields       map[string]any `json:"fields"`
		Passages     []struct {
			Text         string  `json:"text"`
			Offsets      [2]int  `json:"offsets"`
			SectionIndex int     `json:"section_index"`
			Score        float64 `json:"score"`
		} `json:"passages"`
	} `json:"documents"`
	Summaries []struct {
		DocumentID   string `json:"document_id"`
		CollectionID string `json:"collection_id"`
		Content      string `json:"content"`
	} `json:"summaries"`
	Summary  *string `json:"summary"`
	Answer   *string `json:"answer"`
	Metadata struct {
		Tokens *struct {
			PromptTokens int    `json:"prompt_tokens"`
			Tokenizer    string `json:"tokenizer"`
		} `json:"tokens"`
		OriginalDocumentsCount *int     `json:"original_documents_count"`
		SummaryDocumentsCount  *int     `json:"summary_documents_count"`
		SummaryMethod          string   `json:"summary_method"`
		Message                string   `json:"message"`
		EffectiveQueries       []string `json:"effective_queries"`
		AnswerSources          []string `json:"answer_sources"`
	} `json:"metadata"`
}

func search(t *testing.T, n *node, path string, body any) searchResp {
	t.Helper()
	var r resp
	if strings.Contains(path, "/query") {
		r = n.getJSON(path)
	} else {
		r = n.postJSON(path, body)
	}
	must(t, r, 200)
	var sr searchResp
	if err := json.Unmarshal(r.body, &sr); err != nil {
		t.Fatal(err)
	}
	if len(sr.SearchID) != 36 {
		t.Fatalf("search_id %q is not a UUID", sr.SearchID)
	}
	checkResponse(t, sr)
	return sr
}

// checkResponse asserts the invariants of every search response: scores in
// 0..1 sorted descending, valid sources, and passages that are exact
// code-point slices of the section they point to.
func checkResponse(t *testing.T, sr searchResp) {
	t.Helper()
	for i, d := range sr.Documents {
		if d.Score < 0 || d.Score > 1 {
			t.Fatalf("score %v of %s outside 0..1", d.Score, d.DocumentID)
		}
		if i > 0 && d.Score > sr.Documents[i-1].Score {
			t.Fatalf("documents not sorted by score")
		}
		switch d.Source {
		case "sem", "key", "sem-key":
		default:
			t.Fatalf("source %q", d.Source)
		}
		if d.Sections == nil {
			continue
		}
		for _, p := range d.Passages {
			if p.SectionIndex < 0 || p.SectionIndex >= len(d.Sections) {
				t.Fatalf("passage section_index %d out of range", p.SectionIndex)
			}
			runes := []rune(d.Sections[p.SectionIndex].Content)
			if p.Offsets[0] < 0 || p.Offsets[1] > len(runes) || p.Offsets[0] >= p.Offsets[1] {
				t.Fatalf("passage offsets %v outside section of %d runes", p.Offsets, len(runes))
			}
			if got := string(runes[p.Offsets[0]:p.Offsets[1]]); got != p.Text {
				t.Fatalf("sections[%d].content[%d:%d] = %q, passage text %q", p.SectionIndex, p.Offsets[0], p.Offsets[1], got, p.Text)
			}
			if !utf8.ValidString(p.Text) || p.Score < 0 || p.Score > 1 {
				t.Fatalf("bad passage %+v", p)
			}
		}
	}
}

func ids(sr searchResp) []string {
	var out []string
	for _, d := range sr.Documents {
		out = append(out, d.DocumentID)
	}
	return out
}

func countriesNode(t *testing.T) *node {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "countries", `, "fields": {"Continent": {"type": "enum"}, "ISO3166-1-numeric": {"type": "number"}, "Languages": {"type": "enum", "multi": true}}`)
	ingestOK(t, n.do("POST", "/v1/collections/countries/documents?id_field=ISO3166-1-Alpha-3", "text/csv", readFile(t, "country-codes.csv")))
	return n
}

func TestKeywordSearchAndFilters(t *testing.T) {
	n := countriesNode(t)
	t.Run("keyword relevance", func(t *testing.T) {
		sr := search(t, n, "/v1/collections/countries/search", map[string]any{"query": "Czechia Prague", "max_results": 3, "result_format": "sections"})
		if len(sr.Documents) == 0 || sr.Documents[0].DocumentID != "CZE" {
			t.Fatalf("top documents %v, want CZE first", ids(sr))
		}
		if sr.Documents[0].Source != "key" || len(sr.Documents[0].Passages) == 0 {
			t.Fatalf("want source key with passages: %+v", sr.Documents[0].Source)
		}
	})
	t.Run("flat format and include_fields", func(t *testing.T) {
		sr := search(t, n, "/v1/collections/countries/search", map[string]any{"query": "Czechia", "max_results": 1, "include_fields": []string{"official_name_en", "Continent"}})
		d := sr.Documents[0]
		if d.Content == nil || d.Sections != nil || !strings.Contains(*d.Content, "Czech") {
			t.Fatalf("flat document: %+v", d)
		}
		if len(d.Fields) != 2 || d.Fields["Continent"] != "EU" {
			t.Fatalf("fields %v, want only the two included", d.Fields)
		}
	})
	t.Run("filter dsl", func(t *testing.T) {
		cases := []struct {
			filter string
			check  func(map[string]any) bool
		}{
			{`{"bool": {"must": [{"term": {"Continent": "EU"}}]}}`, func(f map[string]any) bool { return f["Continent"] == "EU" }},
			{`{"bool": {"should": [{"term": {"Continent": "OC"}}, {"term": {"Continent": "AN"}}]}}`, func(f map[string]any) bool { return f["Continent"] == "OC" || f["Continent"] == "AN" }},
			{`{"range": {"ISO3166-1-numeric": {"lte": 100}}}`, func(f map[string]any) bool { v, _ := f["ISO3166-1-numeric"].(float64); return v <= 100 }},
			{`{"bool": {"must": {"term": {"Continent": "EU"}}, "must_not": [{"range": {"ISO3166-1-numeric": {"gt": 300}}}]}}`, func(f map[string]any) bool {
				v, _ := f["ISO3166-1-numeric"].(float64)
				return f["Continent"] == "EU" && v <= 300
			}},
			{`{"bool": {"filter": {"regexp": {"Continent": {"value": "e.", "case_insensitive": true}}}}}`, func(f map[string]any) bool { return f["Continent"] == "EU" }},
		}
		for _, tc := range cases {
			sr := search(t, n, "/v1/collections/countries/search", fmt.Sprintf(`{"filter": %s, "max_results": 1000}`, tc.filter))
			if len(sr.Documents) == 0 {
				t.Fatalf("filter %s matched nothing", tc.filter)
			}
			for _, d := range sr.Documents {
				if !tc.check(d.Fields) {
					t.Fatalf("filter %s returned %s with fields %v", tc.filter, d.DocumentID, d.Fields)
				}
			}
		}
		withQuery := search(t, n, "/v1/collections/countries/search", `{"query": "republic", "filter": {"term": {"Continent": "AF"}}, "max_results": 50, "result_format": "sections", "highlight": true}`)
		if len(withQuery.Documents) == 0 {
			t.Fatal("query + filter matched nothing")
		}
		for _, d := range withQuery.Documents {
			if d.Fields["Continent"] != "AF" {
				t.Fatalf("filter ignored with a query: %s %v", d.DocumentID, d.Fields["Continent"])
			}
		}
	})
	t.Run("query endpoint filters", func(t *testing.T) {
		sr := search(t, n, "/v1/collections/countries/query?query=island&filter:Continent=(OC|NA)&max_results=100", nil)
		if len(sr.Documents) == 0 {
			t.Fatal("no results")
		}
		for _, d := range sr.Documents {
			if c := d.Fields["Continent"]; c != "OC" && c != "NA" {
				t.Fatalf("filter:Continent=(OC|NA) returned %v", c)
			}
		}
		sr = search(t, n, "/v1/collections/countries/query?filter:Continent=EU&filter:official_name_en=Re&max_results=100", nil)
		for _, d := range sr.Documents {
			if d.Fields["Continent"] != "EU" || !strings.Contains(strings.ToLower(fmt.Sprint(d.Fields["official_name_en"])), "re") {
				t.Fatalf("ANDed parameters violated by %v", d.Fields)
			}
		}
		if len(sr.Documents) == 0 {
			t.Fatal("two parameters matched nothing")
		}
	})
	t.Run("multi-valued field", func(t *testing.T) {
		keywordCollection(t, n, "multi", `, "fields": {"tags": {"type": "enum", "multi": true}}`)
		ingestOK(t, n.do("POST", "/v1/collections/multi/documents", "text/csv", []byte("id,name,tags\na,first,red|green\nb,second,blue\n")))
		ingestOK(t, n.postJSON("/v1/collections/multi/documents", `{"documents": [{"document_id": "c", "sections": [{"type": "p", "content": "third"}], "fields": {"tags": ["green", "yellow"]}}]}`))
		sr := search(t, n, "/v1/collections/multi/search", `{"filter": {"term": {"tags": "green"}}, "max_results": 10}`)
		got := ids(sr)
		sort.Strings(got)
		if strings.Join(got, ",") != "a,c" {
			t.Fatalf("term on a multi-valued field matched %v, want a,c", got)
		}
	})
	t.Run("multiple collections", func(t *testing.T) {
		keywordCollection(t, n, "other", "")
		ingestOK(t, n.postJSON("/v1/collections/other/documents", `{"documents": [{"document_id": "cz-note", "sections": [{"type": "title", "content": "Czechia travel note"}, {"type": "p", "content": "Prague is the capital of Czechia."}]}]}`))
		sr := search(t, n, "/v1/collections/countries,other/search", `{"query": "Czechia Prague", "max_results": 5}`)
		seen := map[string]bool{}
		for _, d := range sr.Documents {
			seen[d.CollectionID] = true
		}
		if !seen["countries"] || !seen["other"] {
			t.Fatalf("want documents of both collections, got %v", sr.Documents)
		}
	})
	t.Run("summaries within budget", func(t *testing.T) {
		for _, budget := range []int{5, 40, 300, 3000} {
			sr := search(t, n, "/v1/collections/countries/search", map[string]any{"query": "kingdom monarchy island", "max_results": 5, "include_content": []string{"summaries", "summary"}, "summary_config": map[string]any{"max_tokens": budget}})
			m := sr.Metadata
			if m.Tokens == nil || m.Tokens.PromptTokens > budget {
				t.Fatalf("budget %d: prompt_tokens %+v", budget, m.Tokens)
			}
			if m.OriginalDocumentsCount == nil || *m.OriginalDocumentsCount != 5 || *m.SummaryDocumentsCount != len(sr.Summaries) || m.SummaryMethod == "" || m.Message == "" {
				t.Fatalf("budget %d: metadata %+v, %d summaries", budget, m, len(sr.Summaries))
			}
			if sr.Documents != nil {
				t.Fatalf("include_content without full must not return documents")
			}
			if sr.Summary == nil {
				t.Fatal("summary string missing")
			}
		}
	})
	t.Run("answer", func(t *testing.T) {
		r := must(t, n.postJSON("/v1/collections/countries/answer", `{"query": "What is the capital of Czechia?"}`), 200).json(t)
		if a, _ := r["answer"].(string); a == "" {
			t.Fatalf("no answer: %v", r)
		}
	})
	t.Run("scores are comparable", func(t *testing.T) {
		a := search(t, n, "/v1/collections/countries/search", `{"query": "Czechia", "max_results": 1}`)
		b := search(t, n, "/v1/collections/countries/search", `{"query": "zzzz qqqq Czechia", "max_results": 1}`)
		if len(a.Documents) == 0 || len(b.Documents) == 0 || b.Documents[0].Score >= a.Documents[0].Score {
			t.Fatalf("a query whose terms mostly miss must score lower: %v vs %v", a.Documents, b.Documents)
		}
	})
}

func TestDocumentLifecycle(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "life", "")
	doc := func(v string) string {
		return fmt.Sprintf(`{"documents": [{"document_id": "x", "sections": [{"type": "p", "content": "%s"}], "fields": {"v": "%s"}}]}`, v, v)
	}
	ir := ingestOK(t, n.postJSON("/v1/collections/life/documents", doc("original zebra")))
	if ir.Documents[0].Status != "created" {
		t.Fatal(ir)
	}
	ir = ingestOK(t, n.postJSON("/v1/collections/life/documents", doc("replacement giraffe")))
	if ir.Documents[0].Status != "replaced" {
		t.Fatal(ir)
	}
	if sr := search(t, n, "/v1/collections/life/search", `{"query": "zebra"}`); len(sr.Documents) != 0 {
		t.Fatalf("the replaced version is still found: %v", ids(sr))
	}
	if sr := search(t, n, "/v1/collections/life/search", `{"query": "giraffe"}`); len(sr.Documents) != 1 {
		t.Fatalf("the new version is not found: %v", ids(sr))
	}
	c := must(t, n.getJSON("/v1/collections/life"), 200).json(t)
	if c["document_count"].(float64) != 1 {
		t.Fatalf("document_count %v after a replace", c["document_count"])
	}
	must(t, n.do("DELETE", "/v1/collections/life/documents/x", "", nil), 204)
	must(t, n.getJSON("/v1/collections/life/documents/x"), 404)
	if sr := search(t, n, "/v1/collections/life/search", `{"query": "giraffe"}`); len(sr.Documents) != 0 {
		t.Fatal("a deleted document is still found")
	}
	// Many small ingests trigger merges; everything stays findable.
	for i := 0; i < 30; i++ {
		ingestOK(t, n.postJSON("/v1/collections/life/documents", fmt.Sprintf(`{"documents": [{"document_id": "m%d", "sections": [{"type": "p", "content": "merge test word%d common"}]}]}`, i, i)))
	}
	n.restart()
	sr := search(t, n, "/v1/collections/life/search", `{"query": "common", "max_results": 100}`)
	got := ids(sr)
	sort.Strings(got)
	if len(got) != 30 {
		t.Fatalf("after merges and a restart %d documents found, want 30", len(got))
	}
	// Async ingest with a job.
	r := must(t, n.do("POST", "/v1/collections/life/documents?async=true", "text/csv", []byte("id,t\na1,hello\na2,world\n")), 202).json(t)
	job := r["job_id"].(string)
	for i := 0; i < 200; i++ {
		time.Sleep(25 * time.Millisecond)
		st := must(t, n.getJSON("/v1/collections/life/jobs/"+job), 200).json(t)
		if st["status"] == "done" {
			if st["processed"].(float64) != 2 {
				t.Fatalf("job %v", st)
			}
			return
		}
		if st["status"] == "failed" {
			t.Fatalf("job failed: %v", st)
		}
	}
	t.Fatal("job did not finish")
}
