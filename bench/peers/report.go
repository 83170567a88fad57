package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Lat is one repetition's latency of one kind of query on one system.
type Lat struct {
	// P50, P99 are client-side wall times (request sent → answer decoded).
	P50, P99 time.Duration
	// TookP50 is the median of the time the server reports (0: none).
	TookP50 time.Duration
	// Stub is the embedding stub's round trip included in najdi's times
	// (najdi embeds the query through it); 0 elsewhere.
	Stub time.Duration
	// ExEmbedP50 is the median over queries of the client-side time minus
	// the query-embedding time the server reports (najdi's
	// metadata.timings.embed_ms, which includes its call to the stub);
	// 0 when the server reports none.
	ExEmbedP50 time.Duration
}

// Net is P50 without query embedding: ExEmbedP50 when the server reported
// its embedding time, else P50 without the stub round trip.
func (l Lat) Net() time.Duration {
	if l.ExEmbedP50 > 0 {
		return l.ExEmbedP50
	}
	return max(0, l.P50-l.Stub)
}

// SystemResult is what one system measured on one workload.
type SystemResult struct {
	Err           string
	Ingest        time.Duration
	IngestKeyword time.Duration // najdi: keyword-only collection
	Optimize      time.Duration // Elasticsearch/OpenSearch force merge
	// Quiet is how long the system kept working in the background after
	// its bulk load (merges, index builds) before the next system's load
	// began (waitQuiet).
	Quiet     time.Duration
	RSS, Disk int64 // read 2 s after the load
	// RSSSettled is the RSS after the idle time that follows every load
	// (Config.Settle), before the warm-up queries; RSSQueried after the
	// last timed run.
	RSSSettled, RSSQueried int64
	Latency                map[Kind][]Lat
	QPS                    map[Kind][]float64
	Results                map[Kind][][]string // first repetition, per query
	NDCG, Recall           map[Kind]float64
	ExactRecall            float64 // vector recall@10 against exact search
}

// Workload is one data set's results.
type Workload struct {
	Name     string
	Docs     int
	Queries  int
	QueryIDs []string
	Order    []string
	Systems  map[string]*SystemResult
	// ExactTime is the time of one exact (brute-force) vector search.
	ExactTime time.Duration
	// stubRTT is the stub's round trip, subtracted from najdi's times of the
	// kinds that embed a query.
	stubRTT time.Duration
}

// ScalePoint is one size of the najdi growth run.
type ScalePoint struct {
	N         int
	Queries   int           // timed queries per kind
	Ingest    time.Duration // of the chunks added at this step (both collections)
	Latency   map[Kind]time.Duration
	Stub      time.Duration
	Recall    float64       // vector recall@10 vs exact
	Exact     time.Duration // one exact search, Go brute force, one core
	RSS, Disk int64
}

// Report is the whole benchmark's result.
type Report struct {
	Config     Config
	Start, End time.Time
	Machine    string
	LoadStart  string
	// LoadEnd is the load average when the report was last written.
	LoadEnd string
	StubRTT time.Duration
	// Vectors says how the vectors were made.
	Vectors   string
	Settings  [][2]string
	Workloads []*Workload
	Scale     []ScalePoint
	Notes     []string
	// Discussion is appended verbatim (bench/peers/discussion.md).
	Discussion string
}

func newReport(cfg Config) *Report {
	return &Report{Config: cfg, Start: time.Now().UTC(), Machine: machine(), LoadStart: loadAvg()}
}

func machine() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "model name") {
				cpu = strings.TrimSpace(line[strings.Index(line, ":")+1:])
				break
			}
		}
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.TrimPrefix(strings.Split(string(data), "\n")[0], "MemTotal:"), "%d", &kb)
		mem = fmt.Sprintf(", %.0f GiB memory", float64(kb)/(1<<20))
	}
	kernel := ""
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		kernel = ", " + strings.TrimSpace(string(out))
	}
	return fmt.Sprintf("%s, %d cores%s%s, %s", cpu, runtime.NumCPU(), mem, kernel, runtime.Version())
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond))
}

func mib(b int64) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", float64(b)/(1<<20))
}

// spread formats the median and the min–max of values over repetitions.
func spread(vs []float64, format string) string {
	if len(vs) == 0 {
		return "—"
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if len(s) == 1 {
		return fmt.Sprintf(format, med)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", med, s[0], s[len(s)-1])
}

// latVals returns a per-repetition value of a system's latencies.
func latVals(ls []Lat, f func(Lat) time.Duration) []float64 {
	out := make([]float64, len(ls))
	for i, l := range ls {
		out[i] = float64(f(l)) / float64(time.Millisecond)
	}
	return out
}

// ratios returns najdi/peer per repetition (same repetition on both sides).
func ratios(a, b []float64) []float64 {
	var out []float64
	for i := 0; i < len(a) && i < len(b); i++ {
		if b[i] > 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}

// mdWriter accumulates markdown.
type mdWriter struct{ strings.Builder }

func (b *mdWriter) p(format string, args ...any) { fmt.Fprintf(b, format, args...) }

// Markdown renders the report.
func (r *Report) Markdown() string {
	b := &mdWriter{}
	r.header(b)
	r.settings(b)
	for wi, w := range r.Workloads {
		b.p("## %s: %d documents, %d timed queries per kind\n\n", w.Name, w.Docs, len(w.QueryIDs))
		ingestTable(b, w)
		latencyTable(b, w)
		qpsTable(b, w)
		b.p("\n![latency](latency-%d.png)\n\n", wi)
		qualityTable(b, w)
		exactTable(b, w)
		goals(b, w)
	}
	r.growth(b)
	r.losses(b)
	if r.Discussion != "" {
		b.p("%s\n", strings.TrimSpace(r.Discussion))
	}
	return b.String()
}

// header writes the title, command, date, machine and method.
func (r *Report) header(b *mdWriter) {
	p := b.p
	p("# najdi and its peers, side by side\n\n")
	p("Generated by `bench/peers` (`najdi-bench peers`). Every figure below comes from one run of the command below on the machine below; ratios najdi/peer compare figures of the same run and repetition.\n\n")
	p("- **Command:** `%s`\n", r.Config.Command)
	p("- **Date:** %s – %s (UTC)\n", r.Start.Format("2006-01-02 15:04"), r.End.Format("15:04"))
	p("- **Machine:** %s. Load average %s at the start of the run and %s at its end, on %d cores; the run's own servers and load generator count in it. Absolute times depend on the machine and on whatever else runs on it; the systems take turns query by query, so the ratios najdi/peer are the figures to read.\n", r.Machine, r.LoadStart, r.LoadEnd, runtime.NumCPU())
	p("- **Vectors:** %s\n", r.Vectors)
	p("- **Same vectors everywhere:** every system gets the same precomputed vectors; no system embeds anything during the timed runs. najdi receives them through a local OpenAI-compatible stub (its remote embedding endpoint), so its vector, hybrid and filtered times include a call to the stub (round trip p50 %s ms measured from the benchmark's process); the figures marked *net* exclude query embedding: per query, the client-side time minus the embedding time najdi reports (`metadata.timings.embed_ms`: the call to the stub and decoding its answer), or, in a run made before najdi's time was read, minus the stub's round trip.\n", ms(r.StubRTT))
	p("- **Repetitions:** %d; a figure shown as `m (a–b)` is the median over repetitions with their min–max.\n", r.Config.Repeats)
	p("- **Concurrency:** latency at concurrency 1; QPS with %d client goroutines for %s per system, kind and repetition (loopback HTTP, bounded runs). The load generator shares the two cores with the systems: each system's search requests (JSON bodies, Weaviate's gRPC messages) are encoded once and reused, and each answer is decoded in one pass.\n", r.Config.SatClients, r.Config.SatTime)
	p("- **Loads one at a time:** each system's bulk load starts once the system loaded before it has stopped working in the background (at most %.0f %% of a core over %s; merges, index builds), so that no load shares the cores with another system's leftover work; the ingest table notes that time where it was long.\n", 100*quietShare, quietWindow)
	if r.Config.Settle > 0 {
		p("- **After the bulk loads** every system stayed idle for %s before the warm-up and the timed runs, so that the background work a load leaves is done, as it would be in service: Weaviate flushes its memtables to disk segments after 60 s without writes (its BM25 answered SciFact queries in 31–41 ms p50 right after the load, 1.3 ms after 70 s idle, in runs on this machine), najdi merges an idle collection's segments of comparable size after 10 s, Elasticsearch and OpenSearch were force-merged after their loads.\n", r.Config.Settle)
	}
	p("\n")
	if len(r.Notes) > 0 {
		p("**Notes from the run:**\n\n")
		for _, n := range r.Notes {
			p("- %s\n", n)
		}
		p("\n")
	}
}

// settings writes each system's configuration.
func (r *Report) settings(b *mdWriter) {
	p := b.p
	p("## Systems and their settings\n\n")
	for _, s := range r.Settings {
		p("- **%s**: %s.\n", s[0], s[1])
	}
	p("\n")
}

// ingestTable writes ingest time, memory and disk per system.
func ingestTable(b *mdWriter, w *Workload) {
	p := b.p
	nj := w.Systems["najdi"]
	p("### Ingest with vectors given, memory and disk\n\n")
	p("| system | ingest | docs/s | najdi/peer time | RSS after ingest (MiB) | RSS after the idle time (MiB) | RSS after the queries (MiB) | disk (MiB) | note |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, name := range w.Order {
		sr := w.Systems[name]
		if sr.Err != "" {
			p("| %s | failed: %s | | | | | | | |\n", name, sr.Err)
			continue
		}
		ratio := ""
		if nj != nil && name != "najdi" && sr.Ingest > 0 {
			ratio = fmt.Sprintf("%.2f", nj.Ingest.Seconds()/sr.Ingest.Seconds())
		}
		note := ""
		switch {
		case sr.IngestKeyword > 0:
			note = fmt.Sprintf("keyword-only collection: %.2f s", sr.IngestKeyword.Seconds())
		case sr.Optimize > 0:
			note = fmt.Sprintf("+ force merge %.2f s (not in the ingest time)", sr.Optimize.Seconds())
		case sr.RSS == 0:
			note = "in the benchmark's process: no RSS of its own"
		}
		if sr.Quiet >= 2*quietWindow {
			if note != "" {
				note += "; "
			}
			note += fmt.Sprintf("then %s of background work (merges, index builds) before the next load", sr.Quiet.Round(time.Second))
		}
		p("| %s | %.2f s | %.0f | %s | %s | %s | %s | %s | %s |\n", name, sr.Ingest.Seconds(), float64(w.Docs)/sr.Ingest.Seconds(), ratio, mib(sr.RSS), mib(sr.RSSSettled), mib(sr.RSSQueried), mib(sr.Disk), note)
	}
}

// latencyTable writes the latency percentiles per kind and system.
func latencyTable(b *mdWriter, w *Workload) {
	p := b.p
	nj := w.Systems["najdi"]
	p("\n### Latency at concurrency 1 (ms)\n\n")
	p("| kind | system | p50 | p99 | server-reported p50 | najdi/peer p50 |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, k := range Kinds {
		for _, name := range w.Order {
			sr := w.Systems[name]
			ls := sr.Latency[k]
			if len(ls) == 0 {
				continue
			}
			p50 := spread(latVals(ls, func(l Lat) time.Duration { return l.P50 }), "%.2f")
			if name == "najdi" && ls[0].Stub > 0 {
				p50 += "; net " + spread(latVals(ls, Lat.Net), "%.2f")
			}
			took := spread(latVals(ls, func(l Lat) time.Duration { return l.TookP50 }), "%.2f")
			if ls[0].TookP50 == 0 {
				took = "—"
			}
			ratio := ""
			if nj != nil && name != "najdi" && len(nj.Latency[k]) > 0 {
				ratio = spread(ratios(latVals(nj.Latency[k], Lat.Net), latVals(ls, func(l Lat) time.Duration { return l.P50 })), "%.2f")
			}
			p("| %s | %s | %s | %s | %s | %s |\n", k, name, p50, spread(latVals(ls, func(l Lat) time.Duration { return l.P99 }), "%.2f"), took, ratio)
		}
	}
	p("\nnajdi/peer uses najdi's net p50 (query embedding excluded) for the kinds that embed a query.\n\n")
}

// qpsTable writes the saturation throughput per kind and system.
func qpsTable(b *mdWriter, w *Workload) {
	p := b.p
	nj := w.Systems["najdi"]
	p("### Throughput at saturation (queries/s)\n\n| kind | system | QPS | najdi/peer |\n| --- | --- | --- | --- |\n")
	for _, k := range []Kind{Keyword, Hybrid} {
		for _, name := range w.Order {
			q := w.Systems[name].QPS[k]
			if len(q) == 0 {
				continue
			}
			ratio := ""
			if nj != nil && name != "najdi" {
				ratio = spread(ratios(nj.QPS[k], q), "%.2f")
			}
			p("| %s | %s | %s | %s |\n", k, name, spread(q, "%.0f"), ratio)
		}
	}
}

// qualityTable writes nDCG@10 and recall@10 where the workload has
// judgements.
func qualityTable(b *mdWriter, w *Workload) {
	p := b.p
	if w.Systems[w.Order[0]].NDCG != nil {
		p("### Quality (BEIR SciFact test queries, measured only: no choice was made on them)\n\n| system | nDCG@10 keyword | vector | hybrid | recall@10 keyword | vector | hybrid |\n| --- | --- | --- | --- | --- | --- | --- |\n")
		for _, name := range w.Order {
			sr := w.Systems[name]
			f := func(m map[Kind]float64, k Kind) string {
				if v, ok := m[k]; ok {
					return fmt.Sprintf("%.3f", v)
				}
				return "—"
			}
			p("| %s | %s | %s | %s | %s | %s | %s |\n", name, f(sr.NDCG, Keyword), f(sr.NDCG, Vector), f(sr.NDCG, Hybrid), f(sr.Recall, Keyword), f(sr.Recall, Vector), f(sr.Recall, Hybrid))
		}
		p("\nnajdi indexes its own chunks of ≤ 256 model tokens (each chunk with the vector of its own text, made the same way, through the stub); the peers hold one vector per document (title and abstract).\n\n")
	}
}

// exactTable writes the vector recall against exact search.
func exactTable(b *mdWriter, w *Workload) {
	p := b.p
	if w.ExactTime > 0 {
		p("### Vector recall@10 against exact search\n\nExact search (brute force over all vectors in Go, one core, in the benchmark's process): %s ms per query.\n\n| system | recall@10 vs exact | vector p50 (ms) | exact / system speed |\n| --- | --- | --- | --- |\n", ms(w.ExactTime))
		for _, name := range w.Order {
			sr := w.Systems[name]
			ls := sr.Latency[Vector]
			if len(ls) == 0 {
				continue
			}
			net := ls[0].Net()
			if name != "najdi" {
				net = ls[0].P50
			}
			p("| %s | %.3f | %s | %.1f× |\n", name, sr.ExactRecall, ms(net), float64(w.ExactTime)/float64(max(net, time.Microsecond)))
		}
		p("\n")
	}
}

// growth writes najdi's growth run.
func (r *Report) growth(b *mdWriter) {
	p := b.p
	if len(r.Scale) > 0 {
		p("## Growth of najdi with the collection size (static vectors)\n\n")
		p("najdi's large hybrid collection grown step by step after the peers were stopped (vector-only queries with `retrievers: \"semantic\"`); latency p50 at concurrency 1 over %d queries, net of the stub round trip; RSS of the server process and disk of its data directory (it started from the %s chunks of the side-by-side run; the SciFact collections were deleted before the large collection was loaded).\n\n", r.Scale[0].Queries, count(r.Config.Large))
		p("| chunks | ingest of the step | vector p50 | hybrid p50 | filtered 1%% p50 | recall@10 vs exact | exact search | RSS (MiB) | disk (MiB) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, pt := range r.Scale {
			net := func(k Kind) string { return ms(max(0, pt.Latency[k]-pt.Stub)) }
			ing := "— (loaded above)"
			if pt.Ingest > 0 {
				ing = fmt.Sprintf("%.0f s", pt.Ingest.Seconds())
			}
			p("| %s | %s | %s | %s | %s | %.3f | %s | %s | %s |\n", count(pt.N), ing, net(Vector), net(Hybrid), net(Filter1), pt.Recall, ms(pt.Exact), mib(pt.RSS), mib(pt.Disk))
		}
		if len(r.Scale) >= 2 {
			p("\nLeast-squares lines through the points, extrapolated to 10M chunks (an estimate from %s–%s, not a measurement):\n\n", count(r.Scale[0].N), count(r.Scale[len(r.Scale)-1].N))
			xs := make([]float64, len(r.Scale))
			for i, pt := range r.Scale {
				xs[i] = float64(pt.N)
			}
			line := func(name string, f func(ScalePoint) float64, unit string) {
				ys := make([]float64, len(r.Scale))
				for i, pt := range r.Scale {
					ys[i] = f(pt)
				}
				a, b := fit(xs, ys)
				p("- %s: %.3g %s per 100k chunks; at 10M ≈ %.0f %s\n", name, b*1e5, unit, a+b*1e7, unit)
			}
			line("hybrid p50", func(pt ScalePoint) float64 { return float64(max(0, pt.Latency[Hybrid]-pt.Stub)) / 1e6 }, "ms")
			line("vector p50", func(pt ScalePoint) float64 { return float64(max(0, pt.Latency[Vector]-pt.Stub)) / 1e6 }, "ms")
			line("RSS", func(pt ScalePoint) float64 { return float64(pt.RSS) / (1 << 20) }, "MiB")
			line("disk", func(pt ScalePoint) float64 { return float64(pt.Disk) / (1 << 20) }, "MiB")
		}
		p("\n![growth](growth.png)\n\n")
	}
}

// losses lists every figure where najdi does worse than a peer.
func (r *Report) losses(b *mdWriter) {
	p := b.p
	p("## Where najdi loses\n\n")
	lost := false
	for _, w := range r.Workloads {
		nj := w.Systems["najdi"]
		if nj == nil {
			continue
		}
		for _, name := range w.Order {
			if name == "najdi" {
				continue
			}
			sr := w.Systems[name]
			for _, k := range Kinds {
				a, b := latVals(nj.Latency[k], Lat.Net), latVals(sr.Latency[k], func(l Lat) time.Duration { return l.P50 })
				if rs := ratios(a, b); len(rs) > 0 && median(rs) > 1 {
					lost = true
					p("- %s, %s p50: najdi/%s = %.2f\n", w.Name, k, name, median(rs))
				}
			}
			for _, k := range []Kind{Keyword, Hybrid} {
				if rs := ratios(nj.QPS[k], sr.QPS[k]); len(rs) > 0 && median(rs) < 1 {
					lost = true
					p("- %s, %s QPS: najdi/%s = %.2f\n", w.Name, k, name, median(rs))
				}
			}
			if sr.Ingest > 0 && nj.Ingest > sr.Ingest {
				lost = true
				p("- %s, ingest time: najdi/%s = %.2f\n", w.Name, name, nj.Ingest.Seconds()/sr.Ingest.Seconds())
			}
			if sr.RSS > 0 && nj.RSS > sr.RSS {
				lost = true
				p("- %s, RSS: najdi/%s = %.2f\n", w.Name, name, float64(nj.RSS)/float64(sr.RSS))
			}
			for _, k := range []Kind{Keyword, Vector, Hybrid} {
				if v, ok := sr.NDCG[k]; ok && nj.NDCG[k] < v {
					lost = true
					p("- %s, nDCG@10 %s: najdi %.3f < %s %.3f\n", w.Name, k, nj.NDCG[k], name, v)
				}
			}
		}
	}
	if !lost {
		p("Nowhere in this run.\n")
	}
	p("\n")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// fit returns the least-squares line y = a + b·x.
func fit(xs, ys []float64) (a, b float64) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return sy / n, 0
	}
	b = (n*sxy - sx*sy) / den
	return (sy - b*sx) / n, b
}

// Write writes REPORT.md and the plots into dir.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r.End = time.Now().UTC()
	r.LoadEnd = loadAvg()
	if r.Config.Work != "" {
		// The figures, to render the report again (Render) after its
		// text changes; not committed.
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("report json: %w", err)
		}
		if err := os.WriteFile(filepath.Join(r.Config.Work, "report.json"), data, 0o644); err != nil {
			return fmt.Errorf("report json: %w", err)
		}
	}
	return r.render(dir)
}

// Render writes REPORT.md and the plots into dir again from the
// report.json a run left in its work directory.
func Render(jsonPath, dir string) error {
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("render %s: %w", jsonPath, err)
	}
	return r.render(dir)
}

// render writes REPORT.md and the plots into dir.
func (r *Report) render(dir string) error {
	if data, err := os.ReadFile(filepath.Join(dir, "discussion.md")); err == nil {
		r.Discussion = string(data)
	}
	for i, w := range r.Workloads {
		if err := latencyPlot(w, filepath.Join(dir, fmt.Sprintf("latency-%d.png", i))); err != nil {
			return err
		}
	}
	if len(r.Scale) > 0 {
		if err := growthPlot(r.Scale, filepath.Join(dir, "growth.png")); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "REPORT.md"), []byte(r.Markdown()), 0o644)
}

// latencyPlot draws p50 latency per kind, one bar group per kind, one bar
// colour per system (najdi net of the stub round trip).
func latencyPlot(w *Workload, path string) error {
	p := plot.New()
	p.Title.Text = w.Name + ": p50 latency at concurrency 1"
	p.Y.Label.Text = "ms (first repetition)"
	width := vg.Points(10)
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	n := len(w.Order)
	for i, name := range w.Order {
		sr := w.Systems[name]
		vals := make(plotter.Values, len(Kinds))
		for j, k := range Kinds {
			if ls := sr.Latency[k]; len(ls) > 0 {
				vals[j] = float64(ls[0].Net()) / 1e6
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		bars.Offset = width * vg.Length(float64(i)-float64(n-1)/2)
		p.Add(bars)
		p.Legend.Add(name, bars)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Y.Max *= 1.3
	p.NominalX(names...)
	return savePNG(p, path, 7*vg.Inch, 3.5*vg.Inch)
}

// growthPlot draws najdi's latency and RSS against the collection size.
func growthPlot(pts []ScalePoint, path string) error {
	p := plot.New()
	p.Title.Text = "najdi growth: p50 latency (net) and RSS/100"
	p.X.Label.Text = "chunks"
	p.Y.Label.Text = "ms  |  MiB/100"
	series := []lineSeries[ScalePoint]{
		{"vector p50 ms", func(pt ScalePoint) float64 { return float64(max(0, pt.Latency[Vector]-pt.Stub)) / 1e6 }},
		{"hybrid p50 ms", func(pt ScalePoint) float64 { return float64(max(0, pt.Latency[Hybrid]-pt.Stub)) / 1e6 }},
		{"filtered 1% p50 ms", func(pt ScalePoint) float64 { return float64(max(0, pt.Latency[Filter1]-pt.Stub)) / 1e6 }},
		{"RSS MiB/100", func(pt ScalePoint) float64 { return float64(pt.RSS) / (1 << 20) / 100 }},
	}
	return saveLines(p, pts, func(pt ScalePoint) int { return pt.N }, series, path)
}

// lineSeries is one line of a plot over collection sizes: its legend and
// its value at a point.
type lineSeries[P any] struct {
	name string
	f    func(P) float64
}

// saveLines draws every series as a line with points over pts (x: the
// size n of each point), in plotutil's colours with the legend top left,
// and saves the plot as a PNG at path.
func saveLines[P any](p *plot.Plot, pts []P, n func(P) int, series []lineSeries[P], path string) error {
	for i, s := range series {
		xy := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			xy[j].X, xy[j].Y = float64(n(pt)), s.f(pt)
		}
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		sc.Color = plotutil.Color(i)
		p.Add(l, sc)
		p.Legend.Add(s.name, l, sc)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return savePNG(p, path, 6*vg.Inch, 3.5*vg.Inch)
}

func savePNG(p *plot.Plot, path string, w, h vg.Length) error {
	p.BackgroundColor = color.White
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// goal is one of issue 17's goals: a ratio najdi/peer and its bound.
type goal struct {
	name   string
	peer   string
	ratios []float64
	bound  float64
	atMost bool // the ratio must be ≤ bound (else ≥ bound)
}

// goals writes issue 17's goals as ratios of this run, with whether each
// is met (on the median over repetitions).
func goals(b *mdWriter, w *Workload) {
	nj := w.Systems["najdi"]
	if nj == nil {
		return
	}
	p50 := func(l Lat) time.Duration { return l.P50 }
	var gs []goal
	add := func(name, peer string, rs []float64, bound float64, atMost bool) {
		if len(rs) > 0 {
			gs = append(gs, goal{name, peer, rs, bound, atMost})
		}
	}
	for _, name := range w.Order {
		sr := w.Systems[name]
		switch name {
		case "Weaviate":
			add("hybrid p50 (net of query embedding)", name, ratios(latVals(nj.Latency[Hybrid], Lat.Net), latVals(sr.Latency[Hybrid], p50)), 1.0/3, true)
			add("keyword p50", name, ratios(latVals(nj.Latency[Keyword], Lat.Net), latVals(sr.Latency[Keyword], p50)), 0.5, true)
			add("keyword QPS", name, ratios(nj.QPS[Keyword], sr.QPS[Keyword]), 5, false)
			add("vector-only p50 (net)", name, ratios(latVals(nj.Latency[Vector], Lat.Net), latVals(sr.Latency[Vector], p50)), 1, true)
			if sr.Ingest > 0 && nj.Ingest > 0 {
				add("bulk ingest time with vectors given", name, []float64{nj.Ingest.Seconds() / sr.Ingest.Seconds()}, 0.5, true)
			}
			if sr.RSS > 0 && nj.RSS > 0 {
				add("RSS per chunk after ingest", name, []float64{float64(nj.RSS) / float64(sr.RSS)}, 0.5, true)
			}
			if sr.RSSSettled > 0 && nj.RSSSettled > 0 {
				add("RSS per chunk after the idle time", name, []float64{float64(nj.RSSSettled) / float64(sr.RSSSettled)}, 0.5, true)
			}
			if sr.RSSQueried > 0 && nj.RSSQueried > 0 {
				add("RSS per chunk after the queries", name, []float64{float64(nj.RSSQueried) / float64(sr.RSSQueried)}, 0.5, true)
			}
		case "Elasticsearch", "OpenSearch":
			add("hybrid p50 (net of query embedding)", name, ratios(latVals(nj.Latency[Hybrid], Lat.Net), latVals(sr.Latency[Hybrid], p50)), 1.0/5, true)
		}
	}
	if len(gs) == 0 {
		return
	}
	b.p("### Issue 17's goals, as ratios najdi/peer of this run\n\n| goal | peer | najdi/peer | bound | met |\n| --- | --- | --- | --- | --- |\n")
	for _, g := range gs {
		m := median(g.ratios)
		met := m >= g.bound
		op := "≥"
		if g.atMost {
			met, op = m <= g.bound, "≤"
		}
		verdict := "no"
		if met {
			verdict = "yes"
		}
		b.p("| %s | %s | %s | %s %.2f | %s |\n", g.name, g.peer, spread(g.ratios, "%.2f"), op, g.bound, verdict)
	}
	b.p("\nThe ingest and RSS ratios are of one ingest per system (the systems hold the same documents, so the RSS ratio is the ratio per chunk); the others are the median over repetitions with their min–max. The goal of hybrid p50 *including* query embedding (≤ 5 ms for short queries on 100k chunks) is a najdi-only figure: see the query-embedding section of bench/README.md.\n\n")
}
