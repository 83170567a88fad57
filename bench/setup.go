package bench

import (
	"fmt"
	"os"

	"github.com/najdi/najdi/engine"
)

// workDir returns dir, or, when dir is "", a new temporary directory named
// after prefix; remove deletes that temporary directory and does nothing
// for a directory the caller named.
func workDir(dir, prefix string) (d string, remove func(), err error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	d, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, fmt.Errorf("benchmark directory: %w", err)
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// SciFactSetup locates what a benchmark that embeds SciFact works with.
type SciFactSetup struct {
	// BEIRDir is the SciFact directory.
	BEIRDir string
	// Dir is the engine directory, reused when it holds the benchmark's
	// collections ("" = temporary).
	Dir string
	// Models, ORTLib locate the default model.
	Models, ORTLib string
	// Cache is the file caching passage vectors by text, so that reruns
	// skip the expensive embedding ("" = none).
	Cache string
}

// cachedModel is the default embedding model of the benchmarks that embed
// SciFact, with passage vectors cached by text in a file so that reruns
// skip the expensive embedding.
type cachedModel struct {
	prov *engine.ModelProvider
	// base embeds without the cache (raw throughput).
	base engine.Embedder
	// cache holds the vectors by text; callers save it after each batch.
	cache *vecCache
	// cached embeds through cache.
	cached *cachedEmbedder
}

// openCachedModel loads the default model from models (ONNX Runtime at
// ortLib) and the vector cache at cachePath ("" = none). Close releases
// the model.
func openCachedModel(models, ortLib, cachePath string) (*cachedModel, error) {
	prov, err := engine.NewModelProvider(models, ortLib)
	if err != nil {
		return nil, err
	}
	base, err := prov.Embedder(engine.EmbeddingConfig{Model: "default"})
	if err != nil {
		prov.Close()
		return nil, err
	}
	cache, err := loadVecCache(cachePath)
	if err != nil {
		prov.Close()
		return nil, err
	}
	return &cachedModel{prov: prov, base: base, cache: cache, cached: &cachedEmbedder{Embedder: base, cache: cache}}, nil
}

// Close releases the model.
func (m *cachedModel) Close() error { return m.prov.Close() }
