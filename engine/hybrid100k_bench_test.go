package engine_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/bench/peers"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
)

// cachedPassages embeds queries with the real default model and answers
// passages from vectors computed beforehand (the bench/peers large
// collection's static vectors, by text), the other way round from
// fixedQueries: a benchmark then times the search including the query's
// model run, on a collection too large to embed on the spot. A chunk the
// engine cut out of a longer text gets a vector hashed from its text
// (counted in misses); the document vectors' quality does not matter for
// latency.
type cachedPassages struct {
	engine.Embedder
	vecs   map[string][]float32
	misses *atomic.Int64
	// With given set, queries of qvecs get their vectors from there
	// without a model run.
	given *atomic.Bool
	qvecs map[string][]float32
}

func (c cachedPassages) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	if v, ok := c.qvecs[texts[0]]; ok && len(texts) == 1 && c.given.Load() {
		return [][]float32{v}, nil
	}
	return c.Embedder.EmbedQueries(ctx, texts)
}

func (c cachedPassages) CountTokens(s string) int {
	return c.Embedder.(engine.TokenCounter).CountTokens(s)
}

func (c cachedPassages) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := c.vecs[t]
		if !ok {
			c.misses.Add(1)
			v = hashVector(t, c.Dims())
		}
		out[i] = v
	}
	return out, nil
}

// hashVector is a deterministic unit vector made from the FNV hash of t.
func hashVector(t string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(t))
	x := h.Sum64()
	v := make([]float32, dims)
	var n float64
	for i := range v {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v[i] = float32(int64(x>>11)%2001-1000) / 1000
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// hybrid100k is BenchmarkHybrid100k's engine, built once per process.
var hybrid100k struct {
	once    sync.Once
	e       *engine.Engine
	queries []string
	given   atomic.Bool // cachedPassages.given
	err     error
}

// hybrid100kChunks is the collection size.
const hybrid100kChunks = 100000

// shortTrainQueries returns the SciFact train queries (never the test
// split) of fewer than maxTokens model tokens (the query instruction and
// the special tokens excluded).
func shortTrainQueries(tb testing.TB, tc engine.TokenCounter, maxTokens int) []string {
	dir := filepath.Join(testutil.SharedData(tb), "beir", "scifact")
	train := map[string]bool{}
	f, err := os.Open(filepath.Join(dir, "qrels", "train.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id, _, ok := strings.Cut(sc.Text(), "\t"); ok {
			train[id] = true
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			tb.Fatal(err)
		}
		if train[q.ID] && tc.CountTokens(q.Text) < maxTokens {
			out = append(out, q.Text)
		}
	}
	return out
}

// largeStaticVectors maps each of texts (the first chunks of the
// bench/peers large collection) to its vector in path, the collection's
// cached static vectors (raw little-endian float32 rows, row i = chunk i,
// written by `najdi-bench peers`); the file may hold more rows.
func largeStaticVectors(path string, texts []string, dims int) (map[string][]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run `najdi-bench peers` once to make it)", err)
	}
	defer f.Close()
	raw := make([]byte, len(texts)*dims*4)
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, fmt.Errorf("%s: %d rows of %d dims wanted: %w", path, len(texts), dims, err)
	}
	vecs := make(map[string][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, dims)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[(i*dims+j)*4:]))
		}
		vecs[t] = v
	}
	return vecs, nil
}

// hybrid100kSetup opens the engine of BenchmarkHybrid100k: one hybrid
// collection "big" of the bench/peers large collection's first 100,000
// chunks (two SciFact sentences each, peers.LargeTexts seed 1) with their
// cached static vectors ($NAJDI_CACHE/bench/peers-large-static-100000.f32,
// written by `najdi-bench peers`), merged into one segment; queries are
// embedded by the real default model (bge-small-en-v1.5), with the
// engine's query cache off. NAJDI_HYBRID100K_DIR keeps the engine's
// directory between runs (ingesting takes minutes), so that two builds
// compare on the same data.
func hybrid100kSetup(b *testing.B) *engine.Engine {
	s := &hybrid100k
	s.once.Do(func() {
		// NAJDI_BENCH_QUERY_THREADS sets the query session's intra-op
		// threads (ProviderOptions.QueryEmbedThreads; default GOMAXPROCS).
		threads, _ := strconv.Atoi(os.Getenv("NAJDI_BENCH_QUERY_THREADS"))
		dir, lib := embed.CachePaths(embed.DefaultCacheDir())
		prov, err := engine.NewModelProviderOptions(dir, lib, engine.ProviderOptions{QueryEmbedThreads: threads})
		if err != nil {
			s.err = err
			return
		}
		// prov and the engine live as long as the process: -count runs
		// the benchmark again on them.
		base, err := prov.Embedder(engine.EmbeddingConfig{Model: "default"})
		if err != nil {
			s.err = err
			return
		}
		tc := base.(engine.TokenCounter)
		s.queries = shortTrainQueries(b, tc, 16)
		lens := make([]float64, len(s.queries))
		for i, q := range s.queries {
			lens[i] = float64(tc.CountTokens(q))
		}
		b.Logf("hybrid100k: %d short train queries, median %.0f tokens (the query instruction and special tokens excluded)", len(s.queries), quantile(lens, 0.5))
		bs, err := bench.LoadBEIR(filepath.Join(testutil.SharedData(b), "beir", "scifact"))
		if err != nil {
			s.err = err
			return
		}
		texts := peers.LargeTexts(bs, hybrid100kChunks, 1)
		cache := filepath.Join(embed.DefaultCacheDir(), "bench", fmt.Sprintf("peers-large-static-%d.f32", hybrid100kChunks))
		vecs, err := largeStaticVectors(cache, texts, base.Dims())
		if err != nil {
			s.err = err
			return
		}
		emb := cachedPassages{Embedder: base, vecs: vecs, misses: new(atomic.Int64), given: &s.given, qvecs: map[string][]float32{}}
		for _, q := range s.queries {
			v, err := base.EmbedQueries(context.Background(), []string{q})
			if err != nil {
				s.err = err
				return
			}
			emb.qvecs[q] = v[0]
		}
		edir := os.Getenv("NAJDI_HYBRID100K_DIR")
		if edir == "" {
			if edir, err = os.MkdirTemp("", "najdi-hybrid100k"); err != nil {
				s.err = err
				return
			}
		}
		e, err := engine.Open(engine.Options{Dir: edir, Embedders: fixedProvider{emb}, Logger: discardLogger(), QueryCacheSize: -1, FlushDocs: 5000})
		if err != nil {
			s.err = err
			return
		}
		s.e = e
		ctx := context.Background()
		if c, err := e.GetCollection(ctx, "", "big"); err == nil && c.DocumentCount >= hybrid100kChunks {
			return
		}
		if _, _, err := e.PutCollection(ctx, "", "big", engine.CollectionConfig{}); err != nil {
			s.err = err
			return
		}
		for i := 0; i < len(texts); i += 5000 {
			docs := make([]engine.DocumentInput, 0, 5000)
			for j, t := range texts[i:min(i+5000, len(texts))] {
				docs = append(docs, engine.DocumentInput{DocumentID: fmt.Sprintf("c%07d", i+j), Sections: []ingest.Section{{Type: "p", Content: t}}})
			}
			if _, err := e.Ingest(ctx, "", "big", engine.IngestRequest{Documents: docs}); err != nil {
				s.err = err
				return
			}
		}
		if err := e.MergeNow("", "big"); err != nil {
			s.err = err
			return
		}
		b.Logf("hybrid100k: %d chunks ingested, %d chunk vectors hashed (not in the cache)", len(texts), emb.misses.Load())
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.e
}

// BenchmarkHybrid100k times a hybrid search of one short query (SciFact
// train queries of fewer than 16 model tokens, in turn) on 100,000 chunks,
// top 10, no passages nor content (the peer benchmark's lean request),
// including the query's model run (query cache off). It reports the p50
// and p99 of the whole search and the p50 of each stage of
// metadata.timings (embed, retrieve, fuse, load, render), in ms.
// "given" answers the query's embedding with its vector computed
// beforehand: the search without the model run. "given-3cand" is "given"
// with the former semantic budget of 3·cand chunks per segment for
// one-chunk documents (semanticK): it also reports the share of queries
// whose top 10 (ids in order) equals the one "given" returned.
// "keyword" runs the keyword retriever alone (SearchRequest.Retrievers),
// as a keyword-only collection would.
func BenchmarkHybrid100k(b *testing.B) {
	e := hybrid100kSetup(b)
	s := &hybrid100k
	ctx := context.Background()
	k, hl := 10, false
	top := map[string]string{} // query → its "given" top 10
	for _, mode := range []string{"embed", "given", "given-3cand", "keyword"} {
		b.Run("query="+mode, func(b *testing.B) {
			s.given.Store(strings.HasPrefix(mode, "given"))
			defer s.given.Store(false)
			if mode == "given-3cand" {
				defer engine.SetMinChunksPerCand(3)()
			}
			var same, compared int
			var lat, emb, ret, fuse, load, render []float64
			i := 0
			for b.Loop() {
				q := s.queries[i%len(s.queries)]
				i++
				req := engine.SearchRequest{Query: q, MaxResults: &k, Highlight: &hl, IncludeFields: []string{"none"}}
				if mode == "keyword" {
					req.Retrievers = engine.RetrieveKeyword
				}
				t0 := time.Now()
				resp, err := e.Search(ctx, "", []string{"big"}, req)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, float64(time.Since(t0))/1e6)
				ids := make([]string, len(resp.Documents))
				for j, d := range resp.Documents {
					ids[j] = d.DocumentID
				}
				switch key := strings.Join(ids, " "); mode {
				case "given":
					top[q] = key
				case "given-3cand":
					if want, ok := top[q]; ok {
						compared++
						if want == key {
							same++
						}
					}
				}
				tm := resp.Metadata.Timings
				emb, ret, fuse = append(emb, tm.EmbedMS), append(ret, tm.RetrieveMS), append(fuse, tm.FuseMS)
				load, render = append(load, tm.LoadMS), append(render, tm.RenderMS)
			}
			b.ReportMetric(quantile(lat, 0.5), "p50-ms")
			b.ReportMetric(quantile(lat, 0.99), "p99-ms")
			b.ReportMetric(quantile(emb, 0.5), "embed-p50-ms")
			b.ReportMetric(quantile(ret, 0.5), "retrieve-p50-ms")
			b.ReportMetric(quantile(fuse, 0.5), "fuse-p50-ms")
			b.ReportMetric(quantile(load, 0.5), "load-p50-ms")
			b.ReportMetric(quantile(render, 0.5), "render-p50-ms")
			if compared > 0 {
				b.ReportMetric(float64(same)/float64(compared), "same-top10")
			}
		})
	}
}

// quantile returns the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
