package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/internal/outbound"
)

// DefaultModel is the model that embedding_config.model "default" names.
const DefaultModel = embed.DefaultModel

// ModelProvider resolves embedding configurations to local ONNX models
// installed under a models directory (an embed.Registry: one directory per
// model, loaded lazily and shared by every collection that names it) and to
// remote OpenAI-compatible endpoints, as far as its ProviderOptions allow.
type ModelProvider struct {
	reg    *embed.Registry
	opts   ProviderOptions
	policy *outbound.Policy
	client *http.Client
	mu     sync.Mutex
	remote map[string]*embed.Remote
}

// ProviderOptions governs the remote embedding endpoints that collection
// configurations name. A collection's owner writes that configuration, so
// the operator decides here which hosts may be called and which API keys
// may be sent. The zero value allows no remote endpoint.
type ProviderOptions struct {
	// AllowOutbound lists the hosts a remote endpoint may be on: "host"
	// (every port), "host:port", "*.domain" or "*" (wildcards admit public
	// addresses only; see internal/outbound). Empty, every remote endpoint
	// is refused (400).
	AllowOutbound []string
	// APIKeys are the keys a collection may have sent to its endpoint, by
	// name (embedding_config.model.api_key_name).
	APIKeys []APIKey
	// Logger receives the details of failed remote calls, which the
	// errors returned to clients leave out (default slog.Default()).
	Logger *slog.Logger
	// EmbedThreads is the ONNX Runtime intra-op thread count with which
	// local models embed the passages of ingests (default max(1,
	// GOMAXPROCS-1)), and QueryEmbedThreads the count for queries (default
	// GOMAXPROCS). Queries run in a session of their own, so that searches
	// keep their latency while ingestion is saturated (embed.LocalOptions).
	EmbedThreads, QueryEmbedThreads int
}

// APIKey is an API key the operator declared for remote endpoints.
type APIKey struct {
	// Name is what a collection's api_key_name says: 1-64 letters, digits,
	// '_', '-' and '.'.
	Name string
	// Env is the environment variable Key was read from, if any: an older
	// configuration's api_key_env may name it.
	Env string
	// Key is sent as the bearer token. It is never returned or logged.
	Key string
}

// Validate reports a malformed allow-list, a bad or repeated key name or
// an empty key.
func (o ProviderOptions) Validate() error {
	if _, err := outbound.New(o.AllowOutbound); err != nil {
		return fmt.Errorf("allow-outbound: %w", err)
	}
	if o.EmbedThreads < 0 || o.QueryEmbedThreads < 0 {
		return fmt.Errorf("embedding threads %d, query embedding threads %d: want 0 (the default) or more", o.EmbedThreads, o.QueryEmbedThreads)
	}
	seen := map[string]bool{}
	for _, k := range o.APIKeys {
		if !validKeyName(k.Name) {
			return fmt.Errorf("API key name %q: want 1-64 letters, digits, '_', '-' and '.'", k.Name)
		}
		if seen[k.Name] {
			return fmt.Errorf("API key %q declared twice", k.Name)
		}
		seen[k.Name] = true
		if k.Key == "" {
			return fmt.Errorf("API key %q is empty", k.Name)
		}
	}
	return nil
}

func validKeyName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// NewModelProvider returns a provider over the models in dir, using the
// ONNX Runtime library at lib, that allows no remote endpoint. It fails
// when the default model or the runtime is not installed (run `make
// models`).
func NewModelProvider(dir, lib string) (*ModelProvider, error) {
	return NewModelProviderOptions(dir, lib, ProviderOptions{})
}

// NewModelProviderOptions is NewModelProvider with the remote endpoints
// and API keys opts allows.
func NewModelProviderOptions(dir, lib string, opts ProviderOptions) (*ModelProvider, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultModel, "manifest.json")); err != nil {
		return nil, fmt.Errorf("the default embedding model %s is not installed in %s (run `make models`, or start with --no-embeddings for keyword-only collections): %w", DefaultModel, dir, err)
	}
	if _, err := os.Stat(lib); err != nil {
		return nil, fmt.Errorf("the ONNX Runtime library is not at %s (run `make models`): %w", lib, err)
	}
	reg := embed.NewRegistryOptions(dir, embed.LocalOptions{LibraryPath: lib, Threads: opts.EmbedThreads, QueryThreads: opts.QueryEmbedThreads})
	return newModelProvider(reg, opts), nil
}

// newModelProvider returns a provider over reg with opts, which Validate
// accepted.
func newModelProvider(reg *embed.Registry, opts ProviderOptions) *ModelProvider {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	policy, _ := outbound.New(opts.AllowOutbound)
	return &ModelProvider{reg: reg, opts: opts, policy: policy, client: policy.Client(), remote: map[string]*embed.Remote{}}
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

// remoteEmbedder checks a remote endpoint against the allow-list and
// resolves its API key before it returns an embedder for it; nothing is
// called here.
func (p *ModelProvider) remoteEmbedder(r *RemoteEmbedding) (Embedder, error) {
	base, err := p.policy.Check(r.URL)
	if err != nil {
		return nil, invalidField("embedding_config.model.url", "%v", err)
	}
	apiKey, err := p.apiKey(r)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s|%s|%d|%s|%s|%d|%d|%q|%q", base, r.Model, r.Dims, r.APIKeyName, r.APIKeyEnv, r.TimeoutMS, r.BatchSize, r.QueryPrefix, r.PassagePrefix)
	p.mu.Lock()
	defer p.mu.Unlock()
	if m, ok := p.remote[key]; ok {
		return m, nil
	}
	m, err := embed.NewRemote(embed.RemoteConfig{URL: base.String(), Model: r.Model, Dims: r.Dims, APIKey: apiKey,
		Timeout: time.Duration(r.TimeoutMS) * time.Millisecond, BatchSize: r.BatchSize, Client: p.client, Logger: p.opts.Logger,
		QueryPrefix: r.QueryPrefix, PassagePrefix: r.PassagePrefix})
	if err != nil {
		return nil, invalidField("embedding_config.model", "%v", err)
	}
	if r.Dims == 0 {
		return nil, invalidField("embedding_config.model.dims", "give the remote model's vector length (dims)")
	}
	p.remote[key] = m
	return m, nil
}

// apiKey returns the key a remote configuration names: a declared key by
// api_key_name, or by the variable it was read from (api_key_env, the
// older form). Any other name answers the same error, whether or not the
// server's environment holds such a variable; the environment is never
// read here.
func (p *ModelProvider) apiKey(r *RemoteEmbedding) (string, error) {
	const how = "(its operator declares keys with najdi serve --secret NAME=ENVVAR)"
	switch {
	case r.APIKeyName != "" && r.APIKeyEnv != "":
		return "", invalidField("embedding_config.model.api_key_name", "give api_key_name or api_key_env, not both")
	case r.APIKeyName != "":
		for _, k := range p.opts.APIKeys {
			if k.Name == r.APIKeyName {
				return k.Key, nil
			}
		}
		return "", invalidField("embedding_config.model.api_key_name", "not the name of an API key declared on this server %s", how)
	case r.APIKeyEnv != "":
		for _, k := range p.opts.APIKeys {
			if k.Env != "" && k.Env == r.APIKeyEnv {
				return k.Key, nil
			}
		}
		return "", invalidField("embedding_config.model.api_key_env", "not the variable of an API key declared on this server %s; name declared keys with api_key_name", how)
	}
	return "", nil
}

// Close releases the loaded models.
func (p *ModelProvider) Close() error { return p.reg.Close() }

// IntentEmbedder adapts the default embedding model to the NLU intent
// classifier's embedding hook (see IntentEmbedderOf).
func IntentEmbedder(p EmbedderProvider) func(ctx context.Context, texts []string) ([][]float32, error) {
	return IntentEmbedderOf(p, "default")
}

// IntentEmbedderOf adapts an embedding model to the NLU intent
// classifier's embedding hook. Models that can (embed.SymmetricEmbedder)
// embed in their form for comparing short texts with each other
// (bge-small-en-v1.5 without its retrieval instruction: 35 % fewer tokens
// on short utterances, and on a many-intent set as accurate or better;
// docs/nlu.md), the examples of a classifier being trained (many texts at
// once) in bulk; other models embed queries.
func IntentEmbedderOf(p EmbedderProvider, model string) func(ctx context.Context, texts []string) ([][]float32, error) {
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		emb, err := p.Embedder(EmbeddingConfig{Model: model})
		if err != nil {
			return nil, err
		}
		if s, ok := emb.(embed.SymmetricEmbedder); ok {
			return s.EmbedSymmetric(ctx, texts, len(texts) > 1)
		}
		return emb.EmbedQueries(ctx, texts)
	}
}
