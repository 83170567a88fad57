package peers

import (
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseAnswers(t *testing.T) {
	tests := []struct {
		name    string
		parse   func([]byte) (Result, error)
		body    string
		ids     []string
		took    time.Duration
		embed   time.Duration
		wantErr string
	}{
		{"najdi", parseNajdi, `{"search_id":"s","documents":[{"document_id":"a","score":1},{"document_id":"b","score":0.5}],"metadata":{"took_ms":2.5}}`, []string{"a", "b"}, 2500 * time.Microsecond, 0, ""},
		{"najdi timings", parseNajdi, `{"documents":[{"document_id":"a"}],"metadata":{"took_ms":2.5,"timings":{"embed_ms":1.25,"retrieve_ms":0.5}}}`, []string{"a"}, 2500 * time.Microsecond, 1250 * time.Microsecond, ""},
		{"najdi empty", parseNajdi, `{"search_id":"s","metadata":{"took_ms":0.1}}`, nil, 100 * time.Microsecond, 0, ""},
		{"najdi bad", parseNajdi, `{"documents":`, nil, 0, 0, "najdi search answer"},
		{"elastic", parseElastic, `{"took":3,"hits":{"total":{"value":2},"hits":[{"_id":"x","_score":2},{"_id":"y","_score":1}]}}`, []string{"x", "y"}, 3 * time.Millisecond, 0, ""},
		{"elastic error", parseElastic, `{"error":{"type":"x"},"status":400}`, nil, 0, 0, "without hits"},
		{"weaviate", func(b []byte) (Result, error) { return parseWeaviate(b, "Scifact") }, `{"data":{"Get":{"Scifact":[{"docid":"d1"},{"docid":"d2"}]}}}`, []string{"d1", "d2"}, 0, 0, ""},
		{"weaviate errors", func(b []byte) (Result, error) { return parseWeaviate(b, "Scifact") }, `{"data":{"Get":{"Scifact":null}},"errors":[{"message":"no such class"}]}`, nil, 0, 0, "no such class"},
		{"weaviate wrong class", func(b []byte) (Result, error) { return parseWeaviate(b, "Scifact") }, `{"data":{"Get":{"Other":[]}}}`, nil, 0, 0, "no class Scifact"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.parse([]byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.IDs, tc.ids) || r.Took != tc.took || r.Embed != tc.embed {
				t.Fatalf("got %v %v %v, want %v %v %v", r.IDs, r.Took, r.Embed, tc.ids, tc.took, tc.embed)
			}
		})
	}
}

func TestParseStatCPU(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want time.Duration
		ok   bool
	}{
		// utime 250 and stime 50 ticks: 3 s.
		{"1234 (najdi) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 1000 200", 3 * time.Second, true},
		// A command name with spaces and a parenthesis.
		{"7 (a b) c) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 6 7", 30 * time.Millisecond, true},
		{"7 (x) R 1 2", 0, false},
		{"no name", 0, false},
		{"7 (x) R 1 7 7 0 -1 0 0 0 0 0 u 2 0 0", 0, false},
	} {
		got, err := parseStatCPU([]byte(tc.stat))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseStatCPU(%q) = %s, %v; want %s, ok %v", tc.stat, got, err, tc.want, tc.ok)
		}
	}
	if d, err := cpuTime(os.Getpid()); err != nil || d < 0 {
		t.Fatalf("cpuTime of this process: %s, %v", d, err)
	}
}

// busySystem is a System whose CPU time grows by step per read while
// busy reads remain.
type busySystem struct {
	System
	busy int
	cpu  time.Duration
	step time.Duration
}

func (b *busySystem) CPUTime() (time.Duration, error) {
	if b.busy > 0 {
		b.busy--
		b.cpu += b.step
	}
	return b.cpu, nil
}

func TestWaitQuiet(t *testing.T) {
	const window = 10 * time.Millisecond
	// Busy (a whole window of CPU per window) for the first reads, then idle.
	s := &busySystem{busy: 3, step: window}
	d, err := waitQuiet(context.Background(), s, window, time.Second)
	if err != nil || d < 3*window || d >= time.Second {
		t.Fatalf("waited %s, %v; want about 3 windows", d, err)
	}
	// Never quiet: the limit ends the wait.
	s = &busySystem{busy: 1 << 30, step: window}
	if d, _ := waitQuiet(context.Background(), s, window, 50*time.Millisecond); d < 50*time.Millisecond {
		t.Fatalf("a busy system's wait ended after %s, before the limit", d)
	}
	// A system without a process: no wait.
	if d, _ := waitQuiet(context.Background(), struct{ System }{}, window, time.Second); d != 0 {
		t.Fatalf("waited %s for a system without CPU time", d)
	}
}

func TestParseVmRSS(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"Name:\tx\nVmPeak:\t 10 kB\nVmRSS:\t   2048 kB\n", 2048 << 10, false},
		{"Name:\tx\n", 0, true},
		{"VmRSS:\t12 MB\n", 0, true},
	}
	for _, tc := range tests {
		got, err := parseVmRSS(strings.NewReader(tc.in))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q: got %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	// And the real file of this process.
	if rss, err := rssOf(os.Getpid()); err != nil || rss < 1<<20 {
		t.Fatalf("rss of self: %d, %v", rss, err)
	}
}

func TestWeaviateQuery(t *testing.T) {
	q := Query{Text: `say "hi"`, Vector: []float32{0.5, -1}}
	tests := []struct {
		kind Kind
		want []string
		not  []string
	}{
		{Keyword, []string{`bm25:{query:"say \"hi\"",properties:["title","body"]}`, "limit:10", "{docid}"}, []string{"nearVector", "where"}},
		{Vector, []string{`nearVector:{vector:[0.5,-1]}`}, []string{"bm25", "where"}},
		{Hybrid, []string{`hybrid:{query:"say \"hi\"",vector:[0.5,-1]`}, []string{"where"}},
		{Filter1, []string{"hybrid:", `where:{path:["bucket"],operator:LessThan,valueInt:1}`}, nil},
		{Filter20, []string{`valueInt:20`}, nil},
	}
	for _, tc := range tests {
		got := weaviateQuery("Scifact", tc.kind, q, 10)
		if !strings.HasPrefix(got, "{Get{Scifact(") {
			t.Errorf("%s: %s", tc.kind, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %s lacks %s", tc.kind, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %s has %s", tc.kind, got, w)
			}
		}
	}
	if c := className("large-1"); c != "Large1" {
		t.Errorf("className = %q", c)
	}
	if u := uuidOf("doc"); len(u) != 36 || u[14] != '3' || u != uuidOf("doc") || u == uuidOf("doc2") {
		t.Errorf("uuidOf = %q", u)
	}
}

func TestElasticBody(t *testing.T) {
	q := Query{Text: "cancer", Vector: []float32{1, 0}}
	enc := func(m map[string]any) string {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		flavour string
		rrf     bool
		kind    Kind
		want    []string
		not     []string
	}{
		{"elasticsearch", false, Keyword, []string{`"multi_match"`, `"size":10`, `"_source":false`}, []string{`"knn"`}},
		{"elasticsearch", false, Vector, []string{`"knn":{"field":"vec","k":10,"num_candidates":100,"query_vector":[1,0]}`}, []string{"multi_match"}},
		{"elasticsearch", false, Hybrid, []string{`"knn":`, `"query":{"multi_match"`}, []string{"filter", "retriever"}},
		{"elasticsearch", false, Filter1, []string{`"filter":{"range":{"bucket":{"lt":1}}}`, `"bool":{"filter"`}, nil},
		{"elasticsearch", true, Filter20, []string{`"retriever":{"rrf"`, `"lt":20`}, nil},
		{"opensearch", false, Vector, []string{`"query":{"knn":{"vec":{"k":10,"vector":[1,0]}}}`}, []string{"multi_match"}},
		{"opensearch", false, Hybrid, []string{`"bool":{"should":[`, `"knn":{"vec"`}, []string{"filter"}},
		{"opensearch", false, Filter20, []string{`"vec":{"filter":{"range":{"bucket":{"lt":20}}}`, `"bool":{"filter"`}, nil},
	}
	for _, tc := range tests {
		got := enc(elasticBody(tc.flavour, tc.rrf, tc.kind, q, 10))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: %s lacks %s", tc.flavour, tc.kind, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("%s %s: %s has %s", tc.flavour, tc.kind, got, w)
			}
		}
	}
}

// TestStub calls the embedding stub over real HTTP as najdi would: known
// queries get their query vector, other texts the embedder's.
func TestStub(t *testing.T) {
	var asked []string
	s, err := StartStub([]Query{{Text: "q1", Vector: []float32{9, 9}}}, func(texts []string, _ bool) ([][]float32, error) {
		asked = append(asked, texts...)
		out := make([][]float32, len(texts))
		for i, x := range texts {
			out[i] = []float32{float32(len(x)), 1}
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var resp struct {
		Data []stubItem `json:"data"`
	}
	if err := doJSON(context.Background(), "POST", s.URL+"/v1/embeddings", map[string]any{"input": []string{"abc", "q1"}, "model": "m"}, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != 2 || resp.Data[0].Index != 0 || !slices.Equal(resp.Data[0].Embedding, []float32{3, 1}) || !slices.Equal(resp.Data[1].Embedding, []float32{9, 9}) {
		t.Fatalf("answer %+v", resp.Data)
	}
	if !slices.Equal(asked, []string{"abc"}) || s.Misses() != 1 {
		t.Fatalf("embedder asked %v, %d misses", asked, s.Misses())
	}
	// A passage seen before comes from the cache: the embedder is not
	// asked again.
	s.ResetMisses()
	resp.Data = nil
	if err := doJSON(context.Background(), "POST", s.URL+"/v1/embeddings", map[string]any{"input": []string{"q1", "abc", "de"}, "model": "m"}, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != 3 || resp.Data[2].Index != 2 || !slices.Equal(resp.Data[1].Embedding, []float32{3, 1}) || !slices.Equal(resp.Data[2].Embedding, []float32{2, 1}) {
		t.Fatalf("answer %+v", resp.Data)
	}
	if !slices.Equal(asked, []string{"abc", "de"}) || s.Misses() != 1 {
		t.Fatalf("embedder asked %v, %d misses", asked, s.Misses())
	}
	// Forgotten passages are embedded again; queries stay known.
	s.ForgetPassages()
	s.ResetMisses()
	if err := doJSON(context.Background(), "POST", s.URL+"/v1/embeddings", map[string]any{"input": []string{"abc", "q1"}, "model": "m"}, &resp); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"abc", "de", "abc"}) || s.Misses() != 1 || !slices.Equal(resp.Data[1].Embedding, []float32{9, 9}) {
		t.Fatalf("after ForgetPassages: embedder asked %v, %d misses, answer %+v", asked, s.Misses(), resp.Data)
	}
	if err := doJSON(context.Background(), "POST", s.URL+"/v1/embeddings", map[string]any{"input": 5}, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad input: %v", err)
	}
	if d, err := s.RoundTrip(context.Background(), "q1", 5); err != nil || d <= 0 {
		t.Fatalf("round trip %s %v", d, err)
	}
}

func TestStatsHelpers(t *testing.T) {
	if got := spread([]float64{3, 1, 2}, "%.1f"); got != "2.0 (1.0–3.0)" {
		t.Errorf("spread = %q", got)
	}
	if got := spread([]float64{4}, "%.0f"); got != "4" {
		t.Errorf("spread one = %q", got)
	}
	if got := ratios([]float64{2, 3}, []float64{4, 0}); !slices.Equal(got, []float64{0.5}) {
		t.Errorf("ratios = %v", got)
	}
	a, b := fit([]float64{1, 2, 3}, []float64{3, 5, 7})
	if a < 0.999 || a > 1.001 || b < 1.999 || b > 2.001 {
		t.Errorf("fit = %f + %f x", a, b)
	}
	if got := pctl([]time.Duration{5, 1, 4, 2, 3}, 50); got != 3 {
		t.Errorf("p50 = %d", got)
	}
	docs := []Doc{{ID: "a", Vector: []float32{1, 0}}, {ID: "b", Vector: []float32{0.6, 0.8}}, {ID: "c", Vector: []float32{0, 1}}}
	if got := exactTopK(docs, []float32{0, 1}, 2); !slices.Equal(got, []string{"c", "b"}) {
		t.Errorf("exactTopK = %v", got)
	}
	if got := overlap([]string{"c", "x"}, []string{"c", "b"}); got != 0.5 {
		t.Errorf("overlap = %f", got)
	}
	if b1, b2 := bucketOf("doc1"), bucketOf("doc1"); b1 != b2 || b1 < 0 || b1 >= 100 {
		t.Errorf("bucketOf = %d %d", b1, b2)
	}
	n := 0
	for i := 0; i < 10000; i++ {
		if bucketOf(count(i)+"x") < 20 {
			n++
		}
	}
	if n < 1800 || n > 2200 {
		t.Errorf("bucket < 20 holds %d of 10000, want about 2000", n)
	}
}

// TestReport renders a report with two systems and a growth run and checks
// the Markdown's figures and that the plots are PNG images.
func TestReport(t *testing.T) {
	lat := func(p50 time.Duration, stub time.Duration) []Lat {
		return []Lat{{P50: p50, P99: 2 * p50, Stub: stub}, {P50: p50 + time.Millisecond, P99: 3 * p50, Stub: stub}}
	}
	w := &Workload{Name: "SciFact", Docs: 100, Queries: 2, QueryIDs: []string{"1", "2"}, Order: []string{"najdi", "Weaviate"},
		Systems: map[string]*SystemResult{
			"najdi": {Ingest: 2 * time.Second, RSS: 100 << 20, RSSSettled: 90 << 20, RSSQueried: 150 << 20, Disk: 50 << 20,
				Latency: map[Kind][]Lat{Keyword: lat(2*time.Millisecond, 0), Hybrid: lat(5*time.Millisecond, time.Millisecond)},
				QPS:     map[Kind][]float64{Keyword: {800, 900}}, NDCG: map[Kind]float64{Keyword: 0.7}, Recall: map[Kind]float64{Keyword: 0.8}},
			"Weaviate": {Ingest: 4 * time.Second, RSS: 400 << 20, RSSSettled: 360 << 20, RSSQueried: 250 << 20, Disk: 80 << 20,
				Latency: map[Kind][]Lat{Keyword: lat(4*time.Millisecond, 0), Hybrid: lat(2*time.Millisecond, 0)},
				QPS:     map[Kind][]float64{Keyword: {400, 300}}, NDCG: map[Kind]float64{Keyword: 0.6}, Recall: map[Kind]float64{Keyword: 0.7}},
		}}
	r := &Report{Config: Config{Command: "najdi-bench peers -x", Repeats: 2, SatClients: 4, SatTime: time.Second, Settle: 70 * time.Second}, Start: time.Now(), Machine: "test box",
		Workloads: []*Workload{w},
		Scale: []ScalePoint{
			{N: 100000, Queries: 50, Latency: map[Kind]time.Duration{Vector: 2 * time.Millisecond, Hybrid: 4 * time.Millisecond}, RSS: 200 << 20, Disk: 100 << 20, Recall: 0.97},
			{N: 200000, Latency: map[Kind]time.Duration{Vector: 3 * time.Millisecond, Hybrid: 6 * time.Millisecond}, RSS: 300 << 20, Disk: 200 << 20, Recall: 0.96},
		}}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "discussion.md"), []byte("## Discussion\n\nWhy.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"`najdi-bench peers -x`", "test box",
		"| najdi | 2.00 s | 50 |  | 100 | 90 | 150 | 50 |", "| Weaviate | 4.00 s | 25 | 0.50 | 400 | 360 | 250 | 80 |",
		"| keyword | Weaviate | 4.50 (4.00–5.00) |", // median and spread of two repetitions
		"| hybrid | najdi | 5.50 (5.00–6.00); net 4.50 (4.00–5.00) |",
		"| keyword | Weaviate | 350 (300–400) | 2.50 (2.00–3.00) |",
		"- SciFact, hybrid p50: najdi/Weaviate = 1.83", // a loss is reported: net 4 and 5 ms against 2 and 3
		"| 200k |", "at 10M ≈ 202 ms", // hybrid 4 ms at 100k, +2 ms per 100k
		"## Discussion", "over 50 queries",
		// goals: keyword 2,3 ms against 4,5 (0.50, 0.60: median 0.55 > ½), QPS 800,900 against 400,300,
		// ingest 2 s against 4 s, RSS 100 against 400 MiB (90 against 360
		// after the idle time, 150 against 250 after the queries)
		"| keyword p50 | Weaviate | 0.55 (0.50–0.60) | ≤ 0.50 | no |",
		"| keyword QPS | Weaviate | 2.50 (2.00–3.00) | ≥ 5.00 | no |",
		"| bulk ingest time with vectors given | Weaviate | 0.50 | ≤ 0.50 | yes |",
		"| RSS per chunk after ingest | Weaviate | 0.25 | ≤ 0.50 | yes |",
		"| RSS per chunk after the idle time | Weaviate | 0.25 | ≤ 0.50 | yes |",
		"| RSS per chunk after the queries | Weaviate | 0.60 | ≤ 0.50 | no |",
		"stayed idle for 1m10s before the warm-up",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if i := strings.Index(string(md), "%!"); i >= 0 {
		t.Errorf("report has a formatting error: %s", md[i:min(len(md), i+40)])
	}
	for _, f := range []string{"latency-0.png", "growth.png"} {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
			t.Errorf("%s: %v", f, b)
		}
	}
}

// TestLatNet: the time net of query embedding is the per-query figure when
// the server reported its embedding time, else P50 minus the stub.
func TestLatNet(t *testing.T) {
	for _, tc := range []struct {
		l    Lat
		want time.Duration
	}{
		{Lat{P50: 5 * time.Millisecond, Stub: time.Millisecond}, 4 * time.Millisecond},
		{Lat{P50: 5 * time.Millisecond, Stub: time.Millisecond, ExEmbedP50: 3 * time.Millisecond}, 3 * time.Millisecond},
		{Lat{P50: time.Millisecond, Stub: 2 * time.Millisecond}, 0},
	} {
		if got := tc.l.Net(); got != tc.want {
			t.Errorf("%+v: Net %v, want %v", tc.l, got, tc.want)
		}
	}
}

// TestNajdiRequest: every kind goes to najdi's one collection, so the body
// says which retriever runs (keyword-only and vector-only kinds) and which
// documents a filtered kind allows.
func TestNajdiRequest(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		want string
	}{
		{Keyword, `{"highlight":false,"include_fields":["none"],"max_results":10,"query":"q","retrievers":"keyword"}`},
		{Vector, `{"highlight":false,"include_fields":["none"],"max_results":10,"query":"q","retrievers":"semantic"}`},
		{Hybrid, `{"highlight":false,"include_fields":["none"],"max_results":10,"query":"q"}`},
		{Filter20, `{"filter":{"range":{"bucket":{"lt":20}}},"highlight":false,"include_fields":["none"],"max_results":10,"query":"q"}`},
		{Filter1, `{"filter":{"range":{"bucket":{"lt":1}}},"highlight":false,"include_fields":["none"],"max_results":10,"query":"q"}`},
	} {
		got, err := json.Marshal(najdiRequest(tc.kind, "q", 10))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: %s, want %s", tc.kind, got, tc.want)
		}
	}
}
