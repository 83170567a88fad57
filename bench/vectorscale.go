package bench

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/najdi/najdi/vector"
)

// VectorScaleConfig configures RunVectorScale.
type VectorScaleConfig struct {
	// Corpus is a file of raw float32 rows searched as is; when empty the
	// corpus is synthesized from Seeds (see SynthesizeVectors) and cached
	// in Cache.
	Corpus string
	// Seeds are files of real passage vectors (raw float32 rows) the
	// synthetic corpus grows around.
	Seeds []string
	// SeedLimit caps the rows read from each seed file; 0 means all.
	SeedLimit int
	// Cache is the file of the synthetic corpus (rebuilt when its size does
	// not match N).
	Cache string
	// N is the corpus size (rows read from Corpus, or synthesized).
	N int
	// Queries is a file of query rows; empty means the last MaxQueries rows
	// of Corpus are held out.
	Queries string
	// MaxQueries caps the queries; 0 means 200.
	MaxQueries int
	// Dims is the row width; 0 means DefaultVectorDims.
	Dims int
	// Ks are the k of recall@k measured; empty means 10 and 300.
	Ks []int
	// NProbes are the nprobe values swept besides the default.
	NProbes []int
	// ExactQueries is how many queries the exact search is timed on; 0
	// means 20.
	ExactQueries int
	// Options are the index options.
	Options vector.Options
}

// Noise of SynthesizeVectors: each synthetic vector is a seed plus σ times
// a random combination of synthNoiseTerms centred seeds, σ uniform in
// [synthSigmaLo, synthSigmaHi].
const (
	synthNoiseTerms = 8
	synthSigmaLo    = 0.4
	synthSigmaHi    = 1.2
)

// SynthesizeVectors returns n unit vectors grown around the real seed
// vectors: vector i is normalize(s + σ·e), where s is a seed drawn
// uniformly, σ is uniform in [0.4, 1.2] and e = Σ_j g_j (s_j − μ)/√8 sums
// eight random seeds s_j, centred on the seeds' mean μ, with standard normal
// weights g_j, so that e has the seeds' own covariance (anisotropic, as real
// embeddings are) and the corpus keeps their cluster structure. It is
// deterministic for given seeds and n.
func SynthesizeVectors(seeds [][]float32, n int) [][]float32 {
	dims := len(seeds[0])
	mu := make([]float64, dims)
	for _, s := range seeds {
		for d, v := range s {
			mu[d] += float64(v)
		}
	}
	for d := range mu {
		mu[d] /= float64(len(seeds))
	}
	out := make([][]float32, n)
	const block = 4096
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for lo := 0; lo < n; lo += block {
		wg.Add(1)
		sem <- struct{}{}
		go func(lo, hi int) {
			defer func() { <-sem; wg.Done() }()
			r := rand.New(rand.NewPCG(uint64(lo), 0x5eed))
			e := make([]float64, dims)
			for i := lo; i < hi; i++ {
				clear(e)
				for range synthNoiseTerms {
					g := r.NormFloat64() / math.Sqrt(synthNoiseTerms)
					for d, v := range seeds[r.IntN(len(seeds))] {
						e[d] += g * (float64(v) - mu[d])
					}
				}
				sigma := synthSigmaLo + (synthSigmaHi-synthSigmaLo)*r.Float64()
				s := seeds[r.IntN(len(seeds))]
				v := make([]float32, dims)
				var norm float64
				for d := range v {
					x := float64(s[d]) + sigma*e[d]
					v[d] = float32(x)
					norm += x * x
				}
				inv := float32(1 / math.Sqrt(norm))
				for d := range v {
					v[d] *= inv
				}
				out[i] = v
			}
		}(lo, min(lo+block, n))
	}
	wg.Wait()
	return out
}

// RunVectorScale measures the vector index at scale: it builds a
// vector.Index over the corpus (read, or synthesized around real vectors
// and cached), then reports, for every k of cfg.Ks and every nprobe (the
// default first), recall@k against exact float32 search and single-thread
// p50/p99 latency, next to the p50 of exact single-thread float32 search.
func RunVectorScale(cfg VectorScaleConfig, w io.Writer) error {
	cfg = cfg.withDefaults()
	corpus, queries, err := scaleData(&cfg, w)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "vector-scale: %d corpus vectors, %d queries, %d dims, kernel %s, GOMAXPROCS %d\n",
		len(corpus), len(queries), cfg.Dims, vector.Kernel(), runtime.GOMAXPROCS(0))
	x, err := buildScaleIndex(cfg, corpus, w)
	if err != nil {
		return err
	}
	maxK := slices.Max(cfg.Ks)
	start := time.Now()
	truth := exactTopK32(corpus, queries, maxK)
	fmt.Fprintf(w, "exact top-%d of %d queries on %d cores: %.1fs\n", maxK, len(queries), runtime.GOMAXPROCS(0), time.Since(start).Seconds())
	exact50 := exactVsIndex(x, corpus, queries[:min(cfg.ExactQueries, len(queries))], w)
	fmt.Fprintf(w, "load average at the start: %s\n\n", loadAvg())
	sweepNProbe(x, cfg, queries, truth, exact50, w)
	var ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	fmt.Fprintf(w, "load average at the end: %s\n", loadAvg())
	fmt.Fprintf(w, "\nGo heap after build (corpus rows + index): %.0f MiB\n", float64(ms1.HeapAlloc)/(1<<20))
	runtime.KeepAlive(x)
	return nil
}

// withDefaults fills the unset fields of cfg.
func (cfg VectorScaleConfig) withDefaults() VectorScaleConfig {
	if cfg.Dims == 0 {
		cfg.Dims = DefaultVectorDims
	}
	if cfg.MaxQueries == 0 {
		cfg.MaxQueries = 200
	}
	if cfg.ExactQueries == 0 {
		cfg.ExactQueries = 20
	}
	if len(cfg.Ks) == 0 {
		cfg.Ks = []int{10, 300}
	}
	return cfg
}

// buildScaleIndex builds the vector index of corpus with cfg.Options and
// reports its build time and parameters.
func buildScaleIndex(cfg VectorScaleConfig, corpus [][]float32, w io.Writer) (*vector.Index, error) {
	start := time.Now()
	b := vector.NewBuilder(cfg.Dims)
	for i, v := range corpus {
		b.Add(uint32(i), v)
	}
	x, err := b.Build(cfg.Options)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "build %.1fs (nlist %d, default nprobe %d, rerank %d)\n",
		time.Since(start).Seconds(), x.NList(), x.Options().NProbe, x.Options().Rerank)
	return x, nil
}

// exactVsIndex times exact single-thread search against the index at its
// defaults, interleaved query by query so that machine noise hits both
// alike, and returns the exact search's p50.
func exactVsIndex(x *vector.Index, corpus, eq [][]float32, w io.Writer) time.Duration {
	exLat := make([]time.Duration, len(eq))
	ivLat := make([]time.Duration, len(eq))
	var dst []vector.Result
	for i, q := range eq {
		t := time.Now()
		exactScan(corpus, q, 10)
		exLat[i] = time.Since(t)
		t = time.Now()
		dst = x.Search(q, 10, 0, nil, dst)
		ivLat[i] = time.Since(t)
	}
	slices.Sort(exLat)
	slices.Sort(ivLat)
	exact50 := exLat[len(exLat)/2]
	fmt.Fprintf(w, "interleaved over %d queries, one thread, k 10: exact float32 p50 %.2f ms, index (default nprobe) p50 %.3f ms: %.1f× faster\n",
		len(eq), ms(exact50), ms(ivLat[len(ivLat)/2]), float64(exact50)/float64(max(ivLat[len(ivLat)/2], 1)))
	return exact50
}

// sweepNProbe reports recall@k and latency of every k of cfg.Ks at the
// default nprobe and at cfg.NProbes.
func sweepNProbe(x *vector.Index, cfg VectorScaleConfig, queries [][]float32, truth [][]uint32, exact50 time.Duration, w io.Writer) {
	fmt.Fprintf(w, "%-5s %-8s %-9s %-9s %-9s %-10s\n", "k", "nprobe", "recall", "p50 ms", "p99 ms", "exact/p50")
	var dst []vector.Result
	for _, k := range cfg.Ks {
		for _, np := range append([]int{0}, cfg.NProbes...) {
			lat := make([]time.Duration, len(queries))
			var rec float64
			for i, q := range queries {
				t := time.Now()
				dst = x.Search(q, k, np, nil, dst)
				lat[i] = time.Since(t)
				rec += overlap(dst, truth[i][:min(k, len(truth[i]))])
			}
			slices.Sort(lat)
			name := strconv.Itoa(np)
			if np == 0 {
				name = "default"
			}
			p50 := lat[len(lat)/2]
			fmt.Fprintf(w, "%-5d %-8s %-9.4f %-9.3f %-9.3f %-10.1f\n", k, name, rec/float64(len(queries)),
				ms(p50), ms(lat[len(lat)*99/100]), float64(exact50)/float64(max(p50, 1)))
		}
	}
}

// scaleData reads or synthesizes the corpus and the queries of cfg.
func scaleData(cfg *VectorScaleConfig, w io.Writer) (corpus, queries [][]float32, err error) {
	switch {
	case cfg.Corpus != "":
		extra := 0
		if cfg.Queries == "" {
			extra = cfg.MaxQueries
		}
		if corpus, err = ReadVectors(cfg.Corpus, cfg.Dims, cfg.N+extra); err != nil {
			return nil, nil, err
		}
		if cfg.Queries == "" {
			if len(corpus) <= 2*extra {
				return nil, nil, fmt.Errorf("vector-scale corpus of %d rows: too few to hold out %d queries: %w", len(corpus), extra, ErrBadData)
			}
			queries, corpus = corpus[len(corpus)-extra:], corpus[:len(corpus)-extra]
		}
	default:
		if corpus, err = readRows(cfg.Cache, cfg.Dims, cfg.N); err != nil || len(corpus) != cfg.N {
			var seeds [][]float32
			for _, f := range cfg.Seeds {
				s, err := ReadVectors(f, cfg.Dims, cfg.SeedLimit)
				if err != nil {
					return nil, nil, err
				}
				seeds = append(seeds, s...)
			}
			if len(seeds) < 2 {
				return nil, nil, fmt.Errorf("vector-scale: %d seed vectors: %w", len(seeds), ErrBadData)
			}
			fmt.Fprintf(w, "synthesizing %d vectors around %d real seeds into %s\n", cfg.N, len(seeds), cfg.Cache)
			corpus = SynthesizeVectors(seeds, cfg.N)
			if cfg.Cache != "" {
				if err := os.MkdirAll(filepath.Dir(cfg.Cache), 0o755); err != nil {
					return nil, nil, err
				}
				if err := WriteVectors(cfg.Cache+".tmp", corpus); err != nil {
					return nil, nil, err
				}
				if err := os.Rename(cfg.Cache+".tmp", cfg.Cache); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if cfg.Queries != "" {
		if queries, err = ReadVectors(cfg.Queries, cfg.Dims, cfg.MaxQueries); err != nil {
			return nil, nil, err
		}
	}
	if len(corpus) == 0 || len(queries) == 0 {
		return nil, nil, fmt.Errorf("vector-scale: empty corpus or queries: %w", ErrBadData)
	}
	return corpus, queries, nil
}

// readRows reads up to n rows of a raw float32 file; a missing file is an
// error.
func readRows(path string, dims, n int) ([][]float32, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() != int64(n)*int64(4*dims) {
		return nil, fmt.Errorf("%s holds %d bytes, want %d rows: %w", path, st.Size(), n, ErrBadData)
	}
	return ReadVectors(path, dims, n)
}

// exactTopK32 returns per query the ids of its k best corpus rows by
// float32 dot product (ties by id), on all cores.
func exactTopK32(corpus, queries [][]float32, k int) [][]uint32 {
	out := make([][]uint32, len(queries))
	eachQuery(len(queries), func(qi int) {
		res := exactScan(corpus, queries[qi], k)
		ids := make([]uint32, len(res))
		for i, r := range res {
			ids[i] = r.ID
		}
		out[qi] = ids
	})
	return out
}

// exactScan returns the k best rows for q by float32 dot product, best
// first, ties by ascending id.
func exactScan(corpus [][]float32, q []float32, k int) []vector.Result {
	top := make([]vector.Result, 0, k+1)
	for i, v := range corpus {
		s := vector.DotFloat32(q, v)
		if len(top) == k && s <= top[k-1].Score {
			continue
		}
		j := len(top)
		top = append(top, vector.Result{ID: uint32(i), Score: s})
		for ; j > 0 && s > top[j-1].Score; j-- {
			top[j] = top[j-1]
		}
		top[j] = vector.Result{ID: uint32(i), Score: s}
		top = top[:min(len(top), k)]
	}
	return top
}
