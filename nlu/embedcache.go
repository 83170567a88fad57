package nlu

import (
	"context"
	"fmt"
	"sync"

	"github.com/najdi/najdi/nlu/intent"
)

// maxCachedEmbeddings bounds the embedding cache: 20,000 vectors of 384
// floats are about 31 MB.
const maxCachedEmbeddings = 20000

// embeddingCache memoizes sentence embeddings by embedder and text, so
// that retraining an intent classifier (a model updated with a few more
// examples, a stored model compiled again) embeds only the new texts.
// When full it forgets arbitrary entries, down to half. It is safe for concurrent use.
type embeddingCache struct {
	mu  sync.Mutex
	m   map[embeddingKey][]float32
	max int
}

type embeddingKey struct{ embedder, text string }

func newEmbeddingCache(max int) *embeddingCache {
	return &embeddingCache{m: map[embeddingKey][]float32{}, max: max}
}

// wrap returns e memoized under the name embedder (one name per distinct
// embedding function). Texts repeated within a call are embedded once.
func (c *embeddingCache) wrap(embedder string, e intent.Embedder) intent.Embedder {
	if e == nil {
		return nil
	}
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		var miss []string
		missAt := map[string][]int{}
		c.mu.Lock()
		for i, t := range texts {
			if v, ok := c.m[embeddingKey{embedder, t}]; ok {
				out[i] = append([]float32(nil), v...)
				continue
			}
			if _, ok := missAt[t]; !ok {
				miss = append(miss, t)
			}
			missAt[t] = append(missAt[t], i)
		}
		c.mu.Unlock()
		if len(miss) == 0 {
			return out, nil
		}
		vs, err := e(ctx, miss)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(miss) {
			return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vs), len(miss))
		}
		c.mu.Lock()
		if len(c.m)+len(miss) > c.max {
			keep := max(0, min(c.max/2, c.max-len(miss)))
			for k := range c.m {
				if len(c.m) <= keep {
					break
				}
				delete(c.m, k)
			}
		}
		for j, t := range miss {
			if len(c.m) < c.max {
				c.m[embeddingKey{embedder, t}] = append([]float32(nil), vs[j]...)
			}
			for k, i := range missAt[t] {
				if k == 0 {
					out[i] = vs[j]
				} else {
					out[i] = append([]float32(nil), vs[j]...)
				}
			}
		}
		c.mu.Unlock()
		return out, nil
	}
}
