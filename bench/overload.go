package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/server"
)

// OverloadConfig configures RunOverload. Zero fields take the defaults
// given.
type OverloadConfig struct {
	// Dir is the engine directory ("" = temporary, removed at the end).
	Dir string
	// SeedDocs is the size of the searched collection (default 5000).
	SeedDocs int
	// JobDocs is the documents of one submitted ingest job (default 2000).
	JobDocs int
	// Searchers is the number of concurrent searching clients (default 4).
	Searchers int
	// Submitters is the number of clients submitting jobs as fast as they
	// are accepted (default 4), plus one client of synchronous ingests.
	Submitters int
	// Idle and Saturated are the durations of the two phases (default 10 s
	// and 120 s: the memory trend is fitted over the second half).
	Idle, Saturated time.Duration
	// MaxSubmissions bounds the ingest requests sent (default 2000).
	MaxSubmissions int
	// Engine holds the server's bounds (IngestWorkers, MaxIngests,
	// MaxIngestJobs, MaxIngestJobsPerOwner; zero = the defaults).
	Engine engine.Options
	// Model is the embedding model of both collections ("" = none: keyword
	// only), loaded from Models with the ONNX Runtime at ORTLib.
	Model, Models, ORTLib string
	// Words is the number of words of each generated record (default 200).
	Words int
	// MemoryLimit, if positive, is set as the Go runtime's soft memory
	// limit for the run (as the server's --memory-limit does).
	MemoryLimit int64
	// NoPrefill leaves the ingested collection empty until the saturated
	// phase (by default it is filled with the ids the jobs will replace,
	// so that the data keeps its size while saturated).
	NoPrefill bool
	// Repeat is the number of runs RunOverload makes (default 1); it
	// reports each and the spread.
	Repeat int
	// ProfileDir, if set, receives profiles of the saturated phase:
	// cpu.pprof (the whole phase), trace.out (its first 5 s), mutex.pprof
	// and block.pprof, and heap profiles heap-NNNs.pprof every
	// HeapProfileEvery (default 15 s) from its start.
	ProfileDir       string
	HeapProfileEvery time.Duration
}

// PhaseStats are runtime figures of one phase: the Go scheduler's latency
// (time goroutines waited runnable), GC pauses, the CPU share of the GC and
// the server-side search time (took_ms).
type PhaseStats struct {
	SchedP50, SchedP99 time.Duration
	GCPauseP99         time.Duration
	GCCycles           uint64
	GCCPU, TotalCPU    float64 // cpu-seconds
	TookP50, TookP99   time.Duration
	// Stalls counts the times a goroutine that sleeps 10 ms woke 100 ms or
	// more late: the whole process did not run (the host's other work, a
	// stop-the-world pause), which no scheduler metric of Go sees; Stalled
	// is their total and LongestStall the longest.
	Stalls                int
	LongestStall, Stalled time.Duration
}

// stallTick and stallMin define a stall of watchStalls.
const (
	stallTick = 10 * time.Millisecond
	stallMin  = 100 * time.Millisecond
)

// watchStalls starts timing the process's stalls; the function it returns
// stops and reports their number, the longest and their total.
func watchStalls() func() (int, time.Duration, time.Duration) {
	done := make(chan struct{})
	var n int
	var longest, total time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			t := time.Now()
			select {
			case <-done:
				return
			case <-time.After(stallTick):
			}
			if late := time.Since(t) - stallTick; late >= stallMin {
				n++
				longest = max(longest, late)
				total += late
			}
		}
	}()
	return func() (int, time.Duration, time.Duration) {
		close(done)
		wg.Wait()
		return n, longest, total
	}
}

// OverloadResult is what RunOverload measured.
type OverloadResult struct {
	IdleP50, IdleP99, SatP50, SatP99 time.Duration
	IdleQueries, SatQueries          int
	SearchErrors                     int
	JobsAccepted, Jobs429            int
	SyncOK, Sync429                  int
	OtherStatus                      map[int]int
	RetryAfter                       string // a Retry-After value seen
	RSSBefore, RSSAfter, RSSPeak     int64  // bytes (this process: server and clients)
	JobsDone, MaxProcessedSeen       int
	Idle, Sat                        PhaseStats
	// RSSSamples and HeapSamples are the resident memory and the Go heap
	// (live and garbage not yet collected) every second of the saturated
	// phase, in bytes.
	RSSSamples, HeapSamples []int64
	// Mem are the memory readings of the saturated phase, one a second.
	Mem []MemSample
	// Prefilled is the number of documents of the ingested collection
	// before the saturated phase.
	Prefilled int64
	// Load is the host's 1-minute load average, the larger of its values
	// before and after the run (other processes share the CPUs).
	Load float64
	// Slowest are the slowest searches of the saturated phase, slowest
	// first: whether they cluster in time (a GC, a merge, the host) or
	// spread out.
	Slowest []SlowQuery
}

// MemSample is one reading of the process's memory (server and clients)
// and of the ingested data, taken during the saturated phase.
type MemSample struct {
	At time.Duration // since the saturated phase began
	// RSS is the resident memory, RSSAnon its anonymous part (heaps: Go's,
	// Pebble's, ONNX Runtime's), RSSFile its file-backed part (the binary,
	// shared libraries, models).
	RSS, RSSAnon, RSSFile int64
	// HeapLive is the Go heap marked live by the last collection;
	// HeapObjects adds the garbage not yet collected; HeapFree is heap
	// memory the runtime holds free, HeapReleased what it returned to the
	// system; GoTotal is all memory the Go runtime mapped.
	HeapLive, HeapObjects, HeapFree, HeapReleased, GoTotal int64
	Goroutines                                             int64
	// PebbleCache and PebbleMemtables are the store's memory outside the
	// Go heap.
	PebbleCache, PebbleMemtables int64
	// LiveDocs are the documents of the ingested collection, IndexBytes
	// the size of both collections' segments and bodies (size_bytes), and
	// Written the documents ingested so far in the phase (jobs' progress
	// and synchronous ingests).
	LiveDocs, IndexBytes, Written int64
}

// SlowQuery is one search of the saturated phase: when it started (from
// the phase's start), its latency at the client and the server's took_ms.
type SlowQuery struct {
	At, Latency, Took time.Duration
}

// RunOverload serves an engine on a loopback port in this process, fills
// a keyword collection, and measures search latency with cfg.Searchers
// clients, first idle, then while cfg.Submitters clients submit
// asynchronous ingest jobs as fast as the server accepts them and one
// client sends synchronous ingests. It reports search p50/p99 idle and
// saturated, the 202s and 429s, and the resident memory before and after
// (of this process, which holds both the server and the clients). The run
// is bounded in time (Idle + Saturated, then the server is shut down
// without waiting for queued jobs) and in requests (MaxSubmissions).
func RunOverload(cfg OverloadConfig, w io.Writer) error {
	fmt.Fprintf(w, "machine: %d CPUs (GOMAXPROCS %d), %s/%s, %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, cpuModel())
	var runs []OverloadResult
	for i := range max(1, cfg.Repeat) {
		fmt.Fprintf(w, "run %d: load average %s\n", i+1, loadAvg())
		c := cfg
		if c.ProfileDir != "" && cfg.Repeat > 1 {
			c.ProfileDir = filepath.Join(cfg.ProfileDir, fmt.Sprintf("run%d", i+1))
		}
		load := loadAvg1()
		res, err := Overload(c)
		if err != nil {
			return err
		}
		res.Load = max(load, loadAvg1())
		printOverload(w, res)
		fmt.Fprintf(w, "run %d: load average after %s\n", i+1, loadAvg())
		runs = append(runs, res)
	}
	if len(runs) > 1 {
		spread := func(name string, f func(OverloadResult) float64, unit string) {
			v := make([]float64, len(runs))
			for i, r := range runs {
				v[i] = f(r)
			}
			sort.Float64s(v)
			fmt.Fprintf(w, "  %-22s min %8.2f  median %8.2f  max %8.2f %s\n", name, v[0], v[len(v)/2], v[len(v)-1], unit)
		}
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		fmt.Fprintf(w, "over %d runs:\n", len(runs))
		spread("idle p50", func(r OverloadResult) float64 { return ms(r.IdleP50) }, "ms")
		spread("idle p99", func(r OverloadResult) float64 { return ms(r.IdleP99) }, "ms")
		spread("saturated p50", func(r OverloadResult) float64 { return ms(r.SatP50) }, "ms")
		spread("saturated p99", func(r OverloadResult) float64 { return ms(r.SatP99) }, "ms")
		spread("p99 ratio", func(r OverloadResult) float64 { return float64(r.SatP99) / float64(max(r.IdleP99, 1)) }, "×")
		spread("server took p99 ratio", func(r OverloadResult) float64 { return float64(r.Sat.TookP99) / float64(max(r.Idle.TookP99, 1)) }, "×")
		spread("429s", func(r OverloadResult) float64 { return float64(r.Jobs429 + r.Sync429) }, "")
		spread("RSS peak", func(r OverloadResult) float64 { return float64(r.RSSPeak >> 20) }, "MiB")
		spread("RSS 2nd-half growth", func(r OverloadResult) float64 { return 100 * r.SecondHalfGrowth() }, "%")
		spread("RSS fitted growth", func(r OverloadResult) float64 { return 100 * r.Trend().RSSGrowth }, "%")
		spread("live heap fitted growth", func(r OverloadResult) float64 { return 100 * r.Trend().HeapGrowth }, "%")
		spread("load average (1 min)", func(r OverloadResult) float64 { return r.Load }, "")
		flat := 0
		for _, r := range runs {
			if r.Trend().Flat() {
				flat++
			}
		}
		verdict := "PASS"
		if flat < len(runs) {
			verdict = "FAIL"
		}
		fmt.Fprintf(w, "memory flat in %d of %d runs: %s\n", flat, len(runs), verdict)
	}
	return nil
}

// SecondHalfGrowth is the relative growth of the resident memory over the
// second half of the saturated phase: (last sample − the middle one) ÷ the
// middle one.
func (r OverloadResult) SecondHalfGrowth() float64 {
	if len(r.RSSSamples) < 2 {
		return 0
	}
	mid := r.RSSSamples[len(r.RSSSamples)/2]
	return float64(r.RSSSamples[len(r.RSSSamples)-1]-mid) / float64(max(mid, 1))
}

func printOverload(w io.Writer, res OverloadResult) {
	fmt.Fprintf(w, "search idle:      p50 %v  p99 %v  (%d queries)\n", res.IdleP50.Round(time.Microsecond), res.IdleP99.Round(time.Microsecond), res.IdleQueries)
	fmt.Fprintf(w, "search saturated: p50 %v  p99 %v  (%d queries, %d errors)  p99 ratio %.2f\n", res.SatP50.Round(time.Microsecond), res.SatP99.Round(time.Microsecond), res.SatQueries, res.SearchErrors, float64(res.SatP99)/float64(max(res.IdleP99, 1)))
	for _, p := range []struct {
		name string
		s    PhaseStats
	}{{"idle", res.Idle}, {"saturated", res.Sat}} {
		fmt.Fprintf(w, "  %-9s server took p50 %v p99 %v; Go scheduler latency p50 %v p99 %v; %d GCs, pause p99 %v; process CPU %.1f s (GC %.1f s); process stalls ≥ %v: %d, longest %v, %v in all\n", p.name,
			p.s.TookP50.Round(time.Microsecond), p.s.TookP99.Round(time.Microsecond), p.s.SchedP50.Round(time.Microsecond), p.s.SchedP99.Round(time.Microsecond),
			p.s.GCCycles, p.s.GCPauseP99.Round(time.Microsecond), p.s.TotalCPU, p.s.GCCPU, stallMin, p.s.Stalls, p.s.LongestStall.Round(time.Millisecond), p.s.Stalled.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "async jobs: %d accepted (202), %d refused (429, Retry-After %s); %d done by the end, largest processed seen while running %d\n", res.JobsAccepted, res.Jobs429, res.RetryAfter, res.JobsDone, res.MaxProcessedSeen)
	fmt.Fprintf(w, "sync ingests: %d answered 200, %d refused (429)\n", res.SyncOK, res.Sync429)
	if len(res.OtherStatus) > 0 {
		fmt.Fprintf(w, "other statuses: %v\n", res.OtherStatus)
	}
	fmt.Fprintf(w, "RSS: before %d MiB, peak %d MiB, end %d MiB; growth over the 2nd half of saturation %.1f %%\n", res.RSSBefore>>20, res.RSSPeak>>20, res.RSSAfter>>20, 100*res.SecondHalfGrowth())
	fmt.Fprintf(w, "RSS every second while saturated (MiB): %s\n", mibs(res.RSSSamples))
	fmt.Fprintf(w, "slowest saturated searches (start offset: client latency / server took):")
	for _, q := range res.Slowest {
		fmt.Fprintf(w, " %.1fs: %v/%v", q.At.Seconds(), q.Latency.Round(time.Millisecond), q.Took.Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Go heap every second while saturated (MiB): %s\n", mibs(res.HeapSamples))
	printMemory(w, res)
}

// printMemory prints the memory readings of the saturated phase every
// 10 s and the fitted trend of its second half, with the verdict.
func printMemory(w io.Writer, res OverloadResult) {
	if len(res.Mem) == 0 {
		return
	}
	fmt.Fprintf(w, "memory while saturated (MiB; docs: live in the ingested collection, prefilled with %d, / written in the phase):\n", res.Prefilled)
	fmt.Fprintf(w, "  %5s %6s %6s %6s %9s %8s %7s %9s %7s %9s %6s %10s %9s\n", "t", "RSS", "anon", "file", "heap live", "objects", "free", "released", "pebble", "memtables", "gorout", "index", "docs")
	for i, m := range res.Mem {
		if i%10 != 0 && i != len(res.Mem)-1 {
			continue
		}
		fmt.Fprintf(w, "  %4.0fs %6d %6d %6d %9d %8d %7d %9d %7d %9d %6d %10d %4d/%d\n", m.At.Seconds(), m.RSS>>20, m.RSSAnon>>20, m.RSSFile>>20,
			m.HeapLive>>20, m.HeapObjects>>20, m.HeapFree>>20, m.HeapReleased>>20, m.PebbleCache>>20, m.PebbleMemtables>>20, m.Goroutines, m.IndexBytes>>20, m.LiveDocs, m.Written)
	}
	t := res.Trend()
	fmt.Fprintf(w, "second half (%v, %d samples, floors of %d s): fitted growth RSS %+.1f %% (%+.2f MiB/min), Go live heap %+.1f %% (%+.2f MiB/min), index %+.1f %%; %.0f documents written a second, live documents %d → %d\n",
		t.Window.Round(time.Second), t.Samples, floorBlock, 100*t.RSSGrowth, t.RSSSlope*60/(1<<20), 100*t.HeapGrowth, t.HeapSlope*60/(1<<20), 100*t.IndexGrowth, t.WrittenRate, t.LiveDocsStart, t.LiveDocsEnd)
	if t.WrittenRate > 0 {
		fmt.Fprintf(w, "  per 1000 documents written: RSS %+.1f KiB, Go live heap %+.1f KiB\n", t.RSSSlope/t.WrittenRate*1000/1024, t.HeapSlope/t.WrittenRate*1000/1024)
	}
	verdict := "PASS"
	switch {
	case t.DataGrew():
		verdict = "NOT JUDGED (the ingested collection still grew over the window: run without -no-prefill)"
	case !t.Flat():
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "memory flat: %s (fitted growth over the second half: RSS %+.1f %%, Go live heap %+.1f %%; limit %.0f %% each)\n", verdict, 100*t.RSSGrowth, 100*t.HeapGrowth, 100*flatLimit)
}

// floorBlock is the number of consecutive memory readings (seconds) of
// which MemoryTrend fits the minimum.
const floorBlock = 10

// flatLimit is the fitted growth over the second half of the saturated
// phase under which memory counts as flat.
const flatLimit = 0.05

// MemoryTrend is the growth of memory over the second half of the
// saturated phase, fitted by least squares to the floors of the readings
// (the minimum of every floorBlock seconds), so that neither a single
// reading nor the work in flight decides it.
type MemoryTrend struct {
	Window  time.Duration // the second half's length
	Samples int
	// RSSSlope and HeapSlope are bytes per second of the resident memory
	// and the Go live heap; RSSGrowth, HeapGrowth and IndexGrowth the
	// fitted growth over the window relative to the fitted value at its
	// start.
	RSSSlope, HeapSlope                float64
	RSSGrowth, HeapGrowth, IndexGrowth float64
	WrittenRate                        float64 // documents ingested a second
	LiveDocsStart, LiveDocsEnd         int64
}

// Flat reports whether neither the resident memory nor the Go live heap
// grew by flatLimit or more over the window, while the data kept its size.
func (t MemoryTrend) Flat() bool {
	return !t.DataGrew() && t.RSSGrowth < flatLimit && t.HeapGrowth < flatLimit
}

// DataGrew reports whether the ingested collection's live documents grew
// by flatLimit or more over the window: memory growth is then the data's,
// and flatness cannot be judged.
func (t MemoryTrend) DataGrew() bool {
	return float64(t.LiveDocsEnd-t.LiveDocsStart) >= flatLimit*float64(max(t.LiveDocsStart, 1))
}

// Trend fits the second half of the saturated phase's memory readings.
func (r OverloadResult) Trend() MemoryTrend {
	half := r.Mem[len(r.Mem)/2:]
	var t MemoryTrend
	if len(half) < 2 {
		return t
	}
	t.Samples = len(half)
	t.Window = half[len(half)-1].At - half[0].At
	// The line is fitted to the floors of the readings, the minimum of
	// each floorBlock consecutive ones: the work in flight (an upload
	// being parsed, a segment being built, garbage before a collection)
	// only adds to a reading, and swings it by tens of MiB from one
	// second to the next, while what is retained — data or a leak — is
	// under every reading and lifts the floor.
	fit := func(f func(MemSample) int64) (slope, growth float64) {
		var xs, ys []float64
		for i := 0; i < len(half); i += floorBlock {
			block := half[i:min(i+floorBlock, len(half))]
			lo := f(block[0])
			for _, m := range block {
				lo = min(lo, f(m))
			}
			xs = append(xs, (block[0].At+block[len(block)-1].At).Seconds()/2)
			ys = append(ys, float64(lo))
		}
		if len(xs) < 2 {
			return 0, 0
		}
		var sx, sy, sxx, sxy float64
		n := float64(len(xs))
		for i := range xs {
			sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
		}
		slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
		start := sy/n - slope*(sx/n-half[0].At.Seconds())
		return slope, slope * t.Window.Seconds() / max(start, 1)
	}
	t.RSSSlope, t.RSSGrowth = fit(func(m MemSample) int64 { return m.RSS })
	t.HeapSlope, t.HeapGrowth = fit(func(m MemSample) int64 { return m.HeapLive })
	_, t.IndexGrowth = fit(func(m MemSample) int64 { return m.IndexBytes })
	first, last := half[0], half[len(half)-1]
	t.WrittenRate = float64(last.Written-first.Written) / max(t.Window.Seconds(), 1e-9)
	t.LiveDocsStart, t.LiveDocsEnd = first.LiveDocs, last.LiveDocs
	return t
}

// cpuModel returns the CPU's model name from /proc/cpuinfo.
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// loadAvg1 returns the 1-minute load average (0 when unknown).
func loadAvg1() float64 {
	f := strings.Fields(loadAvg())
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// loadAvg returns the 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// Overload runs the workload of RunOverload and returns its figures: it
// starts a server (startOverload), seeds and prefills the collections
// (prepare), searches idle (idlePhase), then searches while clients
// ingest (saturatedPhase).
func Overload(cfg OverloadConfig) (OverloadResult, error) {
	cfg = cfg.withDefaults()
	res := OverloadResult{OtherStatus: map[int]int{}}
	if cfg.MemoryLimit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(cfg.MemoryLimit))
	}
	r, stop, err := startOverload(cfg, &res)
	if err != nil {
		return res, err
	}
	defer stop()
	if err := r.prepare(); err != nil {
		return res, err
	}
	res.RSSBefore = rss("VmRSS")
	r.idlePhase()
	if err := r.saturatedPhase(); err != nil {
		return res, err
	}
	res.RSSAfter = rss("VmRSS")
	res.RSSPeak = max(res.RSSPeak, res.RSSAfter)
	return res, nil
}

// withDefaults returns cfg with its zero fields set to the defaults.
func (cfg OverloadConfig) withDefaults() OverloadConfig {
	cfg.SeedDocs = cmp.Or(cfg.SeedDocs, 5000)
	cfg.JobDocs = cmp.Or(cfg.JobDocs, 2000)
	cfg.Searchers = cmp.Or(cfg.Searchers, 4)
	cfg.Submitters = cmp.Or(cfg.Submitters, 4)
	cfg.Idle = cmp.Or(cfg.Idle, 10*time.Second)
	cfg.Saturated = cmp.Or(cfg.Saturated, 120*time.Second)
	cfg.MaxSubmissions = cmp.Or(cfg.MaxSubmissions, 2000)
	cfg.Words = cmp.Or(cfg.Words, 200)
	if cfg.HeapProfileEvery <= 0 {
		cfg.HeapProfileEvery = 15 * time.Second
	}
	return cfg
}

// overloadRun is one run of Overload: the engine and its server, the
// clients' HTTP client, the request bodies made up front, and the figures
// the clients add to res (under mu while the saturated phase runs).
type overloadRun struct {
	cfg    OverloadConfig
	eng    *engine.Engine
	base   string // the server's URL
	client *http.Client
	// bodies are each submitter's job bodies (three, with the same ids),
	// small the bodies of synchronous ingests.
	bodies [][][]byte
	small  [][]byte

	res *OverloadResult
	// mu guards res, jobIDs and slow while clients run.
	mu     sync.Mutex
	jobIDs []string    // the accepted jobs
	slow   []SlowQuery // the queries of the last search phase
	sent   atomic.Int64
}

// startOverload opens the engine of cfg in a directory of its own (or
// cfg.Dir) and serves it on a loopback port; the returned func shuts the
// server down and closes and removes everything.
func startOverload(cfg OverloadConfig, res *OverloadResult) (*overloadRun, func(), error) {
	var undo []func()
	stop := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "najdi-overload")
		if err != nil {
			return nil, nil, err
		}
		undo = append(undo, func() { os.RemoveAll(d) })
		dir = d
	}
	opts := cfg.Engine
	opts.Dir = dir
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if cfg.Model != "" && opts.Embedders == nil {
		prov, err := engine.NewModelProvider(cfg.Models, cfg.ORTLib)
		if err != nil {
			stop()
			return nil, nil, err
		}
		opts.Embedders = prov
	}
	eng, err := engine.Open(opts)
	if err != nil {
		stop()
		return nil, nil, err
	}
	undo = append(undo, func() { eng.Close() })
	srv := server.New(eng, nil, server.Config{Logger: opts.Logger})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		stop()
		return nil, nil, err
	}
	go srv.Serve(ln)
	r := &overloadRun{cfg: cfg, eng: eng, res: res, base: "http://" + ln.Addr().String(),
		client: &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	undo = append(undo, func() {
		// fasthttp's Shutdown waits for keep-alive connections to close.
		r.client.CloseIdleConnections()
		srv.Shutdown()
	})
	return r, stop, nil
}

// do sends one request to the server and reads the whole answer.
func (r *overloadRun) do(method, path, ctype string, body []byte) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(method, r.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// prepare creates the collections, seeds the searched one and makes the
// ingest bodies. Searches go to "overload", ingests to "ingest": the
// searched collection keeps its size, so only the load differs between
// phases. The bodies of the saturated phase are made up front (the
// clients share the CPUs with the server): each submitter cycles through
// its own three, whose records have the same ids. Unless cfg.NoPrefill,
// the ingested collection is filled with those ids now, before any
// timing, so that during the saturated phase every job replaces
// documents: the data keeps its size, and memory that grows is not the
// data.
func (r *overloadRun) prepare() error {
	cfg := r.cfg
	model := cmp.Or(cfg.Model, "none")
	for _, c := range []string{"overload", "ingest"} {
		if st, _, b, err := r.do("PUT", "/v1/collections/"+c, "application/json", []byte(`{"embedding_config": {"model": "`+model+`"}}`)); err != nil || st != 201 {
			return fmt.Errorf("create collection: %d %s %v", st, b, err)
		}
	}
	if st, _, b, err := r.do("POST", "/v1/collections/overload/documents?id_field=id&format=csv", "text/csv", overloadCSV(cfg.SeedDocs, cfg.Words, 1, "s")); err != nil || st != 200 {
		return fmt.Errorf("seed: %d %.300s %v", st, b, err)
	}
	r.bodies = make([][][]byte, cfg.Submitters)
	for s := range r.bodies {
		for i := range 3 {
			r.bodies[s] = append(r.bodies[s], overloadCSV(cfg.JobDocs, cfg.Words, uint64(1000*s+i), fmt.Sprintf("j%d-", s)))
		}
	}
	r.small = make([][]byte, 10)
	for i := range r.small {
		r.small[i] = overloadCSV(overloadSyncDocs, cfg.Words, uint64(5000+i), fmt.Sprintf("y%d-", i))
	}
	if cfg.NoPrefill {
		return nil
	}
	fill := append([][]byte(nil), r.small...)
	for s := range r.bodies {
		fill = append(fill, r.bodies[s][0])
	}
	for _, b := range fill {
		if st, _, body, err := r.do("POST", "/v1/collections/ingest/documents?id_field=id&format=csv", "text/csv", b); err != nil || st != 200 {
			return fmt.Errorf("prefill: %d %.300s %v", st, body, err)
		}
	}
	if info, err := r.eng.GetCollection(context.Background(), "", "ingest"); err == nil {
		r.res.Prefilled = info.DocumentCount
	}
	return nil
}

// search runs cfg.Searchers searching clients until stop closes and
// returns the latencies at the client and the server's took_ms of the
// searches that succeeded, and the number that failed; r.slow holds the
// phase's queries.
func (r *overloadRun) search(stop <-chan struct{}) (lat, took []time.Duration, errs int) {
	start := time.Now()
	r.slow = r.slow[:0]
	var wg sync.WaitGroup
	for s := range r.cfg.Searchers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(s), 99))
			for !stopped(stop) {
				q := fmt.Sprintf(`{"query": "w%x w%x w%x", "max_results": 10}`, rng.IntN(overloadVocab), rng.IntN(overloadVocab), rng.IntN(overloadVocab))
				t0 := time.Now()
				st, _, b, err := r.do("POST", "/v1/collections/overload/search", "application/json", []byte(q))
				d := time.Since(t0)
				var m struct {
					Metadata struct {
						TookMS float64 `json:"took_ms"`
					} `json:"metadata"`
				}
				if err == nil && st == 200 {
					err = json.Unmarshal(b, &m)
				}
				r.mu.Lock()
				if err != nil || st != 200 {
					errs++
				} else {
					lat = append(lat, d)
					r.slow = append(r.slow, SlowQuery{At: t0.Sub(start), Latency: d, Took: time.Duration(m.Metadata.TookMS * float64(time.Millisecond))})
					took = append(took, time.Duration(m.Metadata.TookMS*float64(time.Millisecond)))
				}
				r.mu.Unlock()
			}
		})
	}
	wg.Wait()
	return lat, took, errs
}

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// idlePhase searches for cfg.Idle with nothing else running.
func (r *overloadRun) idlePhase() {
	stop := make(chan struct{})
	time.AfterFunc(r.cfg.Idle, func() { close(stop) })
	m0 := readRuntime()
	stalls := watchStalls()
	idle, idleTook, errs := r.search(stop)
	res := r.res
	res.Idle = m0.phase(readRuntime(), idleTook)
	res.Idle.Stalls, res.Idle.LongestStall, res.Idle.Stalled = stalls()
	res.SearchErrors += errs
	res.IdleQueries = len(idle)
	res.IdleP50, res.IdleP99 = percentile(idle, 0.50), percentile(idle, 0.99)
}

// saturatedPhase starts the submitters, the synchronous ingester and the
// watcher of progress and memory, lets the queue fill for a second, then
// searches for cfg.Saturated (profiled into cfg.ProfileDir) and stops the
// clients.
func (r *overloadRun) saturatedPhase() error {
	stop := make(chan struct{})
	satStart := time.Now()
	var wg sync.WaitGroup
	for s := range r.cfg.Submitters {
		wg.Go(func() { r.submitJobs(r.bodies[s], stop) })
	}
	wg.Go(func() { r.ingestSync(stop) })
	wg.Go(func() { r.watch(satStart, stop) })
	time.Sleep(time.Second) // let the queue fill before timing searches
	stopSearch := make(chan struct{})
	time.AfterFunc(r.cfg.Saturated, func() { close(stopSearch) })
	stopProfile, err := startProfiles(r.cfg.ProfileDir)
	if err != nil {
		return err
	}
	m0 := readRuntime()
	stalls := watchStalls()
	sat, satTook, errs := r.search(stopSearch)
	res := r.res
	sort.Slice(r.slow, func(i, j int) bool { return r.slow[i].Latency > r.slow[j].Latency })
	res.Slowest = append([]SlowQuery(nil), r.slow[:min(len(r.slow), 8)]...)
	res.Sat = m0.phase(readRuntime(), satTook)
	res.Sat.Stalls, res.Sat.LongestStall, res.Sat.Stalled = stalls()
	if err := stopProfile(); err != nil {
		return err
	}
	close(stop)
	wg.Wait()
	res.SearchErrors += errs
	res.SatQueries = len(sat)
	res.SatP50, res.SatP99 = percentile(sat, 0.50), percentile(sat, 0.99)
	for _, id := range r.jobIDs {
		if st, err := r.eng.Job("", "ingest", id); err == nil && st.Status == "done" {
			res.JobsDone++
		}
	}
	return nil
}

// maySend reports whether a client may send another ingest: stop is
// not closed and cfg.MaxSubmissions are not all sent.
func (r *overloadRun) maySend(stop <-chan struct{}) bool {
	return !stopped(stop) && r.sent.Add(1) <= int64(r.cfg.MaxSubmissions)
}

// submitJobs submits asynchronous ingest jobs of bodies, in turn, as fast
// as they are accepted, until stop closes; a 429 is obeyed by waiting its
// Retry-After, but at most a second, to keep knocking within the phase.
func (r *overloadRun) submitJobs(bodies [][]byte, stop <-chan struct{}) {
	res := r.res
	for i := 0; r.maySend(stop); i++ {
		st, h, b, err := r.do("POST", "/v1/collections/ingest/documents?async=true&id_field=id&format=csv", "text/csv", bodies[i%len(bodies)])
		var wait time.Duration
		r.mu.Lock()
		switch {
		case err != nil:
			res.OtherStatus[0]++
		case st == 202:
			res.JobsAccepted++
			var m struct {
				JobID string `json:"job_id"`
			}
			if json.Unmarshal(b, &m) == nil {
				r.jobIDs = append(r.jobIDs, m.JobID)
			}
		case st == 429:
			res.Jobs429++
			res.RetryAfter = h.Get("Retry-After")
			sec, _ := strconv.Atoi(res.RetryAfter)
			wait = min(time.Duration(sec)*time.Second, time.Second)
		default:
			res.OtherStatus[st]++
		}
		r.mu.Unlock()
		if wait > 0 {
			select {
			case <-stop:
			case <-time.After(wait):
			}
		}
	}
}

// ingestSync sends a small synchronous ingest every 100 ms until stop
// closes.
func (r *overloadRun) ingestSync(stop <-chan struct{}) {
	res := r.res
	for i := 0; r.maySend(stop); i++ {
		st, _, _, err := r.do("POST", "/v1/collections/ingest/documents?id_field=id&format=csv", "text/csv", r.small[i%len(r.small)])
		r.mu.Lock()
		switch {
		case err != nil:
			res.OtherStatus[0]++
		case st == 200:
			res.SyncOK++
		case st == 429:
			res.Sync429++
		default:
			res.OtherStatus[st]++
		}
		r.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
}

// watch follows the saturated phase until stop closes: every 250 ms the
// resident memory's peak, and every second a memory reading (memSample)
// and, with cfg.ProfileDir, a heap profile every cfg.HeapProfileEvery.
func (r *overloadRun) watch(satStart time.Time, stop <-chan struct{}) {
	res := r.res
	last := time.Now()
	nextProfile := time.Duration(0)
	done := map[string]int{} // processed documents of finished jobs
	for {
		select {
		case <-stop:
			return
		case <-time.After(250 * time.Millisecond):
		}
		rssNow := rss("VmRSS")
		res.RSSPeak = max(res.RSSPeak, rssNow)
		written := r.written(done)
		if time.Since(last) < time.Second {
			continue
		}
		last = time.Now()
		m := r.memSample(rssNow, written)
		m.At = time.Since(satStart)
		r.mu.Lock()
		res.RSSSamples = append(res.RSSSamples, rssNow)
		res.HeapSamples = append(res.HeapSamples, m.HeapObjects)
		res.Mem = append(res.Mem, m)
		r.mu.Unlock()
		if r.cfg.ProfileDir != "" && m.At >= nextProfile {
			nextProfile += r.cfg.HeapProfileEvery
			writeHeapProfile(filepath.Join(r.cfg.ProfileDir, fmt.Sprintf("heap-%03ds.pprof", int(m.At.Seconds()))))
		}
	}
}

// written returns the documents ingested so far in the saturated phase:
// the synchronous ingests' and the jobs' progress; done keeps the counts
// of finished jobs between calls, and the largest progress of a running
// job goes to res.MaxProcessedSeen.
func (r *overloadRun) written(done map[string]int) int64 {
	r.mu.Lock()
	ids := append([]string(nil), r.jobIDs...)
	n := int64(r.res.SyncOK * overloadSyncDocs)
	r.mu.Unlock()
	for _, id := range ids {
		if p, ok := done[id]; ok {
			n += int64(p)
			continue
		}
		st, err := r.eng.Job("", "ingest", id)
		if err != nil {
			continue
		}
		n += int64(st.Processed)
		if st.Status != "running" {
			done[id] = st.Processed
		} else if st.Processed > r.res.MaxProcessedSeen {
			r.res.MaxProcessedSeen = st.Processed
		}
	}
	return n
}

// memSample reads the process's, the store's and the data's memory
// figures; rssNow is VmRSS, written the documents ingested so far.
func (r *overloadRun) memSample(rssNow, written int64) MemSample {
	m := readMem(rssNow)
	m.PebbleCache, m.PebbleMemtables = r.eng.Store().MemoryUsage()
	m.Written = written
	for _, c := range []string{"overload", "ingest"} {
		if info, err := r.eng.GetCollection(context.Background(), "", c); err == nil {
			m.IndexBytes += info.SizeBytes
			if c == "ingest" {
				m.LiveDocs = info.DocumentCount
			}
		}
	}
	return m
}

// overloadVocab is the number of distinct words of the generated records.
const overloadVocab = 50000

// overloadSyncDocs is the number of records of a synchronous ingest.
const overloadSyncDocs = 50

// overloadCSV returns rows records "id,body" of words words each, ids
// prefixed by prefix.
func overloadCSV(rows, words int, seed uint64, prefix string) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	b.WriteString("id,body\n")
	for i := range rows {
		fmt.Fprintf(&b, "%s%d,", prefix, i)
		for j := range words {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%x", rng.IntN(overloadVocab))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// rss reads a memory figure (VmRSS, VmHWM) of this process in bytes.
func rss(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// runtimeSample is a reading of the Go runtime's metrics and this
// process's CPU time.
type runtimeSample struct {
	sched, pauses *metrics.Float64Histogram
	gcCycles      uint64
	gcCPU         float64
	procCPU       float64
}

var runtimeMetricNames = []string{"/sched/latencies:seconds", "/sched/pauses/total/gc:seconds", "/gc/cycles/total:gc-cycles", "/cpu/classes/gc/total:cpu-seconds"}

func readRuntime() runtimeSample {
	ms := make([]metrics.Sample, len(runtimeMetricNames))
	for i, n := range runtimeMetricNames {
		ms[i].Name = n
	}
	metrics.Read(ms)
	return runtimeSample{sched: ms[0].Value.Float64Histogram(), pauses: ms[1].Value.Float64Histogram(),
		gcCycles: ms[2].Value.Uint64(), gcCPU: ms[3].Value.Float64(), procCPU: processCPU()}
}

// phase returns the figures between s and the later reading e.
func (s runtimeSample) phase(e runtimeSample, took []time.Duration) PhaseStats {
	return PhaseStats{
		SchedP50: histQuantile(s.sched, e.sched, 0.5), SchedP99: histQuantile(s.sched, e.sched, 0.99),
		GCPauseP99: histQuantile(s.pauses, e.pauses, 0.99),
		GCCycles:   e.gcCycles - s.gcCycles, GCCPU: e.gcCPU - s.gcCPU, TotalCPU: e.procCPU - s.procCPU,
		TookP50: percentile(took, 0.5), TookP99: percentile(took, 0.99),
	}
}

// histQuantile returns the q quantile of the counts added between two
// readings of a cumulative histogram (the upper bound of its bucket).
func histQuantile(a, b *metrics.Float64Histogram, q float64) time.Duration {
	var total uint64
	for i := range b.Counts {
		total += b.Counts[i] - a.Counts[i]
	}
	if total == 0 {
		return 0
	}
	want := uint64(q * float64(total))
	var n uint64
	for i := range b.Counts {
		n += b.Counts[i] - a.Counts[i]
		if n > want {
			hi := b.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = b.Buckets[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}

// processCPU returns this process's user and system CPU time in seconds.
func processCPU() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return (u + k) / 100 // clock ticks (USER_HZ = 100 on Linux)
}

// readMem reads the process's memory figures; rss is VmRSS, read by the
// caller.
func readMem(rssBytes int64) MemSample {
	ms := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/total:bytes"}, {Name: "/sched/goroutines:goroutines"}}
	metrics.Read(ms)
	v := func(i int) int64 { return int64(ms[i].Value.Uint64()) }
	return MemSample{RSS: rssBytes, RSSAnon: rss("RssAnon"), RSSFile: rss("RssFile"),
		HeapLive: v(0), HeapObjects: v(1), HeapFree: v(2), HeapReleased: v(3), GoTotal: v(4), Goroutines: v(5)}
}

// writeHeapProfile writes a heap profile (as of the last collection) to
// path; a failure is ignored (the profile is a diagnostic).
func writeHeapProfile(path string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.Lookup("heap").WriteTo(f, 0)
}

// mibs formats byte counts in MiB.
func mibs(b []int64) string {
	var sb strings.Builder
	for i, x := range b {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%d", x>>20)
	}
	return sb.String()
}

// startProfiles starts a CPU profile and a 5 s execution trace in dir and
// enables mutex and block profiling; the returned func writes the mutex
// and block profiles and a heap profile and stops everything. An empty dir profiles nothing.
func startProfiles(dir string) (func() error, error) {
	if dir == "" {
		return func() error { return nil }, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("profile dir: %w", err)
	}
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	tf, err := os.Create(filepath.Join(dir, "trace.out"))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if err := trace.Start(tf); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	traceStop := time.AfterFunc(5*time.Second, trace.Stop)
	runtime.SetMutexProfileFraction(5)
	runtime.SetBlockProfileRate(int(100 * time.Microsecond))
	return func() error {
		pprof.StopCPUProfile()
		if traceStop.Stop() {
			trace.Stop()
		}
		runtime.SetMutexProfileFraction(0)
		runtime.SetBlockProfileRate(0)
		errs := []error{cpu.Close(), tf.Close()}
		for _, name := range []string{"mutex", "block", "heap"} {
			f, err := os.Create(filepath.Join(dir, name+".pprof"))
			if err != nil {
				return fmt.Errorf("%s profile: %w", name, err)
			}
			errs = append(errs, pprof.Lookup(name).WriteTo(f, 0), f.Close())
		}
		return errors.Join(errs...)
	}, nil
}
