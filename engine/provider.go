package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/najdi/najdi/embed"
)

// DefaultModel is the model that embedding_config.model "default" names.
const DefaultModel = embed.DefaultModel

// ModelProvider resolves embedding configurations to local ONNX models
// installed under a models directory (an embed.Registry: one directory per
// model, loaded lazily and shared by every collection that names it) and to
// remote OpenAI-compatible endpoints.
type ModelProvider struct {
	reg    *embed.Registry
	mu     sync.Mutex
	remote map[string]*embed.Remote
}

// NewModelProvider returns a provider over the models in dir, using the
// ONNX Runtime library at lib. It fails when the default model or the
// runtime is not installed (run `make models`).
func NewModelProvider(dir, lib string) (*ModelProvider, error) {
	if _, err := os.Stat(filepath.Join(dir, DefaultModel, "manifest.json")); err != nil {
		return nil, fmt.Errorf("the default embedding model %s is not installed in %s (run `make models`, or start with --no-embeddings for keyword-only collections): %w", DefaultModel, dir, err)
	}
	if _, err := os.Stat(lib); err != nil {
		return nil, fmt.Errorf("the ONNX Runtime library is not at %s (run `make models`): %w", lib, err)
	}
	return &ModelProvider{reg: embed.NewRegistry(dir, lib), remote: map[string]*embed.Remote{}}, nil
}

// Embedder implements EmbedderProvider.
func (p *ModelProvider) Embedder(cfg EmbeddingConfig) (Embedder, error) {
	if r := cfg.Remote; r != nil {
		return p.remoteEmbedder(r)
	}
	m, err := p.reg.Local(cfg.Model)
	if err != nil {
		if errors.Is(err, embed.ErrUnknownModel) {
			return nil, invalidField("embedding_config.model", "model %q is not installed (installed: %s; or use \"none\" for keyword-only)", cfg.Model, strings.Join(p.reg.Installed(), ", "))
		}
		return nil, fmt.Errorf("load model %q: %w", cfg.Model, err)
	}
	return m, nil
}

func (p *ModelProvider) remoteEmbedder(r *RemoteEmbedding) (Embedder, error) {
	key := fmt.Sprintf("%s|%s|%d|%s|%d|%d", r.URL, r.Model, r.Dims, r.APIKeyEnv, r.TimeoutMS, r.BatchSize)
	p.mu.Lock()
	defer p.mu.Unlock()
	if m, ok := p.remote[key]; ok {
		return m, nil
	}
	m, err := embed.NewRemote(embed.RemoteConfig{URL: r.URL, Model: r.Model, Dims: r.Dims, APIKeyEnv: r.APIKeyEnv,
		Timeout: time.Duration(r.TimeoutMS) * time.Millisecond, BatchSize: r.BatchSize})
	if err != nil {
		return nil, invalidField("embedding_config.model", "%v", err)
	}
	if r.Dims == 0 {
		return nil, invalidField("embedding_config.model.dims", "give the remote model's vector length (dims)")
	}
	p.remote[key] = m
	return m, nil
}

// Close releases the loaded models.
func (p *ModelProvider) Close() error { return p.reg.Close() }

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
