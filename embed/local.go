package embed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"
)

// LocalOptions configures LoadLocal. Zero values select the defaults.
type LocalOptions struct {
	// LibraryPath is the path of libonnxruntime.so. It may be empty once a
	// model has been loaded in this process.
	LibraryPath string
	// Threads is ONNX Runtime's intra-op thread count for passages, the
	// texts ingestion embeds (default max(1, GOMAXPROCS-1): on a 2-core
	// machine ingestion embeds on one core and leaves the other to
	// searches).
	Threads int
	// QueryThreads is the intra-op thread count for queries (default
	// GOMAXPROCS). Queries run in a session of their own, so a search
	// never waits for a passage run of an ingest to finish.
	QueryThreads int
	// BatchSize is the most texts per session run (default 1). The default
	// models are int8 with dynamic quantization, whose activation scales are
	// computed over the whole batch: with more than one text per run a
	// vector depends on its batch neighbours and padding, and on two cores
	// one text per run is also the fastest (see doc.go). Batches of long
	// texts are smaller: a batch holds at most BatchSize*256 tokens.
	BatchSize int
	// Workers is the number of runs in flight at once in the passage
	// session (default 1).
	Workers int
	// QueryWorkers is the number of runs in flight at once in the query
	// session, shared by every caller (default 2): concurrent searches
	// embed their queries side by side instead of queueing, which
	// BenchmarkConcurrentQueries measured 20 % faster per query at
	// saturation on 2 cores than one run at a time (a short query's run
	// keeps two intra-op threads only partly busy). One search alone is
	// unaffected.
	QueryWorkers int
	// QueryTuning tunes the query session's ONNX Runtime options for single
	// short inputs; the zero value is the measured default (see
	// SessionTuning).
	QueryTuning SessionTuning
}

// SessionTuning holds ONNX Runtime session options beyond the thread
// count. The zero value keeps ONNX Runtime's defaults: the CPU memory arena
// and memory pattern on, every graph optimization (ORT_ENABLE_ALL), idle
// pool threads sleeping rather than spinning, sequential execution.
// BenchmarkQueryTuning and BenchmarkQueryTuningBusy measure each option on
// one short query: on the 2-core development machine only spinning during
// runs (Spin with "session.force_spinning_stop") is faster, by 13-16 %, and
// only while nothing else runs: while an ingest embeds passages it is 29 %
// slower; basic graph optimization changes the vectors (bench/README.md).
// So the defaults stay.
type SessionTuning struct {
	// NoArena turns the CPU memory arena off (allocations go to the
	// system allocator).
	NoArena bool
	// NoMemPattern turns memory pattern planning off (it pays for inputs
	// of repeated shapes; query lengths vary).
	NoMemPattern bool
	// GraphOpt lowers graph optimization: 1 basic, 2 extended (0 = all).
	GraphOpt int
	// Spin lets idle intra-op threads spin (lower wake-up latency, but the
	// spinning burns a core the rest of the server shares).
	Spin bool
	// InterOpThreads > 0 runs independent graph nodes in parallel
	// (ORT_PARALLEL) on that many inter-op threads; 0 runs them one after
	// the other (ORT_SEQUENTIAL, one inter-op thread).
	InterOpThreads int
	// Config holds further session configuration entries (keys of ONNX
	// Runtime's onnxruntime_session_options_config_keys.h, e.g.
	// "session.dynamic_block_base" or "session.force_spinning_stop").
	Config map[string]string
}

// DefaultThreads returns the default LocalOptions.Threads (passages) and
// QueryThreads for GOMAXPROCS procs: max(1, procs-1) and procs.
func DefaultThreads(procs int) (passage, query int) {
	return max(1, procs-1), max(1, procs)
}

// Validate reports whether the options are usable.
func (o LocalOptions) Validate() error {
	if o.QueryTuning.GraphOpt < 0 || o.QueryTuning.GraphOpt > 2 {
		return fmt.Errorf("query graph optimization level %d, want 0 (all), 1 (basic) or 2 (extended): %w", o.QueryTuning.GraphOpt, ErrInvalidConfig)
	}
	if o.QueryTuning.InterOpThreads < 0 {
		return fmt.Errorf("query inter-op threads %d, want 0 (sequential) or more: %w", o.QueryTuning.InterOpThreads, ErrInvalidConfig)
	}
	if o.Threads < 0 || o.QueryThreads < 0 || o.BatchSize < 0 || o.Workers < 0 || o.QueryWorkers < 0 {
		return fmt.Errorf("threads %d, query threads %d, batch size %d, workers %d, query workers %d: %w", o.Threads, o.QueryThreads, o.BatchSize, o.Workers, o.QueryWorkers, ErrInvalidConfig)
	}
	return nil
}

// defaultQueryWorkers is the default LocalOptions.QueryWorkers.
const defaultQueryWorkers = 2

// Local is an Embedder that runs an ONNX model in process with ONNX Runtime.
// Queries and passages run in two sessions of the model, each with its own
// intra-op threads (LocalOptions.QueryThreads and Threads) and at most
// LocalOptions.QueryWorkers and Workers runs in flight across all its
// callers: a query is never queued behind the passages of an ingest. The passage session is
// created on the first EmbedPassages. Local is safe for concurrent use.
type Local struct {
	man       Manifest
	tok       TextTokenizer
	withTypes bool // the model takes token_type_ids
	batch     int
	maxTokens int // tokens per batch (batch × padded length)

	modelPath       string
	inNames         []string
	outName         string
	query           *session // made by LoadLocal
	passage         *session // made by the first EmbedPassages
	passageThreads  int
	passageInitOnce sync.Once
	passageErr      error

	mu     sync.RWMutex // guards closed; held for reading during runs
	closed bool
	bufs   sync.Pool // *[]float32 output buffers
}

// session is one ONNX Runtime session with its own thread pool and its
// bound on runs in flight.
type session struct {
	sess    *ort.DynamicAdvancedSession
	sem     chan struct{} // one token per run in flight
	threads int
}

var _ Embedder = (*Local)(nil)
var _ TokenCounter = (*Local)(nil)

// LoadLocal loads the model in dir (model.onnx, tokenizer.json or vocab.txt,
// manifest.json) and creates its ONNX Runtime session. The first call in a
// process also loads the runtime library from opts.LibraryPath.
func LoadLocal(dir string, opts LocalOptions) (*Local, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	passage, query := DefaultThreads(runtime.GOMAXPROCS(0))
	if opts.Threads == 0 {
		opts.Threads = passage
	}
	if opts.QueryThreads == 0 {
		opts.QueryThreads = query
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = 1
	}
	if opts.Workers == 0 {
		opts.Workers = 1
	}
	if opts.QueryWorkers == 0 {
		opts.QueryWorkers = defaultQueryWorkers
	}
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	lower := true
	if man.DoLowerCase != nil {
		lower = *man.DoLowerCase
	}
	tok, err := loadTextTokenizer(filepath.Join(dir, man.Tokenizer), lower)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", man.Name, err)
	}
	if err := initRuntime(opts.LibraryPath); err != nil {
		return nil, err
	}
	modelPath := filepath.Join(dir, man.Model)
	inputs, outputs, err := ort.GetInputOutputInfo(modelPath)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w: %w", modelPath, ErrBadModel, err)
	}
	inNames, withTypes, err := pickInputs(inputs)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", man.Name, err)
	}
	outName, err := pickOutput(outputs, man.Dims)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", man.Name, err)
	}
	l := &Local{
		man:            man,
		tok:            tok,
		withTypes:      withTypes,
		batch:          opts.BatchSize,
		maxTokens:      opts.BatchSize * 256,
		modelPath:      modelPath,
		inNames:        inNames,
		outName:        outName,
		passageThreads: opts.Threads,
	}
	if l.query, err = l.newSession(opts.QueryThreads, opts.QueryWorkers, opts.QueryTuning); err != nil {
		return nil, err
	}
	// The passage session gets its bound on runs in flight now; the
	// session itself comes with the first passages.
	l.passage = &session{sem: make(chan struct{}, opts.Workers), threads: opts.Threads}
	return l, nil
}

// newSession creates a session of the model with threads intra-op threads,
// at most workers runs in flight and the options of tune.
func (l *Local) newSession(threads, workers int, tune SessionTuning) (*session, error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w: %w", ErrRuntime, err)
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(threads); err != nil {
		return nil, fmt.Errorf("intra-op threads: %w: %w", ErrRuntime, err)
	}
	if err := so.SetInterOpNumThreads(max(1, tune.InterOpThreads)); err != nil {
		return nil, fmt.Errorf("inter-op threads: %w: %w", ErrRuntime, err)
	}
	if tune.InterOpThreads > 0 {
		if err := so.SetExecutionMode(ort.ExecutionModeParallel); err != nil {
			return nil, fmt.Errorf("execution mode: %w: %w", ErrRuntime, err)
		}
	}
	// Idle pool threads sleep instead of spinning: the process shares the
	// CPU with the rest of the server.
	spin := "0"
	if tune.Spin {
		spin = "1"
	}
	if err := so.AddSessionConfigEntry("session.intra_op.allow_spinning", spin); err != nil {
		return nil, fmt.Errorf("session config: %w: %w", ErrRuntime, err)
	}
	if tune.NoArena {
		if err := so.SetCpuMemArena(false); err != nil {
			return nil, fmt.Errorf("memory arena: %w: %w", ErrRuntime, err)
		}
	}
	if tune.NoMemPattern {
		if err := so.SetMemPattern(false); err != nil {
			return nil, fmt.Errorf("memory pattern: %w: %w", ErrRuntime, err)
		}
	}
	if tune.GraphOpt != 0 {
		level := ort.GraphOptimizationLevel(ort.GraphOptimizationLevelEnableBasic)
		if tune.GraphOpt == 2 {
			level = ort.GraphOptimizationLevelEnableExtended
		}
		if err := so.SetGraphOptimizationLevel(level); err != nil {
			return nil, fmt.Errorf("graph optimization: %w: %w", ErrRuntime, err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(tune.Config)) {
		if err := so.AddSessionConfigEntry(k, tune.Config[k]); err != nil {
			return nil, fmt.Errorf("session config %s=%s: %w: %w", k, tune.Config[k], ErrRuntime, err)
		}
	}
	sess, err := ort.NewDynamicAdvancedSession(l.modelPath, l.inNames, []string{l.outName}, so)
	if err != nil {
		return nil, fmt.Errorf("model %s: session: %w: %w", l.modelPath, ErrRuntime, err)
	}
	return &session{sess: sess, sem: make(chan struct{}, workers), threads: threads}, nil
}

// loadTextTokenizer loads a SentencePiece-Unigram unigram.json, or else a
// WordPiece tokenizer.json or vocab.txt.
func loadTextTokenizer(path string, lower bool) (TextTokenizer, error) {
	if strings.HasSuffix(filepath.Base(path), "unigram.json") {
		return LoadUnigram(path)
	}
	return LoadTokenizer(path, lower)
}

// passageSession returns the passage session, creating it on first use.
func (l *Local) passageSession() (*session, error) {
	l.passageInitOnce.Do(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.closed {
			l.passageErr = fmt.Errorf("model %s: %w", l.man.Name, ErrClosed)
			return
		}
		s, err := l.newSession(l.passageThreads, cap(l.passage.sem), SessionTuning{})
		if err != nil {
			l.passageErr = err
			return
		}
		l.passage.sess = s.sess
	})
	return l.passage, l.passageErr
}

// Threads returns the intra-op thread counts of the passage and query
// sessions.
func (l *Local) Threads() (passage, query int) { return l.passage.threads, l.query.threads }

// pickInputs checks that the model takes input_ids and attention_mask, and
// optionally token_type_ids, as int64 tensors.
func pickInputs(infos []ort.InputOutputInfo) (names []string, withTypes bool, err error) {
	have := map[string]bool{}
	for _, in := range infos {
		if in.DataType != ort.TensorElementDataTypeInt64 {
			return nil, false, fmt.Errorf("input %s is %s, not int64: %w", in.Name, in.DataType, ErrBadModel)
		}
		have[in.Name] = true
	}
	if !have["input_ids"] || !have["attention_mask"] {
		return nil, false, fmt.Errorf("inputs lack input_ids or attention_mask: %w", ErrBadModel)
	}
	names = []string{"input_ids", "attention_mask"}
	if have["token_type_ids"] {
		names = append(names, "token_type_ids")
	}
	if len(names) != len(infos) {
		return nil, false, fmt.Errorf("model has %d inputs, want input_ids, attention_mask[, token_type_ids]: %w", len(infos), ErrBadModel)
	}
	return names, len(names) == 3, nil
}

// pickOutput returns last_hidden_state, or else the first float tensor of
// shape (batch, sequence, dims).
func pickOutput(infos []ort.InputOutputInfo, dims int) (string, error) {
	ok := func(o ort.InputOutputInfo) bool {
		d := o.Dimensions
		return o.DataType == ort.TensorElementDataTypeFloat && len(d) == 3 && (d[2] == int64(dims) || d[2] < 0)
	}
	for _, o := range infos {
		if o.Name == "last_hidden_state" {
			if !ok(o) {
				return "", fmt.Errorf("output %s: %w", o.String(), ErrBadModel)
			}
			return o.Name, nil
		}
	}
	for _, o := range infos {
		if ok(o) {
			return o.Name, nil
		}
	}
	return "", fmt.Errorf("no float output of shape (batch, seq, %d): %w", dims, ErrBadModel)
}

// Name returns the model name.
func (l *Local) Name() string { return l.man.Name }

// Dims returns the vector length.
func (l *Local) Dims() int { return l.man.Dims }

// MaxTokens returns the model's input limit including [CLS] and [SEP].
func (l *Local) MaxTokens() int { return l.man.MaxTokens }

// Manifest returns the model's manifest.
func (l *Local) Manifest() Manifest { return l.man }

// Tokenizer returns the model's tokenizer.
func (l *Local) Tokenizer() TextTokenizer { return l.tok }

// CountTokens returns the number of word pieces of s (no special tokens, no
// truncation).
func (l *Local) CountTokens(s string) int { return l.tok.CountTokens(s) }

// EmbedQueries embeds texts with the model's query prefix.
func (l *Local) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return l.embed(ctx, l.query, l.man.QueryPrefix, texts)
}

// EmbedPassages embeds texts with the model's passage prefix.
func (l *Local) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	s, err := l.passageSession()
	if err != nil {
		return nil, err
	}
	return l.embed(ctx, s, l.man.PassagePrefix, texts)
}

// Close releases the session. Calls after Close return ErrClosed.
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	var errs []error
	for _, s := range []*session{l.query, l.passage} {
		if s.sess != nil {
			if err := s.sess.Destroy(); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w: %w", l.man.Name, ErrRuntime, err))
			}
		}
	}
	return errors.Join(errs...)
}

func (l *Local) embed(ctx context.Context, s *session, prefix string, texts []string) ([][]float32, error) {
	seqs := make([][]int32, len(texts))
	for i, s := range texts {
		if prefix != "" {
			s = prefix + s
		}
		seqs[i] = l.tok.Encode(s, l.man.MaxTokens)
	}
	return l.embedTokens(ctx, s, seqs)
}

// batchSpan is a run of sequences, in length order, embedded in one run.
type batchSpan struct{ lo, hi, seqLen int }

// plan orders sequences by length (longest first) and cuts the order into
// batches of at most l.batch sequences and l.maxTokens padded tokens.
func (l *Local) plan(seqs [][]int32) (order []int, batches []batchSpan) {
	order = make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(seqs[b]) - len(seqs[a]) })
	for lo := 0; lo < len(order); {
		seqLen := len(seqs[order[lo]])
		n := min(l.batch, max(1, l.maxTokens/seqLen), len(order)-lo)
		batches = append(batches, batchSpan{lo, lo + n, seqLen})
		lo += n
	}
	return order, batches
}

// embedTokens embeds encoded sequences ([CLS] … [SEP]) in session s.
func (l *Local) embedTokens(ctx context.Context, s *session, seqs [][]int32) ([][]float32, error) {
	out := make([][]float32, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	order, batches := l.plan(seqs)
	dims := l.man.Dims
	flat := make([]float32, len(seqs)*dims)
	for i := range out {
		out[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	workers := min(cap(s.sem), len(batches))
	if workers == 1 {
		var in inputBuf
		for _, b := range batches {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := l.embedBatch(ctx, s, &in, seqs, order, b, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var in inputBuf
			for {
				k := int(next.Add(1)) - 1
				if k >= len(batches) {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = l.embedBatch(ctx, s, &in, seqs, order, batches[k], out)
				}
				if err != nil {
					errMu.Lock()
					if first == nil {
						first = err
					}
					errMu.Unlock()
					next.Store(int64(len(batches)))
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

// embedBatch runs one batch and pools its vectors into out.
func (l *Local) embedBatch(ctx context.Context, s *session, in *inputBuf, seqs [][]int32, order []int, b batchSpan, out [][]float32) error {
	idx := order[b.lo:b.hi]
	in.fill(seqs, idx, b.seqLen, l.tok.PadID())
	hidden, err := l.runBatch(ctx, s, in, len(idx), b.seqLen)
	if err != nil {
		return err
	}
	dims := l.man.Dims
	for j, i := range idx {
		l.pool(out[i], (*hidden)[j*b.seqLen*dims:(j+1)*b.seqLen*dims], len(seqs[i]))
	}
	l.bufs.Put(hidden)
	return nil
}

// inputBuf holds the int64 input tensors of one batch.
type inputBuf struct{ ids, mask, types []int64 }

// fill writes the padded batch of seqs[idx] with sequence length seqLen.
func (in *inputBuf) fill(seqs [][]int32, idx []int, seqLen int, pad int32) {
	n := len(idx) * seqLen
	in.ids = slices.Grow(in.ids[:0], n)[:n]
	in.mask = slices.Grow(in.mask[:0], n)[:n]
	in.types = slices.Grow(in.types[:0], n)[:n]
	clear(in.types)
	for j, i := range idx {
		row := in.ids[j*seqLen : (j+1)*seqLen]
		mrow := in.mask[j*seqLen : (j+1)*seqLen]
		s := seqs[i]
		for k := range row {
			if k < len(s) {
				row[k], mrow[k] = int64(s[k]), 1
			} else {
				row[k], mrow[k] = int64(pad), 0
			}
		}
	}
}

// runBatch runs session s on a filled batch and returns the hidden states
// (batch × seqLen × dims), in a buffer the caller returns to l.bufs. It
// waits for a run slot of s until ctx ends.
func (l *Local) runBatch(ctx context.Context, s *session, in *inputBuf, batch, seqLen int) (*[]float32, error) {
	shape := ort.NewShape(int64(batch), int64(seqLen))
	n := batch * seqLen * l.man.Dims
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.sem }()
	hp, _ := l.bufs.Get().(*[]float32)
	if hp == nil {
		hp = new([]float32)
	}
	*hp = slices.Grow((*hp)[:0], n)[:n]
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, fmt.Errorf("model %s: %w", l.man.Name, ErrClosed)
	}
	var values []ort.Value
	defer func() {
		for _, v := range values {
			v.Destroy()
		}
	}()
	for _, data := range [][]int64{in.ids, in.mask, in.types} {
		if len(values) == 2 && !l.withTypes {
			break
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, fmt.Errorf("input tensor: %w: %w", ErrRuntime, err)
		}
		values = append(values, t)
	}
	outT, err := ort.NewTensor(ort.NewShape(int64(batch), int64(seqLen), int64(l.man.Dims)), *hp)
	if err != nil {
		return nil, fmt.Errorf("output tensor: %w: %w", ErrRuntime, err)
	}
	values = append(values, outT)
	nIn := len(values) - 1
	if err := s.sess.Run(values[:nIn], values[nIn:]); err != nil {
		return nil, fmt.Errorf("model %s: run batch %d×%d: %w: %w", l.man.Name, batch, seqLen, ErrRuntime, err)
	}
	return hp, nil
}

// pool writes the normalized sentence vector of one sequence's hidden states
// (seqLen × dims, of which the first n rows are real tokens) into dst.
func (l *Local) pool(dst, hidden []float32, n int) {
	dims := len(dst)
	switch l.man.Pooling {
	case PoolingCLS:
		copy(dst, hidden[:dims])
	default:
		clear(dst)
		for t := range n {
			row := hidden[t*dims : (t+1)*dims]
			for k, x := range row {
				dst[k] += x
			}
		}
		inv := 1 / float32(n)
		for k := range dst {
			dst[k] *= inv
		}
	}
	normalize(dst)
}
