package embed

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"
)

// scifactChunks returns the first n passages of at most 256 tokens cut from
// SciFact abstracts.
func scifactChunks(tb testing.TB, counter TokenCounter, n int) []string {
	tb.Helper()
	var out []string
	for _, text := range scifactTexts(tb, n) {
		for _, c := range ChunkText(text, counter, 256) {
			if len(out) < n {
				out = append(out, text[c.Start:c.End])
			}
		}
	}
	return out
}

func BenchmarkTokenize(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	chunks := scifactChunks(b, l.Tokenizer(), 500)
	var size int64
	for _, c := range chunks {
		size += int64(len(c))
	}
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		for _, c := range chunks {
			l.tok.Encode(c, 512)
		}
	}
}

// BenchmarkEmbedBatch measures EmbedPassages on SciFact chunks, calling it
// with batches of 1, 8 and 32 texts.
func BenchmarkEmbedBatch(b *testing.B) {
	for _, batch := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			l := loadModel(b, "bge-small-en-v1.5")
			chunks := scifactChunks(b, l.Tokenizer(), 64)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				for i := 0; i < len(chunks); i += batch {
					if _, err := l.EmbedPassages(ctx, chunks[i:min(i+batch, len(chunks))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "sentences/s")
		})
	}
}

// BenchmarkIngestOverhead compares raw ONNX Runtime throughput (session.Run
// on tensors built beforehand from pre-tokenized chunks) with the full
// EmbedPassages path (tokenize, batch, run, pool, normalize) on the same 500
// SciFact chunks. Raw and full runs alternate chunk by chunk, so both see the
// same load on a shared machine. It reports both rates and full/raw.
func BenchmarkIngestOverhead(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	chunks := scifactChunks(b, l.Tokenizer(), 500)
	ctx := context.Background()

	type prepared struct{ in, out []ort.Value }
	var runs []prepared
	for _, c := range chunks {
		ids := l.tok.Encode(l.man.PassagePrefix+c, l.man.MaxTokens)
		var in inputBuf
		in.fill([][]int32{ids}, []int{0}, len(ids), l.tok.PadID())
		shape := ort.NewShape(1, int64(len(ids)))
		var p prepared
		for _, data := range [][]int64{in.ids, in.mask, in.types} {
			t, err := ort.NewTensor(shape, data)
			if err != nil {
				b.Fatal(err)
			}
			p.in = append(p.in, t)
		}
		t, err := ort.NewEmptyTensor[float32](ort.NewShape(1, int64(len(ids)), int64(l.Dims())))
		if err != nil {
			b.Fatal(err)
		}
		p.out = []ort.Value{t}
		runs = append(runs, p)
	}
	defer func() {
		for _, p := range runs {
			for _, v := range append(p.in, p.out...) {
				v.Destroy()
			}
		}
	}()
	ps, err := l.passageSession() // the session EmbedPassages runs in
	if err != nil {
		b.Fatal(err)
	}
	var raw, full time.Duration
	b.ReportAllocs()
	for b.Loop() {
		for i, p := range runs {
			start := time.Now()
			if err := ps.sess.Run(p.in, p.out); err != nil {
				b.Fatal(err)
			}
			mid := time.Now()
			if _, err := l.EmbedPassages(ctx, chunks[i:i+1]); err != nil {
				b.Fatal(err)
			}
			raw += mid.Sub(start)
			full += time.Since(mid)
		}
	}
	n := float64(len(chunks) * b.N)
	b.ReportMetric(n/raw.Seconds(), "raw_chunks/s")
	b.ReportMetric(n/full.Seconds(), "full_chunks/s")
	b.ReportMetric(full.Seconds()/raw.Seconds(), "full/raw")
}

// BenchmarkEmbedQuery measures the latency of one short query.
func BenchmarkEmbedQuery(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	q := []string{"what causes bone fractures in elderly patients"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.EmbedQueries(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryDuringPassages measures query embedding latency while
// another goroutine embeds 512-token passages without pause, as an ingest
// does, and alone (p50 and p99 of each, in ms). Queries run in their own
// session: they wait neither for a passage run in flight nor behind it.
func BenchmarkQueryDuringPassages(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	ctx := context.Background()
	passage := strings.Repeat("the quick brown fox jumps over the lazy dog while ", 60)
	query := []string{"effects of vitamin d on bone density"}
	measure := func(n int) (p50, p99 float64) {
		lat := make([]float64, n)
		for i := range lat {
			start := time.Now()
			if _, err := l.EmbedQueries(ctx, query); err != nil {
				b.Fatal(err)
			}
			lat[i] = float64(time.Since(start)) / float64(time.Millisecond)
			time.Sleep(5 * time.Millisecond)
		}
		slices.Sort(lat)
		return lat[n/2], lat[min(n-1, n*99/100)]
	}
	for b.Loop() {
		p50, p99 := measure(60)
		b.ReportMetric(p50, "idle-p50-ms")
		b.ReportMetric(p99, "idle-p99-ms")
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := l.EmbedPassages(ctx, []string{passage}); err != nil {
					panic(err)
				}
			}
		}()
		time.Sleep(100 * time.Millisecond)
		p50, p99 = measure(60)
		close(stop)
		<-done
		b.ReportMetric(p50, "busy-p50-ms")
		b.ReportMetric(p99, "busy-p99-ms")
	}
}

// queryTunings are BenchmarkQueryTuning's variants: the default and one
// option changed at a time (plus spinning with the best block base).
var queryTunings = []struct {
	name    string
	threads int
	tune    SessionTuning
}{
	{"default", 0, SessionTuning{}},
	{"threads=1", 1, SessionTuning{}},
	{"no-arena", 0, SessionTuning{NoArena: true}},
	{"no-mem-pattern", 0, SessionTuning{NoMemPattern: true}},
	{"graph=basic", 0, SessionTuning{GraphOpt: 1}},
	{"graph=extended", 0, SessionTuning{GraphOpt: 2}},
	{"spin", 0, SessionTuning{Spin: true}},
	{"spin+stop", 0, SessionTuning{Spin: true, Config: map[string]string{"session.force_spinning_stop": "1"}}},
	{"block-base=1", 0, SessionTuning{Config: map[string]string{"session.dynamic_block_base": "1"}}},
	{"block-base=4", 0, SessionTuning{Config: map[string]string{"session.dynamic_block_base": "4"}}},
	{"spin+stop+block-base=4", 0, SessionTuning{Spin: true, Config: map[string]string{"session.force_spinning_stop": "1", "session.dynamic_block_base": "4"}}},
	{"inter-op=2", 0, SessionTuning{InterOpThreads: 2}},
	{"denormal-zero", 0, SessionTuning{Config: map[string]string{"session.set_denormal_as_zero": "1"}}},
	{"no-prepacking", 0, SessionTuning{Config: map[string]string{"session.disable_prepacking": "1"}}},
}

// BenchmarkQueryTuning measures one short query (9 words, 17 tokens with
// the query instruction) in a query session with each ONNX Runtime option
// of SessionTuning and each thread count, one option changed at a time
// from the default (queryTunings): 1 intra-op thread, the CPU memory arena
// and memory pattern off, basic and extended graph optimization, spinning
// idle threads (with and without stopping them when a run ends), dynamic
// block bases 1 and 4 (how finely a parallel loop is cut), parallel
// execution on 2 inter-op threads, denormals as zero and no weight
// prepacking. It reports each variant's cosine to the default vector.
// NAJDI_QUERY_TUNINGS (comma-separated names) selects variants. Compare the
// variants with `benchstat -col /opt`.
func BenchmarkQueryTuning(b *testing.B) { queryTuning(b, false) }

// BenchmarkQueryTuningBusy is BenchmarkQueryTuning while another goroutine
// embeds 512-token passages without pause in the passage session, as an
// ingest does: options that help an idle machine (spinning) may hurt one
// whose cores are taken.
func BenchmarkQueryTuningBusy(b *testing.B) { queryTuning(b, true) }

func queryTuning(b *testing.B, busy bool) {
	q := []string{"what causes bone fractures in elderly patients"}
	ctx := context.Background()
	want, err := loadModel(b, "bge-small-en-v1.5").EmbedQueries(ctx, q)
	if err != nil {
		b.Fatal(err)
	}
	if busy {
		stop := make(chan struct{})
		done := make(chan struct{})
		passage := strings.Repeat("the quick brown fox jumps over the lazy dog while ", 60)
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := loadModel(b, "bge-small-en-v1.5").EmbedPassages(ctx, []string{passage}); err != nil {
					panic(err)
				}
			}
		}()
		defer func() { close(stop); <-done }()
		time.Sleep(100 * time.Millisecond)
	}
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("NAJDI_QUERY_TUNINGS"), ",") {
		if n != "" {
			only[n] = true
		}
	}
	for _, v := range queryTunings {
		if len(only) > 0 && !only[v.name] {
			continue
		}
		var l *Local
		if x, ok := tunedModels.Load(v.name); ok {
			l = x.(*Local) // kept across -count runs, so that the variants interleave cheaply
		} else {
			var err error
			l, err = LoadLocal(modelDir(b, "bge-small-en-v1.5"), LocalOptions{LibraryPath: libPath(b), QueryThreads: v.threads, QueryTuning: v.tune})
			if err != nil {
				b.Fatal(err)
			}
			tunedModels.Store(v.name, l)
		}
		b.Run("opt="+v.name, func(b *testing.B) {
			got, err := l.EmbedQueries(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.EmbedQueries(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			// A variant that changes the vector cannot serve collections
			// embedded with the default passage session.
			b.ReportMetric(cosine(got[0], toF64(want[0])), "cos-to-default")
		})
	}
}

// tunedModels keeps BenchmarkQueryTuning's models by variant.
var tunedModels sync.Map

func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// BenchmarkShortQueryBreakdown splits the embedding of one short query
// (bge-small, 5 to 15 tokens with the query instruction excluded) into its
// stages: tokenization, the raw ONNX Runtime run of the query session on
// tensors built beforehand, and the whole EmbedQueries call (tokenize,
// tensors, run, pool, normalize). Raw and full runs alternate query by
// query, so both see the same load. It reports tokenize_µs, raw_ms,
// full_ms and full-raw_ms (the Go side around the model run).
func BenchmarkShortQueryBreakdown(b *testing.B) {
	l := loadModel(b, "bge-small-en-v1.5")
	ctx := context.Background()
	for _, q := range []string{
		"bone fractures elderly",
		"what causes bone fractures in elderly patients",
		"does vitamin D supplementation reduce the risk of hip fractures in older women",
	} {
		ids := l.tok.Encode(l.man.QueryPrefix+q, l.man.MaxTokens)
		b.Run(fmt.Sprintf("tokens=%d", len(ids)), func(b *testing.B) {
			var in inputBuf
			in.fill([][]int32{ids}, []int{0}, len(ids), l.tok.PadID())
			shape := ort.NewShape(1, int64(len(ids)))
			var vals []ort.Value
			for i, data := range [][]int64{in.ids, in.mask, in.types} {
				if i == 2 && !l.withTypes {
					break
				}
				t, err := ort.NewTensor(shape, data)
				if err != nil {
					b.Fatal(err)
				}
				vals = append(vals, t)
			}
			out, err := ort.NewEmptyTensor[float32](ort.NewShape(1, int64(len(ids)), int64(l.Dims())))
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				for _, v := range append(vals, out) {
					v.Destroy()
				}
			}()
			var tok, raw, full time.Duration
			texts := []string{q}
			for b.Loop() {
				t0 := time.Now()
				l.tok.Encode(l.man.QueryPrefix+q, l.man.MaxTokens)
				t1 := time.Now()
				if err := l.query.sess.Run(vals, []ort.Value{out}); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if _, err := l.EmbedQueries(ctx, texts); err != nil {
					b.Fatal(err)
				}
				tok += t1.Sub(t0)
				raw += t2.Sub(t1)
				full += time.Since(t2)
			}
			n := float64(b.N)
			b.ReportMetric(tok.Seconds()*1e6/n, "tokenize_µs")
			b.ReportMetric(raw.Seconds()*1e3/n, "raw_ms")
			b.ReportMetric(full.Seconds()*1e3/n, "full_ms")
			b.ReportMetric((full-raw).Seconds()*1e3/n, "full-raw_ms")
		})
	}
}

// BenchmarkConcurrentQueries embeds short queries from 4 goroutines at
// once in query sessions that allow 1 or 2 runs in flight
// (LocalOptions.QueryWorkers; one session shared by every caller, its runs
// sharing its intra-op threads): ns/op is the time per query at
// saturation (the inverse of the throughput).
func BenchmarkConcurrentQueries(b *testing.B) {
	qs := []string{"bone fractures elderly", "what causes bone fractures in elderly patients", "does vitamin D supplementation reduce the risk of hip fractures in older women"}
	ctx := context.Background()
	for _, workers := range []int{1, 2} {
		name := fmt.Sprintf("workers=%d", workers)
		var l *Local
		if x, ok := tunedModels.Load(name); ok {
			l = x.(*Local)
		} else {
			var err error
			if l, err = LoadLocal(modelDir(b, "bge-small-en-v1.5"), LocalOptions{LibraryPath: libPath(b), QueryWorkers: workers}); err != nil {
				b.Fatal(err)
			}
			tunedModels.Store(name, l)
		}
		b.Run(name, func(b *testing.B) {
			b.SetParallelism(2) // 2 × GOMAXPROCS goroutines
			var next atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					q := qs[int(next.Add(1))%len(qs)]
					if _, err := l.EmbedQueries(ctx, []string{q}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
