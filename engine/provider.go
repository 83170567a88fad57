package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/najdi/najdi/embed"
)

// DefaultModel is the model that embedding_config.model "default" names.
const DefaultModel = "bge-small-en-v1.5"

// ModelProvider resolves embedding configurations to local ONNX models
// installed under a models directory (one sub-directory per model, see the
// embed package) and to remote OpenAI-compatible endpoints. Models load
// lazily on first use and are shared by every collection that names them.
type ModelProvider struct {
	dir, lib string
	mu       sync.Mutex
	local    map[string]*embed.Local
	remote   map[string]Embedder
}

// NewModelProvider returns a provider over the models in dir, using the
// ONNX Runtime library at lib. It fails when the default model is not
// installed (run scripts/install-models.sh or make models).
func NewModelProvider(dir, lib string) (*ModelProvider, error) {
	if _, err := os.Stat(filepath.Join(dir, DefaultModel)); err != nil {
		return nil, fmt.Errorf("the default embedding model %s is not installed in %s (run `make models`, or start with --no-embeddings for keyword-only collections): %w", DefaultModel, dir, err)
	}
	if _, err := os.Stat(lib); err != nil {
		return nil, fmt.Errorf("the ONNX Runtime library is not at %s (run `make models`): %w", lib, err)
	}
	return &ModelProvider{dir: dir, lib: lib, local: map[string]*embed.Local{}, remote: map[string]Embedder{}}, nil
}

// Models lists the installed local models.
func (p *ModelProvider) Models() []string {
	ents, _ := os.ReadDir(p.dir)
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(p.dir, e.Name(), "manifest.json")); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	sort.Strings(out)
	return out
}

// Embedder implements EmbedderProvider.
func (p *ModelProvider) Embedder(cfg EmbeddingConfig) (Embedder, error) {
	if cfg.Remote != nil {
		return p.remoteEmbedder(cfg.Remote)
	}
	name := cfg.Model
	if name == "" || name == "default" {
		name = DefaultModel
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if m, ok := p.local[name]; ok {
		return m, nil
	}
	dir := filepath.Join(p.dir, filepath.Base(name))
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return nil, invalidField("embedding_config.model", "model %q is not installed (installed: %v; or use \"none\" for keyword-only)", name, p.Models())
	}
	m, err := embed.LoadLocal(dir, embed.LocalOptions{LibraryPath: p.lib})
	if err != nil {
		return nil, fmt.Errorf("load model %q: %w", name, err)
	}
	p.local[name] = m
	return m, nil
}

// Close releases the loaded models.
func (p *ModelProvider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, m := range p.local {
		errs = append(errs, m.Close())
	}
	p.local = map[string]*embed.Local{}
	return errors.Join(errs...)
}

// IntentEmbedder adapts the default embedding model to the NLU intent
// classifier's embedding hook.
func IntentEmbedder(p EmbedderProvider) func(ctx context.Context, texts []string) ([][]float32, error) {
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		emb, err := p.Embedder(EmbeddingConfig{Model: "default"})
		if err != nil {
			return nil, err
		}
		return emb.EmbedQueries(ctx, texts)
	}
}

func (p *ModelProvider) remoteEmbedder(r *RemoteEmbedding) (Embedder, error) {
	return nil, invalidField("embedding_config.model", "remote embedding endpoints are not available yet")
}
