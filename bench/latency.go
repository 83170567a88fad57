package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/text"
)

// LatencyConfig configures RunLatency.
type LatencyConfig struct {
	// SciFactSetup locates SciFact (sentences of its abstracts are the
	// chunks), the engine directory, the model and the vector cache.
	SciFactSetup
	// Chunks is the collection size in chunks (default 100,000).
	Chunks int
	// Queries is the number of timed queries (default 300).
	Queries int
}

// RunLatency builds a collection of cfg.Chunks one-chunk documents (SciFact
// sentences and sentence pairs, each document carrying a "bucket" enum
// field) and reports hybrid search latency p50/p99 with and without a
// filter, excluding and including the query embedding, plus the raw
// embedding throughput against the engine's ingest throughput on the same
// texts.
func RunLatency(cfg LatencyConfig, w io.Writer) error {
	if cfg.Chunks == 0 {
		cfg.Chunks = 100000
	}
	if cfg.Queries == 0 {
		cfg.Queries = 300
	}
	b, err := LoadBEIR(cfg.BEIRDir)
	if err != nil {
		return err
	}
	texts := latencyTexts(b, cfg.Chunks)
	m, err := openCachedModel(cfg.Models, cfg.ORTLib, cfg.Cache)
	if err != nil {
		return err
	}
	defer m.Close()
	base, cache, ce := m.base, m.cache, m.cached
	dir, remove, err := workDir(cfg.Dir, "najdi-latency")
	if err != nil {
		return err
	}
	defer remove()
	cfg.Dir = dir
	ctx := context.Background()

	if err := latencyThroughput(ctx, base, texts, cfg.Dir, w); err != nil {
		return err
	}
	e, err := engine.Open(engine.Options{Dir: filepath.Join(cfg.Dir, "big"), Embedders: singleProvider{ce}, FlushDocs: 5000})
	if err != nil {
		return err
	}
	defer e.Close()
	if err := latencyCollection(ctx, e, texts, cache, cfg.Cache, w); err != nil {
		return err
	}
	qs := b.Queries[:min(cfg.Queries, len(b.Queries))]
	return latencySearches(ctx, e, ce, qs, len(texts), w)
}

// latencyThroughput compares the raw embedding throughput with the
// engine's ingest throughput on the same 300 texts, one run each after a
// warm-up, in an engine under dir/tp.
func latencyThroughput(ctx context.Context, base engine.Embedder, texts []string, dir string, w io.Writer) error {
	sample := texts[:min(300, len(texts))]
	if _, err := base.EmbedPassages(ctx, texts[len(texts)-20:]); err != nil {
		return err
	}
	start := time.Now()
	if _, err := base.EmbedPassages(ctx, sample); err != nil {
		return err
	}
	raw := time.Since(start)
	e, err := engine.Open(engine.Options{Dir: filepath.Join(dir, "tp"), Embedders: singleProvider{base}})
	if err != nil {
		return err
	}
	defer e.Close()
	if _, _, err := e.PutCollection(ctx, "", "tp", engine.CollectionConfig{}); err != nil {
		return err
	}
	start = time.Now()
	if _, err := e.Ingest(ctx, "", "tp", engine.IngestRequest{Documents: latencyDocs(sample, 0)}); err != nil {
		return err
	}
	full := time.Since(start)
	fmt.Fprintf(w, "throughput on %d texts: raw ONNX embedding %.1f texts/s, engine ingest %.1f docs/s (ratio %.2f)\n",
		len(sample), float64(len(sample))/raw.Seconds(), float64(len(sample))/full.Seconds(), raw.Seconds()/full.Seconds())
	return nil
}

// latencyCollection fills the collection "big" with texts (one document
// each) unless it holds them already, saving the vector cache to
// cachePath after each batch of 5,000.
func latencyCollection(ctx context.Context, e *engine.Engine, texts []string, cache *vecCache, cachePath string, w io.Writer) error {
	if c, err := e.GetCollection(ctx, "", "big"); err == nil && c.DocumentCount >= int64(len(texts)) {
		return nil
	}
	if _, _, err := e.PutCollection(ctx, "", "big", engine.CollectionConfig{Fields: map[string]engine.FieldSpec{"bucket": {Type: engine.FieldEnum}}}); err != nil {
		return err
	}
	start := time.Now()
	for i := 0; i < len(texts); i += 5000 {
		part := texts[i:min(i+5000, len(texts))]
		if _, err := e.Ingest(ctx, "", "big", engine.IngestRequest{Documents: latencyDocs(part, i)}); err != nil {
			return err
		}
		if err := cache.save(cachePath); err != nil {
			return err
		}
		fmt.Fprintf(w, "  ingested %d/%d (%s)\n", i+len(part), len(texts), time.Since(start).Round(time.Second))
	}
	return e.MergeNow("", "big")
}

// latencySearches times the hybrid searches of qs on "big" (chunks texts),
// without and with a filter, each once embedding the query and once with
// the query vector given (ce.query).
func latencySearches(ctx context.Context, e *engine.Engine, ce *cachedEmbedder, qs []BEIRQuery, chunks int, w io.Writer) error {
	qvecs := make([][]float32, len(qs))
	for i, q := range qs {
		v, err := ce.Embedder.EmbedQueries(ctx, []string{q.Text})
		if err != nil {
			return err
		}
		qvecs[i] = v[0]
	}
	hl := false
	k := 10
	for _, withFilter := range []bool{false, true} {
		var incl, excl []time.Duration
		for i, q := range qs {
			req := engine.SearchRequest{Query: q.Text, MaxResults: &k, Highlight: &hl, IncludeFields: []string{"none"}}
			if withFilter {
				req.Filter = []byte(`{"bool": {"must": [{"terms": {"bucket": ["b1", "b2"]}}]}}`)
			}
			ce.query = nil
			t0 := time.Now()
			if _, err := e.Search(ctx, "", []string{"big"}, req); err != nil {
				return err
			}
			incl = append(incl, time.Since(t0))
			ce.query = qvecs[i]
			t0 = time.Now()
			if _, err := e.Search(ctx, "", []string{"big"}, req); err != nil {
				return err
			}
			excl = append(excl, time.Since(t0))
		}
		ce.query = nil
		name := "no filter"
		if withFilter {
			name = "filter (20% of documents)"
		}
		fmt.Fprintf(w, "hybrid search, %d chunks, %s: including query embedding p50 %s p99 %s; excluding p50 %s p99 %s\n",
			chunks, name, pct(incl, 50), pct(incl, 99), pct(excl, 50), pct(excl, 99))
	}
	return nil
}

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)].Round(10 * time.Microsecond)
}

// latencyTexts returns n chunk texts: SciFact sentences, then adjacent
// sentence pairs, then titles, then sentence triples, in corpus order.
func latencyTexts(b *BEIR, n int) []string {
	var sents [][]string
	for _, d := range b.Docs {
		var ss []string
		for _, sp := range text.Sentences(d.Text) {
			if s := strings.TrimSpace(d.Text[sp.Start:sp.End]); len(s) > 20 {
				ss = append(ss, s)
			}
		}
		sents = append(sents, ss)
	}
	var out []string
	for _, ss := range sents {
		out = append(out, ss...)
	}
	for _, ss := range sents {
		for i := 0; i+1 < len(ss); i++ {
			out = append(out, ss[i]+" "+ss[i+1])
		}
	}
	for _, d := range b.Docs {
		out = append(out, d.Title)
	}
	for _, ss := range sents {
		for i := 0; i+2 < len(ss) && len(out) < n; i++ {
			out = append(out, ss[i]+" "+ss[i+1]+" "+ss[i+2])
		}
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func latencyDocs(texts []string, offset int) []engine.DocumentInput {
	docs := make([]engine.DocumentInput, len(texts))
	for i, t := range texts {
		docs[i] = engine.DocumentInput{DocumentID: fmt.Sprintf("c%d", offset+i), Sections: []ingest.Section{{Type: "p", Content: t}},
			Fields: map[string]any{"bucket": fmt.Sprintf("b%d", (offset+i)%10)}}
	}
	return docs
}

type singleProvider struct{ e engine.Embedder }

func (p singleProvider) Embedder(engine.EmbeddingConfig) (engine.Embedder, error) { return p.e, nil }

// cachedEmbedder serves passage vectors from a cache and can answer every
// query with a fixed vector (to time search without query embedding).
type cachedEmbedder struct {
	engine.Embedder
	cache *vecCache
	query []float32
}

func (c *cachedEmbedder) CountTokens(s string) int {
	if tc, ok := c.Embedder.(embed.TokenCounter); ok {
		return tc.CountTokens(s)
	}
	return len(strings.Fields(s))
}

func (c *cachedEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	if c.query != nil && len(texts) == 1 {
		return [][]float32{c.query}, nil
	}
	return c.Embedder.EmbedQueries(ctx, texts)
}

func (c *cachedEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	var at []int
	for i, t := range texts {
		if v, ok := c.cache.get(t); ok {
			out[i] = v
		} else {
			miss = append(miss, t)
			at = append(at, i)
		}
	}
	if len(miss) > 0 {
		vs, err := c.Embedder.EmbedPassages(ctx, miss)
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			out[at[j]] = v
			c.cache.put(miss[j], v)
		}
	}
	return out, nil
}

// vecCache maps texts to vectors and persists them in a simple file:
// records of (uvarint text length, text, uvarint dims, float32s).
type vecCache struct {
	mu    sync.Mutex
	m     map[string][]float32
	dirty bool
}

func (c *vecCache) get(t string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[t]
	return v, ok
}

func (c *vecCache) put(t string, v []float32) {
	c.mu.Lock()
	c.m[t] = v
	c.dirty = true
	c.mu.Unlock()
}

func loadVecCache(path string) (*vecCache, error) {
	c := &vecCache{m: map[string][]float32{}}
	if path == "" {
		return c, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return nil, fmt.Errorf("vector cache %s: %w", path, err)
		}
		tb := make([]byte, n)
		if _, err := io.ReadFull(r, tb); err != nil {
			return nil, fmt.Errorf("vector cache %s: %w", path, err)
		}
		d, err := binary.ReadUvarint(r)
		if err != nil || d > 1<<16 {
			return nil, fmt.Errorf("vector cache %s: bad dims", path)
		}
		v := make([]float32, d)
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			return nil, fmt.Errorf("vector cache %s: %w", path, err)
		}
		c.m[string(tb)] = v
	}
}

func (c *vecCache) save(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if path == "" || !c.dirty {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	var hdr []byte
	for t, v := range c.m {
		hdr = binary.AppendUvarint(hdr[:0], uint64(len(t)))
		bw.Write(hdr)
		bw.WriteString(t)
		hdr = binary.AppendUvarint(hdr[:0], uint64(len(v)))
		bw.Write(hdr)
		for _, x := range v {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
			bw.Write(b[:])
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	c.dirty = false
	return os.Rename(tmp, path)
}
