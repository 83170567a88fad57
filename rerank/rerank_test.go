package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/najdi/najdi/embed"
	"golang.org/x/sys/cpu"
)

// load returns the installed cross-encoder, failing with install
// instructions when it is missing.
func load(t testing.TB) *CrossEncoder {
	t.Helper()
	cache := embed.DefaultCacheDir()
	_, lib := embed.CachePaths(cache)
	ce, err := Load(DefaultDir(cache), Options{LibraryPath: lib})
	if err != nil {
		t.Fatalf("load reranker (run scripts/install-models.sh %s): %v", DefaultModel, err)
	}
	t.Cleanup(func() { ce.Close() })
	return ce
}

type refPair struct {
	Query   string  `json:"query"`
	Passage string  `json:"passage"`
	IDs     []int32 `json:"ids"`
	Logit   float64 `json:"logit"`
}

// logitTolerance bounds the difference to onnxruntime in Python on the same
// file and ids. Both run ONNX Runtime 1.24.2's int8 CPU kernels (those of
// this kind of CPU, referenceFile) on the same unpadded single pair, so only the float summation order of the thread
// pool can differ (1 intra-op thread on both sides since pairs run side by
// side here, Options.Threads); observed differences
// are below 1e-4 on logits spanning −11..9, and 1e-3 is far below any gap
// that changes an order of candidates (0.3 logits between the closest
// reference pairs).
const logitTolerance = 1e-3

// referenceFile is the reference of this CPU's int8 kernels: ONNX Runtime
// multiplies u8 activations by s8 weights with VPDPBUSD (exact) on CPUs
// with AVX-512 VNNI or AVX-VNNI and with VPMADDUBSW (16-bit pair sums that
// saturate) on the others, so logits differ by up to 0.3 between the two
// kinds of CPU (scripts/rerank_reference.py writes one file per kind).
func referenceFile() string {
	if cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512BW || cpu.X86.HasAVXVNNI {
		return "reference-vnni.json"
	}
	return "reference.json"
}

// TestReference checks ids and logits against onnxruntime in Python with
// Hugging Face tokenizers (scripts/rerank_reference.py), including
// truncation of long passages and of long query-passage pairs.
func TestReference(t *testing.T) {
	t.Logf("reference %s", referenceFile())
	data, err := os.ReadFile(filepath.Join("testdata", referenceFile()))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Pairs []refPair `json:"pairs"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Pairs) < 30 {
		t.Fatalf("reference holds %d pairs, want >= 30", len(ref.Pairs))
	}
	ce := load(t)
	var queries, passages []string
	for i, p := range ref.Pairs {
		ids, types := ce.EncodePair(p.Query, p.Passage)
		if !slices.Equal(ids, p.IDs) {
			t.Errorf("pair %d (%.30q): ids differ from tokenizers:\n got %d ids %v\nwant %d ids %v", i, p.Query, len(ids), head(ids), len(p.IDs), head(p.IDs))
		}
		sep := slices.Index(ids, ids[len(ids)-1])
		for j, ty := range types {
			if want := int32(0); j > sep {
				want = 1
				if ty != want {
					t.Errorf("pair %d: token %d has type %d, want 1", i, j, ty)
					break
				}
			} else if ty != want {
				t.Errorf("pair %d: token %d has type %d, want 0", i, j, ty)
				break
			}
		}
		queries = append(queries, p.Query)
		passages = append(passages, p.Passage)
	}
	worst := 0.0
	for i, p := range ref.Pairs {
		got, err := ce.Logits(context.Background(), queries[i], passages[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		d := math.Abs(float64(got[0]) - p.Logit)
		worst = max(worst, d)
		if d > logitTolerance {
			t.Errorf("pair %d (%.30q): logit %.5f, reference %.5f (|Δ| %.2g > %g)", i, p.Query, got[0], p.Logit, d, logitTolerance)
		}
	}
	t.Logf("%d pairs, largest |Δlogit| %.2g", len(ref.Pairs), worst)
}

func head(ids []int32) []int32 { return ids[:min(len(ids), 12)] }

// TestScoreOrder checks Score's range and that relevant passages outscore
// unrelated ones for plain English questions, independently of the other
// passages of the call.
func TestScoreOrder(t *testing.T) {
	ce := load(t)
	ctx := context.Background()
	q := "What is the capital of the Czech Republic?"
	ps := []string{
		"The koruna is the currency of Czechia.",
		"Prague is the capital and largest city of the Czech Republic.",
		"Bananas are rich in potassium.",
	}
	s, err := ce.Score(ctx, q, ps)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range s {
		if v < 0 || v > 1 {
			t.Errorf("score %d = %v, outside 0..1", i, v)
		}
	}
	if !(s[1] > 0.9 && s[1] > s[0] && s[0] > s[2]) {
		t.Errorf("scores %v: want Prague > 0.9 > currency > bananas", s)
	}
	alone, err := ce.Score(ctx, q, ps[1:2])
	if err != nil {
		t.Fatal(err)
	}
	if alone[0] != s[1] {
		t.Errorf("score alone %v differs from score among others %v", alone[0], s[1])
	}
}

func TestTruncateLongestFirst(t *testing.T) {
	for _, c := range []struct{ a, b, limit, wa, wb int }{
		{10, 20, 100, 10, 20},
		{10, 200, 100, 10, 90},
		{200, 10, 100, 90, 10},
		{80, 90, 100, 50, 50},
		{90, 80, 100, 50, 50},
		{60, 60, 101, 50, 51},
		{300, 400, 509, 254, 255},
		{400, 300, 509, 255, 254},
		{0, 500, 509, 0, 500},
	} {
		a, b := truncateLongestFirst(c.a, c.b, c.limit)
		if a != c.wa || b != c.wb {
			t.Errorf("truncate(%d, %d, %d) = %d, %d; want %d, %d", c.a, c.b, c.limit, a, b, c.wa, c.wb)
		}
	}
}

func TestNotInstalled(t *testing.T) {
	_, err := Load(t.TempDir(), Options{})
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("Load of an empty directory: %v, want ErrNotInstalled", err)
	}
	l := NewLazy(filepath.Join(t.TempDir(), "missing"), Options{})
	if _, err := l.Score(context.Background(), "q", []string{"p"}); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("Lazy.Score without a model: %v, want ErrNotInstalled", err)
	}
}

// TestScoreSideBySide checks that pairs scored side by side (several
// workers, more passages than workers) get exactly the logits each gets
// alone, in the order of the passages, and that a cancelled context stops
// the call with its error.
func TestScoreSideBySide(t *testing.T) {
	cache := embed.DefaultCacheDir()
	_, lib := embed.CachePaths(cache)
	ps := scifactPassages(t, 7)
	ps = append(ps, "Bananas are rich in potassium.", "")
	const q = "Vitamin D deficiency is associated with bone fractures."
	ctx := context.Background()
	for _, workers := range []int{1, 3} {
		ce, err := Load(DefaultDir(cache), Options{LibraryPath: lib, Workers: workers})
		if err != nil {
			t.Fatalf("load reranker (run scripts/install-models.sh %s): %v", DefaultModel, err)
		}
		all, err := ce.Logits(ctx, q, ps)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			alone, err := ce.Logits(ctx, q, []string{p})
			if err != nil {
				t.Fatal(err)
			}
			if alone[0] != all[i] {
				t.Errorf("workers %d: passage %d: logit %v among others, %v alone", workers, i, all[i], alone[0])
			}
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := ce.Logits(cctx, q, ps); !errors.Is(err, context.Canceled) {
			t.Errorf("workers %d: cancelled context: err %v, want context.Canceled", workers, err)
		}
		ce.Close()
	}
}

// TestMaxTokens checks that Options.MaxTokens caps every pair, the query
// and passage cut longest first, and that the manifest's limit still
// applies above it.
func TestMaxTokens(t *testing.T) {
	cache := embed.DefaultCacheDir()
	_, lib := embed.CachePaths(cache)
	long := scifactPassages(t, 1)[0]
	const q = "Vitamin D deficiency is associated with bone fractures."
	for _, tc := range []struct{ max, want int }{{0, 512}, {128, 128}, {256, 256}, {4096, 512}} {
		ce, err := Load(DefaultDir(cache), Options{LibraryPath: lib, MaxTokens: tc.max})
		if err != nil {
			t.Fatalf("load reranker (run scripts/install-models.sh %s): %v", DefaultModel, err)
		}
		ids, types := ce.EncodePair(q, long+" "+long)
		if len(ids) != tc.want || len(types) != tc.want {
			t.Errorf("MaxTokens %d: pair of %d ids, %d types; want %d", tc.max, len(ids), len(types), tc.want)
		}
		short, _ := ce.EncodePair(q, "Bananas.")
		if len(short) >= 32 {
			t.Errorf("MaxTokens %d: short pair of %d ids, want it uncut", tc.max, len(short))
		}
		ce.Close()
	}
	if _, err := Load(DefaultDir(cache), Options{LibraryPath: lib, MaxTokens: 4}); err == nil {
		t.Error("MaxTokens 4: loaded, want an error")
	}
}
