package peers

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// The growth workload grows one najdi hybrid collection of the large
// chunks (LargeTexts, static vectors) step by step, in two phases run as
// separate processes so that the long ingest stays outside the measured
// window:
//
//   - GrowIngest opens the engine (embedded, in process) on a kept data
//     directory, adds the chunks the collection lacks up to a size, merges
//     the collection to one segment, and writes the exact top-10 of every
//     query (brute force) next to the data;
//   - GrowMeasure opens the engine on that directory, times the queries of
//     every kind at concurrency 1 (the semantic retriever alone for
//     "vector", through SearchRequest.Retrievers, so one collection serves
//     all kinds), reads vector recall@10 against the exact top-10, and
//     breaks the process's memory down after a garbage collection: the Go
//     heap by allocation site (pprof), Pebble's block cache and memtables,
//     file-backed pages, the benchmark's own data.
//
// Both embed through the static vectors in process (staticProvider): no
// stub, no HTTP, so the times are the engine's own (the server adds its
// HTTP and JSON round trip, ~0.1–0.3 ms on loopback).

// GrowthCollection is the id of the growth workload's collection.
const GrowthCollection = "large"

// GrowthConfig configures GrowIngest and GrowMeasure.
type GrowthConfig struct {
	// BEIRDir is the BEIR SciFact directory (the vocabulary and queries).
	BEIRDir string
	// Cache is the cache directory (models, vector caches).
	Cache string
	// Data is the engine's data directory, kept between phases.
	Data string
	// Max is the number of chunks generated (the vector cache's size);
	// sizes are prefixes of them.
	Max int
	// Size is the collection size this phase reaches or measures.
	Size int
	// Queries caps the timed queries per kind.
	Queries int
	// MemoryLimit is the Go soft memory limit of the measure phase (0:
	// none), as `najdi serve --memory-limit`.
	MemoryLimit int64
	// MaxSegments is the engine's Options.MaxSegments in both phases (0:
	// the default, 8): more segments before a background merge means
	// fewer rewrites of the same chunks while the collection grows; the
	// measured state is one segment (MergeNow) unless NoMerge.
	MaxSegments int
	// ProfileKind, when set, writes a CPU profile of the timed queries of
	// that kind next to the data (cpu-<size>-<kind>.pprof).
	ProfileKind string
	// NoMerge leaves the segments as the background merger left them
	// instead of merging the collection to one segment after the ingest.
	NoMerge bool
	// Points is the JSON file that accumulates the measured points.
	Points string
	// Out receives REPORT.md and growth.png (empty: not written).
	Out string
	// Command is the command line, for the report.
	Command string
	// VecCache is the file caching the chunks' static vectors (default:
	// Cache/bench/peers-large-static-<Max>.f32, the peer run's).
	VecCache string
}

func (cfg GrowthConfig) vecCache() string {
	if cfg.VecCache != "" {
		return cfg.VecCache
	}
	return filepath.Join(cfg.Cache, "bench", fmt.Sprintf("peers-large-static-%d.f32", cfg.Max))
}

// staticProvider embeds every collection's chunks and queries with the
// static vectors, in process.
type staticProvider struct{ st *Static }

func (p staticProvider) Embedder(engine.EmbeddingConfig) (engine.Embedder, error) {
	return staticEmb(p), nil
}

type staticEmb struct{ st *Static }

func (s staticEmb) Name() string { return "static-bge-small-en-v1.5" }
func (s staticEmb) Dims() int    { return s.st.Dims() }
func (s staticEmb) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	return staticEmbedder(s.st)(texts, true)
}
func (s staticEmb) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	return staticEmbedder(s.st)(texts, false)
}

// growthCollectionConfig is the hybrid collection of the growth run: the
// default configuration with a remote model (resolved by staticProvider;
// the URL is never called) and the number field of the filtered queries.
func growthCollectionConfig(dims int) engine.CollectionConfig {
	return engine.CollectionConfig{
		EmbeddingConfig: engine.EmbeddingConfig{Remote: &engine.RemoteEmbedding{URL: "http://127.0.0.1:9/v1/embeddings", Model: "precomputed", Dims: dims, BatchSize: 256}},
		Fields:          map[string]engine.FieldSpec{"bucket": {Type: "number"}},
	}
}

func openGrowthEngine(dir string, st *Static, maxSegments int) (*engine.Engine, error) {
	e, err := engine.Open(engine.Options{Dir: dir, Embedders: staticProvider{st}, MaxSegments: maxSegments})
	if err != nil {
		return nil, fmt.Errorf("open engine %s: %w", dir, err)
	}
	return e, nil
}

// growthData loads the static vectors, SciFact's queries and, when docs
// is set, the first cfg.Max large chunks with their cached vectors.
func growthData(cfg GrowthConfig, docs bool) (*Static, []Query, []Doc, error) {
	models, _ := embed.CachePaths(cfg.Cache)
	st, err := LoadStatic(filepath.Join(models, "bge-small-en-v1.5"))
	if err != nil {
		return nil, nil, nil, err
	}
	b, _, qs, err := SciFactStatic(cfg.BEIRDir, st)
	if err != nil {
		return nil, nil, nil, err
	}
	if cfg.Queries > 0 && len(qs) > cfg.Queries {
		qs = qs[:cfg.Queries]
	}
	if !docs {
		return st, qs, nil, nil
	}
	all, err := LargeDocs(LargeTexts(b, cfg.Max, 1), st, cfg.vecCache())
	if err != nil {
		return nil, nil, nil, err
	}
	return st, qs, all, nil
}

// GrowIngest brings the growth collection in cfg.Data to cfg.Size chunks
// (adding those it lacks), merges it to one segment (unless cfg.NoMerge)
// and writes the exact top-10 of the queries at that size.
func GrowIngest(ctx context.Context, cfg GrowthConfig, log io.Writer) error {
	if cfg.Size <= 0 || cfg.Size > cfg.Max {
		return fmt.Errorf("size %d: want 1..%d", cfg.Size, cfg.Max)
	}
	st, qs, all, err := growthData(cfg, true)
	if err != nil {
		return err
	}
	e, err := openGrowthEngine(cfg.Data, st, cfg.MaxSegments)
	if err != nil {
		return err
	}
	defer e.Close()
	coll, err := e.GetCollection(ctx, "", GrowthCollection)
	if errors.Is(err, engine.ErrNotFound) {
		if _, _, err = e.PutCollection(ctx, "", GrowthCollection, growthCollectionConfig(st.Dims())); err != nil {
			return fmt.Errorf("create %s: %w", GrowthCollection, err)
		}
		coll, err = e.GetCollection(ctx, "", GrowthCollection)
	}
	if err != nil {
		return err
	}
	have := int(coll.DocumentCount)
	if have > cfg.Size {
		return fmt.Errorf("%s holds %d chunks, more than -size %d", GrowthCollection, have, cfg.Size)
	}
	t0 := time.Now()
	for lo := have; lo < cfg.Size; lo += najdiBatch {
		part := all[lo:min(lo+najdiBatch, cfg.Size)]
		in := make([]engine.DocumentInput, len(part))
		for i, d := range part {
			in[i] = engine.DocumentInput{DocumentID: d.ID, Sections: []ingest.Section{{Type: "p", Content: d.Text}}, Fields: map[string]any{"bucket": float64(d.Bucket)}}
		}
		res, err := e.Ingest(ctx, "", GrowthCollection, engine.IngestRequest{Documents: in})
		if err != nil {
			return fmt.Errorf("ingest %d..%d: %w", lo, lo+len(part), err)
		}
		if len(res.Errors) > 0 {
			return fmt.Errorf("ingest %d..%d: %d documents refused, first: %+v", lo, lo+len(part), len(res.Errors), res.Errors[0])
		}
		if (lo/najdiBatch)%25 == 0 {
			fmt.Fprintf(log, "  %d/%d chunks, %s\n", lo+len(part), cfg.Size, time.Since(t0).Round(time.Second))
		}
	}
	ing := time.Since(t0)
	fmt.Fprintf(log, "ingested %d chunks in %s\n", cfg.Size-have, ing.Round(time.Second))
	// The exact top-10 of every query over the collection's chunks (brute
	// force), for recall, while the collection merges.
	exact := make([][]string, len(qs))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	var prev growthIngestInfo
	if have == cfg.Size && readJSON(filepath.Join(cfg.Data, fmt.Sprintf("ingest-%d.json", cfg.Size)), &prev) == nil && len(prev.Exact) == len(qs) {
		// Nothing added (a merge of an earlier ingest): its exact top-10
		// and ingest figures stand.
		exact, workers = prev.Exact, 0
		have, ing = prev.From, prev.Ingest
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(qs); i += workers {
				exact[i] = exactTopK(all[:cfg.Size], qs[i].Vector, K)
			}
		}()
	}
	var mergeTime time.Duration
	if !cfg.NoMerge {
		t1 := time.Now()
		if err := e.MergeNow("", GrowthCollection); err != nil {
			wg.Wait()
			return fmt.Errorf("merge: %w", err)
		}
		mergeTime = time.Since(t1)
		fmt.Fprintf(log, "merged to one segment in %s\n", mergeTime.Round(time.Second))
	}
	wg.Wait()
	info := growthIngestInfo{Size: cfg.Size, From: have, MaxSegments: cfg.MaxSegments, Merged: !cfg.NoMerge, Ingest: ing, Merge: mergeTime, Load: loadAvg(), When: time.Now().UTC(), Exact: exact}
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.Data, fmt.Sprintf("ingest-%d.json", cfg.Size)), data, 0o644)
}

// growthIngestInfo is what GrowIngest leaves for GrowMeasure.
type growthIngestInfo struct {
	Size, From    int
	MaxSegments   int
	Merged        bool
	Ingest, Merge time.Duration
	Load          string
	When          time.Time
	Exact         [][]string
}

// GrowthPoint is one measured size of the growth run.
type GrowthPoint struct {
	N           int
	MemoryLimit int64
	Command     string // the measure phase's command line
	When        time.Time
	Load        string // load average at the end of the measurement
	// IngestFrom, Ingest, Merge, IngestLoad describe the ingest phase that
	// brought the collection from IngestFrom to N chunks.
	IngestFrom    int
	Ingest, Merge time.Duration
	IngestLoad    string
	// IngestMaxSegments is GrowthConfig.MaxSegments of that ingest and of
	// the measurement; Merged says the collection was merged to one
	// segment before the measurement (else it holds the segments the
	// background merger left).
	IngestMaxSegments int
	Merged            bool
	Open              time.Duration // engine.Open on the data directory
	Queries           int
	P50, P99          map[Kind]time.Duration
	// Stages holds, per kind, the median over queries of each stage the
	// engine reports (metadata.timings: embed, retrieve, fuse, load,
	// render).
	Stages map[Kind]map[string]time.Duration
	Recall float64       // vector recall@10 against exact search
	Exact  time.Duration // one exact search, Go brute force, one core
	// Memory after the query runs, before and after a forced GC;
	// RSSQueriesAnon is the anonymous part of RSSQueries (the rest is
	// file-backed: the binary and the memory-mapped vector files, page
	// cache the kernel can reclaim).
	RSSQueries, RSSQueriesAnon int64
	// VecFilesOpen is the resident part of the mapped vector files right
	// after the engine opened (before any query), against Mem.VecFiles
	// after the queries: what opening touches and what the queries do.
	VecFilesOpen int64
	Mem          MemBreakdown
	// Disk is the data directory; CollBytes the collection's size_bytes.
	Disk, CollBytes int64
	// HeapTop is the top of the in-use heap profile by allocation site.
	HeapTop string
}

// MemBreakdown splits the process's resident memory.
type MemBreakdown struct {
	// RSS, Anon, File are /proc/self/smaps_rollup's Rss, Anonymous and
	// their difference (file-backed pages: the binary, mapped files).
	RSS, Anon, File int64
	// HeapLive is the Go heap marked live by the GC; HeapObjects the heap
	// objects; GoTotal all memory the Go runtime mapped; GoReleased what
	// it returned to the OS.
	HeapLive, HeapObjects, GoTotal, GoReleased int64
	// PebbleCache and PebbleMemtables are Pebble's memory outside the Go
	// heap.
	PebbleCache, PebbleMemtables int64
	// Bench is the heap the benchmark itself holds (static word table,
	// queries), measured before the engine was opened.
	Bench int64
	// VecFiles is the resident part of the memory-mapped vector files of
	// the segments (*.f32 mappings in /proc/self/smaps), within File.
	VecFiles int64
}

// mappedRSS returns the resident bytes of the process's file mappings
// whose path ends in suffix (/proc/self/smaps).
func mappedRSS(suffix string) int64 {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if !strings.HasSuffix(fs[0], ":") {
			// A mapping's header: address range, perms, offset, device,
			// inode and, for a file, its path.
			in = len(fs) >= 6 && strings.HasSuffix(fs[5], suffix)
			continue
		}
		if in && fs[0] == "Rss:" && len(fs) >= 2 {
			kb, _ := strconv.ParseInt(fs[1], 10, 64)
			total += kb << 10
		}
	}
	return total
}

func smapsRollup() (rss, anon int64) {
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fs[1], 10, 64)
		switch fs[0] {
		case "Rss:":
			rss = kb << 10
		case "Anonymous:":
			anon = kb << 10
		}
	}
	return rss, anon
}

func goMem() (live, objects, total, released int64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64()), int64(s[2].Value.Uint64()), int64(s[3].Value.Uint64())
}

func collectGarbage() {
	runtime.GC()
	debug.FreeOSMemory()
	time.Sleep(500 * time.Millisecond)
}

// GrowMeasure measures the growth collection in cfg.Data at its current
// size (GrowIngest's) and appends the point to cfg.Points; the heap
// profile goes next to the data (heap-<size>.pprof).
func GrowMeasure(ctx context.Context, cfg GrowthConfig, log io.Writer) (*GrowthPoint, error) {
	st, qs, _, err := growthData(cfg, false)
	if err != nil {
		return nil, err
	}
	var info growthIngestInfo
	data, err := os.ReadFile(filepath.Join(cfg.Data, fmt.Sprintf("ingest-%d.json", cfg.Size)))
	if err != nil {
		return nil, fmt.Errorf("no ingest phase at size %d: %w", cfg.Size, err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, err
	}
	if cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	collectGarbage()
	benchLive, _, _, _ := goMem()
	t0 := time.Now()
	e, err := openGrowthEngine(cfg.Data, st, cfg.MaxSegments)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	pt := &GrowthPoint{N: cfg.Size, MemoryLimit: cfg.MemoryLimit, Open: time.Since(t0), IngestFrom: info.From, Ingest: info.Ingest, Merge: info.Merge, IngestMaxSegments: info.MaxSegments, Merged: info.Merged || info.Merge > 0,
		IngestLoad: info.Load, Queries: len(qs), P50: map[Kind]time.Duration{}, P99: map[Kind]time.Duration{}, Stages: map[Kind]map[string]time.Duration{}}
	coll, err := e.GetCollection(ctx, "", GrowthCollection)
	if err != nil {
		return nil, err
	}
	if int(coll.DocumentCount) != cfg.Size {
		return nil, fmt.Errorf("%s holds %d chunks, not %d", GrowthCollection, coll.DocumentCount, cfg.Size)
	}
	pt.CollBytes = coll.SizeBytes
	pt.VecFilesOpen = mappedRSS(".f32")
	stages := map[string][]time.Duration{}
	search := func(k Kind, q Query) ([]string, error) {
		req := growthRequest(k, q)
		res, err := e.Search(ctx, "", []string{GrowthCollection}, req)
		if err != nil {
			return nil, fmt.Errorf("%s query %s: %w", k, q.ID, err)
		}
		if t := res.Metadata.Timings; t != nil {
			for name, v := range map[string]float64{"embed": t.EmbedMS, "retrieve": t.RetrieveMS, "fuse": t.FuseMS, "load": t.LoadMS, "render": t.RenderMS} {
				stages[name] = append(stages[name], time.Duration(v*float64(time.Millisecond)))
			}
		}
		ids := make([]string, len(res.Documents))
		for i, d := range res.Documents {
			ids[i] = d.DocumentID
		}
		return ids, nil
	}
	// Warm up: every kind, up to 100 queries.
	for _, k := range Kinds {
		for _, q := range qs[:min(100, len(qs))] {
			if _, err := search(k, q); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range Kinds {
		clear(stages)
		ds := make([]time.Duration, 0, len(qs))
		var prof *os.File
		if string(k) == cfg.ProfileKind {
			if prof, err = os.Create(filepath.Join(cfg.Data, fmt.Sprintf("cpu-%d-%s.pprof", cfg.Size, strings.ReplaceAll(string(k), " ", "")))); err != nil {
				return nil, err
			}
			if err := pprof.StartCPUProfile(prof); err != nil {
				return nil, err
			}
		}
		var rec float64
		for i, q := range qs {
			t := time.Now()
			ids, err := search(k, q)
			ds = append(ds, time.Since(t))
			if err != nil {
				return nil, err
			}
			if k == Vector && i < len(info.Exact) {
				rec += overlap(ids, info.Exact[i])
			}
		}
		if prof != nil {
			pprof.StopCPUProfile()
			prof.Close()
		}
		pt.P50[k], pt.P99[k] = pctl(ds, 50), pctl(ds, 99)
		pt.Stages[k] = map[string]time.Duration{}
		for name, v := range stages {
			pt.Stages[k][name] = pctl(v, 50)
		}
		if k == Vector {
			pt.Recall = rec / float64(len(qs))
		}
		fmt.Fprintf(log, "  %s %s: p50 %s p99 %s\n", count(cfg.Size), k, ms(pt.P50[k]), ms(pt.P99[k]))
	}
	pt.RSSQueries, pt.RSSQueriesAnon = smapsRollup()
	collectGarbage()
	m := &pt.Mem
	m.RSS, m.Anon = smapsRollup()
	m.File = m.RSS - m.Anon
	m.VecFiles = mappedRSS(".f32")
	m.HeapLive, m.HeapObjects, m.GoTotal, m.GoReleased = goMem()
	m.PebbleCache, m.PebbleMemtables = e.Store().MemoryUsage()
	m.Bench = benchLive
	prof := filepath.Join(cfg.Data, fmt.Sprintf("heap-%d.pprof", cfg.Size))
	if f, err := os.Create(prof); err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("heap profile: %w", err)
		}
	}
	pt.HeapTop = heapTop(prof)
	pt.Disk, _ = dirSize(cfg.Data)
	runtime.KeepAlive(st)
	// One exact search per query over the cached vectors, after the memory
	// was read (they would count in it): the speed reference of recall.
	if ex, err := exactTime(cfg, qs[:min(10, len(qs))]); err == nil {
		pt.Exact = ex
	} else {
		fmt.Fprintf(log, "  exact search time: %v\n", err)
	}
	pt.When = time.Now().UTC()
	pt.Load = loadAvg()
	fmt.Fprintf(log, "  %s: recall@10 %.3f (exact search %s ms), RSS after queries %s MiB (anonymous %s), after GC %s MiB (anonymous %s, file-backed %s of which vector files %s, %s right after the open; heap live %s, pebble %s+%s), disk %s MiB, heap profile %s\n",
		count(cfg.Size), pt.Recall, ms(pt.Exact), mib(pt.RSSQueries), mib(pt.RSSQueriesAnon), mib(m.RSS), mib(m.Anon), mib(m.File), mib(m.VecFiles), mib(pt.VecFilesOpen), mib(m.HeapLive), mib(m.PebbleCache), mib(m.PebbleMemtables), mib(pt.Disk), prof)
	return pt, nil
}

// growthRequest is the engine request of a query of kind k.
func growthRequest(k Kind, q Query) engine.SearchRequest {
	n, no := K, false
	req := engine.SearchRequest{Query: q.Text, MaxResults: &n, Highlight: &no, IncludeFields: []string{"none"}}
	switch k {
	case Keyword:
		req.Retrievers = engine.RetrieveKeyword
	case Vector:
		req.Retrievers = engine.RetrieveSemantic
	}
	if m := filterMax(k); m > 0 {
		req.Filter = json.RawMessage(fmt.Sprintf(`{"range":{"bucket":{"lt":%d}}}`, m))
	}
	return req
}

// exactTime times exact searches of qs over the first cfg.Size cached
// vectors (one core).
func exactTime(cfg GrowthConfig, qs []Query) (time.Duration, error) {
	raw, err := os.ReadFile(cfg.vecCache())
	if err != nil {
		return 0, err
	}
	dims := len(qs[0].Vector)
	if len(raw) < cfg.Size*dims*4 {
		return 0, fmt.Errorf("vector cache holds %d vectors, want %d", len(raw)/(4*dims), cfg.Size)
	}
	docs := make([]Doc, cfg.Size)
	vecs := make([]float32, cfg.Size*dims)
	for i := range vecs {
		vecs[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	raw = nil
	for i := range docs {
		docs[i] = Doc{ID: strconv.Itoa(i), Vector: vecs[i*dims : (i+1)*dims]}
	}
	t0 := time.Now()
	for _, q := range qs {
		exactTopK(docs, q.Vector, K)
	}
	return time.Since(t0) / time.Duration(len(qs)), nil
}

// AppendPoint adds pt to the JSON list in path (replacing a point of the
// same size and memory limit).
func AppendPoint(path string, pt *GrowthPoint) ([]GrowthPoint, error) {
	pts, err := ReadPoints(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	pts = slices.DeleteFunc(pts, func(p GrowthPoint) bool {
		return p.N == pt.N && p.MemoryLimit == pt.MemoryLimit && p.Merged == pt.Merged
	})
	pts = append(pts, *pt)
	slices.SortFunc(pts, func(a, b GrowthPoint) int {
		if a.N != b.N {
			return a.N - b.N
		}
		return int(a.MemoryLimit - b.MemoryLimit)
	})
	data, err := json.MarshalIndent(pts, "", " ")
	if err != nil {
		return nil, err
	}
	return pts, os.WriteFile(path, data, 0o644)
}

// ReadPoints reads the points a growth run accumulated.
func ReadPoints(path string) ([]GrowthPoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pts []GrowthPoint
	if err := json.Unmarshal(data, &pts); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pts, nil
}

// heapTop returns the top of the in-use heap profile prof, by allocation
// site and cumulated (`go tool pprof -top`); "" if the go tool is missing.
func heapTop(prof string) string {
	var out []string
	for _, flags := range [][]string{{"-top"}, {"-top", "-cum"}} {
		args := append([]string{"tool", "pprof", "-sample_index=inuse_space", "-nodecount=25"}, flags...)
		cmd := exec.Command("go", append(args, prof)...)
		b, err := cmd.Output()
		if err != nil {
			return strings.Join(out, "\n")
		}
		out = append(out, string(b))
	}
	return strings.Join(out, "\n")
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}
