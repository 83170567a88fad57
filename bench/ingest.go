package bench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/najdi/najdi/ingest"
)

// Defaults of IngestConfig.
const (
	// DefaultIngestCSVBytes is the size of the generated CSV: 1 GiB.
	DefaultIngestCSVBytes = 1 << 30
	// DefaultIngestRepeatBytes is how many bytes of each real file are
	// parsed (the file repeated): 32 MiB.
	DefaultIngestRepeatBytes = 32 << 20
	// DefaultIngestFileTime bounds the time spent on each real file.
	DefaultIngestFileTime = 10 * time.Second
	// DefaultIngestSampleEvery is the heap sampling period.
	DefaultIngestSampleEvery = 10 * time.Millisecond
)

// IngestConfig configures RunIngestParse.
type IngestConfig struct {
	// DocsDir is shared/data/docs, holding the real files; required.
	DocsDir string
	// CSVBytes is the size of the generated CSV; 0 means
	// DefaultIngestCSVBytes, a negative value skips the generated run.
	CSVBytes int64
	// RepeatBytes is how many bytes of each real file are parsed; 0 means
	// DefaultIngestRepeatBytes.
	RepeatBytes int64
	// FileTime stops repeating a real file once this much time has passed
	// (after at least one pass), so slow formats do not dominate the run;
	// 0 means DefaultIngestFileTime.
	FileTime time.Duration
	// SampleEvery is how often the heap is sampled for its peak; 0 means
	// DefaultIngestSampleEvery.
	SampleEvery time.Duration
}

// Validate checks the configuration.
func (c IngestConfig) Validate() error {
	if c.DocsDir == "" {
		return errors.New("ingest config: no docs directory")
	}
	if c.RepeatBytes < 0 || c.SampleEvery < 0 || c.FileTime < 0 {
		return errors.New("ingest config: negative repeat size, file time or sampling period")
	}
	return nil
}

// withDefaults fills the zero fields.
func (c IngestConfig) withDefaults() IngestConfig {
	c.CSVBytes = cmp.Or(c.CSVBytes, DefaultIngestCSVBytes)
	c.RepeatBytes = cmp.Or(c.RepeatBytes, DefaultIngestRepeatBytes)
	c.SampleEvery = cmp.Or(c.SampleEvery, DefaultIngestSampleEvery)
	c.FileTime = cmp.Or(c.FileTime, DefaultIngestFileTime)
	return c
}

// IngestResult is the throughput of parsing one input.
type IngestResult struct {
	Format  ingest.Format
	Input   string
	Bytes   int64 // bytes parsed in all passes
	Records int   // records read in all passes
	Errors  int   // record errors in all passes
	Elapsed time.Duration
	// CPU is the process CPU time (user + system, all threads, GC
	// included) spent on the run, from /proc/self/stat; 0 where that is
	// unavailable. On a shared machine CPU-based throughput is steadier
	// than wall-clock throughput.
	CPU time.Duration
	// PeakHeapInuse is the largest runtime.MemStats.HeapInuse sampled
	// during the run (garbage not yet collected included), BaseHeapInuse
	// the value after a GC before it.
	PeakHeapInuse, BaseHeapInuse uint64
	// PeakLiveHeap is the largest live heap the GC marked during the run
	// (runtime/metrics /gc/heap/live:bytes): the memory the parser keeps.
	PeakLiveHeap uint64
}

// MBPerSec is the parse throughput in MB (10^6 bytes) per second.
func (r IngestResult) MBPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Bytes) / 1e6 / r.Elapsed.Seconds()
}

// CPUMBPerSec is the parse throughput per CPU second, 0 when CPU is unknown.
func (r IngestResult) CPUMBPerSec() float64 {
	if r.CPU <= 0 {
		return 0
	}
	return float64(r.Bytes) / 1e6 / r.CPU.Seconds()
}

// ingestFiles are the real files of the workload, one or more per format.
var ingestFiles = []struct {
	format ingest.Format
	name   string
}{
	{ingest.FormatCSV, "country-codes.csv"},
	{ingest.FormatJSON, "countries.json"},
	{ingest.FormatJSONL, "gsm8k-test.jsonl"},
	{ingest.FormatXLSX, "kyc-file-structure.xlsx"},
	{ingest.FormatODS, "test-columnar.ods"},
}

// RunIngestParse measures record parsing throughput: each real file of
// cfg.DocsDir is parsed repeatedly until cfg.RepeatBytes have gone through
// the parser (or cfg.FileTime has passed), then a generated CSV of cfg.CSVBytes is streamed from an
// io.Reader (never held in memory or on disk) while a goroutine samples the
// heap, to show that memory stays bounded by the record, not the file. It
// writes one line per input to w.
func RunIngestParse(cfg IngestConfig, w io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	fmt.Fprintf(w, "%-6s %-26s %12s %10s %9s %9s %10s %13s %13s\n", "format", "input", "bytes", "records", "MB/s", "cpu MB/s", "records/s", "peak inuse", "peak live")
	for _, f := range ingestFiles {
		data, err := os.ReadFile(filepath.Join(cfg.DocsDir, f.name))
		if err != nil {
			return fmt.Errorf("ingest bench: %w", err)
		}
		res, err := ingestMeasure(f.format, f.name, cfg, func() io.Reader { return bytes.NewReader(data) }, int64(len(data)), cfg.RepeatBytes, cfg.FileTime)
		if err != nil {
			return err
		}
		ingestPrint(w, res)
	}
	if cfg.CSVBytes > 0 {
		name := fmt.Sprintf("generated %d MiB", cfg.CSVBytes>>20)
		gen := func() io.Reader { return NewIngestCSVGenerator(cfg.CSVBytes, 1) }
		res, err := ingestMeasure(ingest.FormatCSV, name, cfg, gen, cfg.CSVBytes, cfg.CSVBytes, 0)
		if err != nil {
			return err
		}
		ingestPrint(w, res)
	}
	return nil
}

// ingestPrint writes one result line.
func ingestPrint(w io.Writer, r IngestResult) {
	fmt.Fprintf(w, "%-6s %-26s %12d %10d %9.1f %9.1f %10.0f %9.1f MiB %9.1f MiB\n", r.Format, r.Input, r.Bytes, r.Records,
		r.MBPerSec(), r.CPUMBPerSec(), float64(r.Records)/r.Elapsed.Seconds(), float64(r.PeakHeapInuse)/(1<<20), float64(r.PeakLiveHeap)/(1<<20))
	if r.Errors > 0 {
		fmt.Fprintf(w, "       %d record errors\n", r.Errors)
	}
}

// ingestMeasure parses inputs from open, each size bytes, until total bytes
// have been parsed or, when limit > 0, limit has passed, sampling the heap
// all along.
func ingestMeasure(format ingest.Format, name string, cfg IngestConfig, open func() io.Reader, size, total int64, limit time.Duration) (IngestResult, error) {
	res := IngestResult{Format: format, Input: name}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.BaseHeapInuse = ms.HeapInuse
	stop := make(chan struct{})
	var peak, live uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(cfg.SampleEvery)
		defer t.Stop()
		var ms runtime.MemStats
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				live = max(live, sample[0].Value.Uint64())
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	cpu0, cpuOK := ingestCPUTime()
	start := time.Now()
	var err error
	for res.Bytes < total && err == nil && (limit <= 0 || res.Bytes == 0 || time.Since(start) < limit) {
		var n, e int
		n, e, err = ingestDrain(format, open())
		res.Records += n
		res.Errors += e
		res.Bytes += size
	}
	res.Elapsed = time.Since(start)
	if cpu1, ok := ingestCPUTime(); ok && cpuOK {
		res.CPU = cpu1 - cpu0
	}
	close(stop)
	wg.Wait()
	res.PeakHeapInuse, res.PeakLiveHeap = peak, live
	if err != nil {
		return res, fmt.Errorf("ingest bench: %s: %w", name, err)
	}
	return res, nil
}

// ingestCPUTime returns the process's user + system CPU time from
// /proc/self/stat (clock ticks taken as 1/100 s); ok is false where that
// file is unavailable.
func ingestCPUTime() (cpu time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command: state is field 3, utime 14 and stime 15.
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * 10 * time.Millisecond, true
}

// ingestDrain reads every record of r.
func ingestDrain(format ingest.Format, r io.Reader) (records, recordErrors int, err error) {
	rr, err := ingest.NewRecordReader(format, r, ingest.RecordOptions{})
	if err != nil {
		return 0, 0, err
	}
	for {
		_, err := rr.Next()
		if err == io.EOF {
			return records, recordErrors, nil
		}
		var re *ingest.RecordError
		if errors.As(err, &re) {
			recordErrors++
			continue
		}
		if err != nil {
			return records, recordErrors, err
		}
		records++
	}
}

// ingestWords feed the generated CSV: Czech and English words, some with
// diacritics, so that the charset and quoting paths are exercised.
var ingestWords = []string{"Praha", "Brno", "Ostrava", "Plzeň", "České Budějovice", "Ústí nad Labem", "žluťoučký", "kůň", "úpěl", "ďábelské", "ódy", "search", "engine", "record", "value", "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Příliš", "hodně", "dat"}

// IngestCSVGenerator is an io.Reader producing a deterministic CSV of a
// given size: a header, then rows of an integer id, a name, a city, a
// decimal price, a zero-padded code, a quantity and a quoted description
// holding commas, doubled quotes and every 16th row a newline. The last
// row is cut to the exact size, so the file may end inside a row.
type IngestCSVGenerator struct {
	left int64
	rows []string // templates cycled through, each with its id prefixed
	next int
	id   int
	buf  []byte
}

// NewIngestCSVGenerator returns a generator of size bytes seeded by seed.
func NewIngestCSVGenerator(size int64, seed uint64) *IngestCSVGenerator {
	rng := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
	word := func() string { return ingestWords[rng.IntN(len(ingestWords))] }
	rows := make([]string, 1024)
	for i := range rows {
		desc := word() + " " + word() + ", " + word() + " \"\"" + word() + "\"\" " + word()
		if i%16 == 0 {
			desc += "\n" + word()
		}
		rows[i] = fmt.Sprintf(",%s %s,%s,%d.%02d,%04d,%d,\"%s\"\n", word(), word(), word(), rng.IntN(10000), rng.IntN(100), rng.IntN(1000), rng.IntN(50), desc)
	}
	g := &IngestCSVGenerator{left: size, rows: rows}
	g.buf = append(g.buf, "id,name,city,price,code,qty,description\n"...)
	return g
}

// Read implements io.Reader.
func (g *IngestCSVGenerator) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	for len(g.buf) < len(p) && int64(len(g.buf)) < g.left {
		g.id++
		g.buf = strconv.AppendInt(g.buf, int64(g.id), 10)
		g.buf = append(g.buf, g.rows[g.next]...)
		g.next = (g.next + 1) % len(g.rows)
	}
	n := copy(p, g.buf)
	if int64(n) > g.left {
		n = int(g.left)
	}
	g.left -= int64(n)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	return n, nil
}
