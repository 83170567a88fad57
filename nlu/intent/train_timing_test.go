package intent

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomEmbedder returns fixed pseudo-random 384-dimensional vectors per
// text: the fit costs the same whatever the vectors are, so the benchmark
// times the fit without the embedding model.
func randomEmbedder() Embedder {
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			h := uint64(14695981039346656037)
			for j := 0; j < len(t); j++ {
				h = (h ^ uint64(t[j])) * 1099511628211
			}
			rng := rand.New(rand.NewPCG(h, 1))
			v := make([]float32, 384)
			for d := range v {
				v[d] = float32(rng.NormFloat64())
			}
			out[i] = v
		}
		return out, nil
	}
}

// manyIntents deals distinct SNIPS training utterances round-robin into k
// pseudo-intents of per examples each.
func manyIntents(t testing.TB, k, per int) map[string][]string {
	seen := map[string]bool{}
	var pool []string
	files := make([][]string, len(snipsIntents))
	for i, in := range snipsIntents {
		files[i] = loadSnips(t, in, "train_"+in+"_full.json", 0)
	}
	for i := 0; len(pool) < k*per; i++ {
		added := false
		for _, f := range files {
			if i < len(f) && !seen[f[i]] {
				seen[f[i]] = true
				pool = append(pool, f[i])
				added = true
			}
		}
		if !added {
			t.Fatalf("fewer than %d distinct SNIPS utterances", k*per)
		}
	}
	ex := map[string][]string{}
	for i, u := range pool[:k*per] {
		name := fmt.Sprintf("intent%03d", i%k)
		ex[name] = append(ex[name], u)
	}
	return ex
}

// BenchmarkTrain times the fit of 150 intents × 10 examples without the
// embedding model (the vectors are precomputed pseudo-random ones).
func BenchmarkTrain(b *testing.B) {
	ex := manyIntents(b, 150, 10)
	vecs := map[string][]float32{}
	emb := randomEmbedder()
	for _, us := range ex {
		vs, _ := emb(context.Background(), us)
		for i, u := range us {
			vecs[u] = vs[i]
		}
	}
	cached := func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = vecs[t]
		}
		return out, nil
	}
	for _, shape := range []struct {
		name string
		opts Options
	}{{"ngrams", Options{}}, {"embeddings", Options{Embedder: cached}}} {
		b.Run(shape.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Train(context.Background(), ex, shape.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
