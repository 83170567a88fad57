package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/vector"
)

// Files written by EmbedVectors under EmbedConfig.OutDir.
const (
	// VectorCorpusFile holds the passage vectors of SciFact titles,
	// sentences and clauses.
	VectorCorpusFile = "scifact-bge-small-384.f32"
	// VectorQueryFile holds the query vectors of all SciFact queries.
	VectorQueryFile = "scifact-queries-bge-small-384.f32"
)

// DefaultEmbedLimit is the corpus size of the reference vector file: all
// 98,401 titles, sentences and clauses and the first 6,599 sentence pairs.
const DefaultEmbedLimit = 105_000

// EmbedConfig configures EmbedVectors.
type EmbedConfig struct {
	// Dir is the BEIR SciFact directory (corpus.jsonl, queries.jsonl).
	Dir string
	// ModelDir is the embedding model directory (bge-small-en-v1.5).
	ModelDir string
	// LibraryPath is the path of libonnxruntime.so.
	LibraryPath string
	// OutDir receives VectorCorpusFile and VectorQueryFile.
	OutDir string
	// Limit caps the number of corpus texts embedded; 0 means all
	// (about 140k texts).
	Limit int
	// Threads is ONNX Runtime's thread count; 0 means all cores.
	Threads int
}

// EmbedVectors builds the real-vector fixture of the vector workload: it
// cuts every SciFact abstract into its title, its sentences and, for
// sentences with several clauses of at least four words, those clauses
// (98,401 texts), shuffled with a fixed seed, followed by pairs of adjacent
// sentences (shuffled), embeds the first Limit of them as passages and
// appends them as raw little-endian float32 rows to OutDir/VectorCorpusFile,
// batch by batch. A run resumes after the rows already in the file, so a
// killed run loses at most one batch and a larger Limit extends the file.
// The SciFact queries go to OutDir/VectorQueryFile first.
func EmbedVectors(cfg EmbedConfig, w io.Writer) error {
	texts, queries, err := vectorTexts(cfg.Dir)
	if err != nil {
		return err
	}
	if cfg.Limit > 0 && len(texts) > cfg.Limit {
		texts = texts[:cfg.Limit]
	}
	m, err := embed.LoadLocal(cfg.ModelDir, embed.LocalOptions{LibraryPath: cfg.LibraryPath, Threads: cfg.Threads})
	if err != nil {
		return fmt.Errorf("load model: %w", err)
	}
	defer m.Close()
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return err
	}
	ctx := context.Background()
	qpath := filepath.Join(cfg.OutDir, VectorQueryFile)
	if _, err := os.Stat(qpath); err != nil {
		qv, err := m.EmbedQueries(ctx, queries)
		if err != nil {
			return fmt.Errorf("embed queries: %w", err)
		}
		if err := WriteVectors(qpath, qv); err != nil {
			return err
		}
		fmt.Fprintf(w, "embedded %d queries\n", len(qv))
	}
	f, err := os.OpenFile(filepath.Join(cfg.OutDir, VectorCorpusFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	rowBytes := int64(4 * m.Dims())
	done := int(st.Size() / rowBytes)
	// Drop a partial row of a killed run and append after the full ones.
	if _, err := f.Seek(int64(done)*rowBytes, io.SeekStart); err != nil {
		return err
	}
	if err := f.Truncate(int64(done) * rowBytes); err != nil {
		return err
	}
	start := time.Now()
	const batch = 512
	var buf []byte
	for lo := done; lo < len(texts); lo += batch {
		hi := min(lo+batch, len(texts))
		vs, err := m.EmbedPassages(ctx, texts[lo:hi])
		if err != nil {
			return fmt.Errorf("embed passages %d..%d: %w", lo, hi, err)
		}
		buf = appendVectors(buf[:0], vs)
		if _, err := f.Write(buf); err != nil {
			return err
		}
		el := time.Since(start).Seconds()
		fmt.Fprintf(w, "embedded %d/%d passages, %.0f/s\n", hi, len(texts), float64(hi-done)/el)
	}
	return f.Close()
}

// vectorTexts returns the corpus texts of a SciFact directory (titles,
// sentences and clauses shuffled, then pairs of adjacent sentences
// shuffled) and its queries.
func vectorTexts(dir string) (texts, queries []string, err error) {
	var pairs []string
	err = beirReadJSONL(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var d BEIRDoc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		if t := strings.TrimSpace(d.Title); t != "" {
			texts = append(texts, t)
		}
		sents := splitSentences(d.Text)
		for i := 1; i < len(sents); i++ {
			pairs = append(pairs, sents[i-1]+" "+sents[i])
		}
		for _, s := range sents {
			texts = append(texts, s)
			var frags []string
			for _, c := range splitClauses(s) {
				if len(strings.Fields(c)) >= 4 {
					frags = append(frags, c)
				}
			}
			if len(frags) > 1 {
				texts = append(texts, frags...)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	err = beirReadJSONL(filepath.Join(dir, "queries.jsonl"), func(line []byte) error {
		var q BEIRQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		queries = append(queries, q.Text)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
	r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	return append(texts, pairs...), queries, nil
}

// splitSentences cuts s after '.', '!' or '?' followed by white space and
// an upper-case letter or '('.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(s); i++ {
		c := s[i]
		if (c == '.' || c == '!' || c == '?') && s[i+1] == ' ' {
			n := s[i+2]
			if (n >= 'A' && n <= 'Z') || n == '(' {
				if t := strings.TrimSpace(s[start : i+1]); t != "" {
					out = append(out, t)
				}
				start = i + 2
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// splitClauses cuts s at ", ", "; " and ": ".
func splitClauses(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == ',' || s[i] == ';' || s[i] == ':') && s[i+1] == ' ' {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 2
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// WriteVectors writes vs to path as raw little-endian float32 rows.
func WriteVectors(path string, vs [][]float32) error {
	if err := os.WriteFile(path, appendVectors(nil, vs), 0o644); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	return nil
}

func appendVectors(dst []byte, vs [][]float32) []byte {
	for _, v := range vs {
		for _, f := range v {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
		}
	}
	return dst
}

// ReadVectors reads raw little-endian float32 rows of dims values from path;
// limit > 0 reads at most limit rows. A trailing partial row is ignored.
func ReadVectors(path string, dims, limit int) ([][]float32, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("read vectors %s: dims %d: %w", path, dims, ErrBadData)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	row := make([]byte, 4*dims)
	var out [][]float32
	for limit <= 0 || len(out) < limit {
		if _, err := io.ReadFull(r, row); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return nil, fmt.Errorf("read vectors %s: %w", path, err)
		}
		v := make([]float32, dims)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:]))
		}
		out = append(out, v)
	}
	return out, nil
}

// Defaults of VectorConfig.
const (
	// DefaultVectorDims is the dimension of the bge-small-en-v1.5 vectors.
	DefaultVectorDims = 384
	// DefaultVectorK is the k of recall@k.
	DefaultVectorK = 10
	// DefaultVectorHeldOut is the number of corpus vectors held out as
	// queries when no query file is given.
	DefaultVectorHeldOut = 1000
)

// VectorConfig configures the vector workload. Zero fields take the
// documented defaults.
type VectorConfig struct {
	// Vectors is the corpus file of raw little-endian float32 rows
	// (WriteVectors); required.
	Vectors string
	// Queries is the query file in the same format; empty means the last
	// DefaultVectorHeldOut corpus rows are held out as queries.
	Queries string
	// Dims is the row width; 0 means DefaultVectorDims.
	Dims int
	// Limit caps the corpus rows read; 0 means all.
	Limit int
	// MaxQueries caps the queries run; 0 means all.
	MaxQueries int
	// K is the k of recall@k; 0 means DefaultVectorK.
	K int
	// NProbes are the nprobe values swept besides the default (0).
	NProbes []int
	// Filters are allowed fractions (0..1) for the filtered runs at the
	// default nprobe: a random subset of that size is allowed.
	Filters []float64
	// Options are the index options.
	Options vector.Options
}

// RunVector builds a vector.Index over the corpus vectors and reports, for
// the default nprobe and every swept one, recall@K against exact float64
// search, single-thread queries per second and p50/p99 latency; then the
// same at the default nprobe for each filtered run.
func RunVector(cfg VectorConfig, w io.Writer) error {
	if cfg.Dims == 0 {
		cfg.Dims = DefaultVectorDims
	}
	if cfg.K == 0 {
		cfg.K = DefaultVectorK
	}
	corpus, err := ReadVectors(cfg.Vectors, cfg.Dims, cfg.Limit)
	if err != nil {
		return err
	}
	var queries [][]float32
	if cfg.Queries != "" {
		if queries, err = ReadVectors(cfg.Queries, cfg.Dims, 0); err != nil {
			return err
		}
	} else {
		if len(corpus) <= 2*DefaultVectorHeldOut {
			return fmt.Errorf("vector corpus of %d rows: too few to hold out queries: %w", len(corpus), ErrBadData)
		}
		queries, corpus = corpus[len(corpus)-DefaultVectorHeldOut:], corpus[:len(corpus)-DefaultVectorHeldOut]
	}
	if cfg.MaxQueries > 0 && len(queries) > cfg.MaxQueries {
		queries = queries[:cfg.MaxQueries]
	}
	if len(corpus) == 0 || len(queries) == 0 {
		return fmt.Errorf("vector: empty corpus or queries: %w", ErrBadData)
	}
	fmt.Fprintf(w, "vector: %d corpus vectors, %d queries, %d dims, kernel %s, GOMAXPROCS %d\n",
		len(corpus), len(queries), cfg.Dims, vector.Kernel(), runtime.GOMAXPROCS(0))

	start := time.Now()
	b := vector.NewBuilder(cfg.Dims)
	for i, v := range corpus {
		b.Add(uint32(i), v)
	}
	x, err := b.Build(cfg.Options)
	if err != nil {
		return err
	}
	buildTime := time.Since(start)
	enc := x.AppendBinary(nil)
	start = time.Now()
	if _, err := vector.Decode(enc); err != nil {
		return err
	}
	fmt.Fprintf(w, "build %.2fs (nlist %d, default nprobe %d, rerank %d), encoded %.1f MB, decode %.2fs\n",
		buildTime.Seconds(), x.NList(), x.Options().NProbe, x.Options().Rerank, float64(len(enc))/1e6, time.Since(start).Seconds())

	truth := exactTopK(corpus, queries, cfg.K, nil)
	fmt.Fprintf(w, "\n%-8s %-8s %-10s %-10s %-10s %-10s\n", "nprobe", "filter", "recall@"+strconv.Itoa(cfg.K), "QPS", "p50 ms", "p99 ms")
	for _, np := range append([]int{0}, cfg.NProbes...) {
		vectorRun(w, x, queries, truth, cfg.K, np, nil, "all")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, frac := range cfg.Filters {
		allow := roaring.New()
		for i := range corpus {
			if r.Float64() < frac {
				allow.Add(uint32(i))
			}
		}
		ft := exactTopK(corpus, queries, cfg.K, allow)
		vectorRun(w, x, queries, ft, cfg.K, 0, allow, strconv.FormatFloat(frac, 'g', 3, 64))
	}
	return nil
}

// vectorRun searches every query once and prints one table row.
func vectorRun(w io.Writer, x *vector.Index, queries [][]float32, truth [][]uint32, k, nprobe int, allow *roaring.Bitmap, filter string) {
	lat := make([]time.Duration, len(queries))
	var dst []vector.Result
	var rec float64
	start := time.Now()
	for i, q := range queries {
		t := time.Now()
		dst = x.Search(q, k, nprobe, allow, dst)
		lat[i] = time.Since(t)
		rec += overlap(dst, truth[i])
	}
	total := time.Since(start)
	slices.Sort(lat)
	np := strconv.Itoa(nprobe)
	if nprobe == 0 {
		np = "default"
	}
	fmt.Fprintf(w, "%-8s %-8s %-10.4f %-10.0f %-10.3f %-10.3f\n", np, filter, rec/float64(len(queries)),
		float64(len(queries))/total.Seconds(), ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// overlap returns |got ∩ want| / |want| (1 for an empty want).
func overlap(got []vector.Result, want []uint32) float64 {
	if len(want) == 0 {
		return 1
	}
	hit := 0
	for _, id := range want {
		for _, g := range got {
			if g.ID == id {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(len(want))
}

// exactTopK returns, per query, the ids of its exact top k among the
// allowed corpus rows (nil = all) by float64 dot products, ties by id,
// computed on all cores.
func exactTopK(corpus, queries [][]float32, k int, allow *roaring.Bitmap) [][]uint32 {
	type hit struct {
		id    uint32
		score float64
	}
	// better reports whether a ranks above b.
	better := func(a, b hit) bool { return a.score > b.score || (a.score == b.score && a.id < b.id) }
	out := make([][]uint32, len(queries))
	eachQuery(len(queries), func(qi int) {
		q := queries[qi]
		top := make([]hit, 0, k+1)
		for i, v := range corpus {
			if allow != nil && !allow.Contains(uint32(i)) {
				continue
			}
			var s float64
			for d, f := range v {
				s += float64(f) * float64(q[d])
			}
			h := hit{uint32(i), s}
			if len(top) == k && !better(h, top[k-1]) {
				continue
			}
			j := len(top)
			top = append(top, h)
			for ; j > 0 && better(h, top[j-1]); j-- {
				top[j] = top[j-1]
			}
			top[j] = h
			top = top[:min(len(top), k)]
		}
		ids := make([]uint32, len(top))
		for i := range ids {
			ids[i] = top[i].id
		}
		out[qi] = ids
	})
	return out
}

// eachQuery calls fn for every query index below n, spread over all cores.
func eachQuery(n int, fn func(qi int)) {
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for qi := wk; qi < n; qi += workers {
				fn(qi)
			}
		}()
	}
	wg.Wait()
}
