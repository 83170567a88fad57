package bench

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestSynthesizeVectors checks that synthetic vectors are unit length,
// deterministic, and each closest to a seed among a handful of seeds far
// apart.
func TestSynthesizeVectors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	seeds := make([][]float32, 4)
	for i := range seeds {
		v := make([]float32, 32)
		for d := range v {
			v[d] = float32(r.NormFloat64())
		}
		seeds[i] = unit(v)
	}
	a, b := SynthesizeVectors(seeds, 5000), SynthesizeVectors(seeds, 5000)
	for i, v := range a {
		if !slices.Equal(v, b[i]) {
			t.Fatalf("vector %d differs between two runs", i)
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Fatalf("vector %d has norm² %v", i, n)
		}
	}
	// Each synthetic vector should lie closer to some seed than random
	// unit vectors lie to any seed: the corpus keeps the seeds' clusters.
	var best float64
	for _, v := range a {
		m := -1.0
		for _, s := range seeds {
			var d float64
			for j := range v {
				d += float64(v[j]) * float64(s[j])
			}
			m = max(m, d)
		}
		best += m
	}
	if best /= float64(len(a)); best < 0.6 {
		t.Fatalf("mean cosine to the nearest seed %.3f, want ≥ 0.6", best)
	}
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// TestRunVectorScale runs the workload on a small synthetic corpus and
// checks that it reports recall near 1 at a generous nprobe.
func TestRunVectorScale(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(2, 2))
	mk := func(n int) [][]float32 {
		out := make([][]float32, n)
		for i := range out {
			v := make([]float32, DefaultVectorDims)
			for d := range v {
				v[d] = float32(r.NormFloat64())
			}
			out[i] = unit(v)
		}
		return out
	}
	seeds, queries := filepath.Join(dir, "seeds.f32"), filepath.Join(dir, "q.f32")
	if err := WriteVectors(seeds, mk(200)); err != nil {
		t.Fatal(err)
	}
	if err := WriteVectors(queries, mk(20)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cfg := VectorScaleConfig{Seeds: []string{seeds}, Cache: filepath.Join(dir, "synth.f32"), N: 8000, Queries: queries, MaxQueries: 20, ExactQueries: 5, Ks: []int{10}, NProbes: []int{1 << 20}}
	if err := RunVectorScale(cfg, &out); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^10\s+\d+\s+([0-9.]+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no row for nprobe %d in\n%s", 1<<20, out.String())
	}
	if rec, _ := strconv.ParseFloat(m[1], 64); rec < 0.99 {
		t.Fatalf("recall@10 scanning every list %.4f, want ≥ 0.99\n%s", rec, out.String())
	}
	// The second run reads the cached corpus.
	out.Reset()
	if err := RunVectorScale(cfg, &out); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out.Bytes(), []byte("synthesizing")) {
		t.Fatalf("second run synthesized again:\n%s", out.String())
	}
}
