package engine

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestProviderOptionsValidate(t *testing.T) {
	bad := []ProviderOptions{
		{AllowOutbound: []string{"http://gpu-box"}},
		{AllowOutbound: []string{"2130706433"}},
		{APIKeys: []APIKey{{Name: "", Key: "k"}}},
		{APIKeys: []APIKey{{Name: "a b", Key: "k"}}},
		{APIKeys: []APIKey{{Name: "a", Key: ""}}},
		{APIKeys: []APIKey{{Name: "a", Key: "k"}, {Name: "a", Key: "l"}}},
	}
	for _, o := range bad {
		if err := o.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", o)
		}
	}
	good := ProviderOptions{AllowOutbound: []string{"127.0.0.1:11434,gpu-box", "*.example.com"}, APIKeys: []APIKey{{Name: "openai", Env: "OPENAI_API_KEY", Key: "k"}, {Name: "gpu.v2", Key: "l"}}}
	if err := good.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

// TestRemoteEmbeddingKeys: a remote configuration gets a key only by the
// name the operator declared (or, in the older form, the variable that
// key came from); every other name — set in the environment or not —
// answers the same ErrInvalid, and hosts need the allow-list.
func TestRemoteEmbeddingKeys(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"index": 0, "embedding": []float32{1, 0}}}})
	}))
	defer srv.Close()
	t.Setenv("NAJDI_TEST_PROVIDER_SECRET", "server-secret")
	p := newModelProvider(nil, ProviderOptions{
		AllowOutbound: []string{strings.TrimPrefix(srv.URL, "http://")},
		APIKeys:       []APIKey{{Name: "gpu", Env: "NAJDI_TEST_GPU_KEY", Key: "declared"}},
	})
	remote := func(r RemoteEmbedding) EmbeddingConfig {
		r.URL, r.Model, r.Dims = srv.URL, "m", 2
		return EmbeddingConfig{Remote: &r}
	}
	msgs := map[string]map[string]bool{}
	for _, r := range []RemoteEmbedding{
		{APIKeyEnv: "NAJDI_TEST_PROVIDER_SECRET"}, {APIKeyEnv: "HOME"}, {APIKeyEnv: "NAJDI_TEST_UNSET_9f3"}, {APIKeyEnv: "gpu"},
		{APIKeyName: "NAJDI_TEST_PROVIDER_SECRET"}, {APIKeyName: "HOME"}, {APIKeyName: "nope"}, {APIKeyName: "GPU"},
	} {
		_, err := p.Embedder(remote(r))
		var ee *Error
		if !errors.As(err, &ee) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: err %v, want ErrInvalid", r, err)
			continue
		}
		field, _ := ee.Details["field"].(string)
		if msgs[field] == nil {
			msgs[field] = map[string]bool{}
		}
		msgs[field][err.Error()] = true
		if !strings.Contains(err.Error(), "--secret") {
			t.Errorf("%+v: %v does not name --secret", r, err)
		}
	}
	if len(msgs) != 2 || len(msgs["embedding_config.model.api_key_env"]) != 1 || len(msgs["embedding_config.model.api_key_name"]) != 1 {
		t.Errorf("undeclared names answer differently: %v", msgs)
	}
	if _, err := p.Embedder(remote(RemoteEmbedding{APIKeyName: "gpu", APIKeyEnv: "NAJDI_TEST_GPU_KEY"})); !errors.Is(err, ErrInvalid) {
		t.Errorf("both forms: err %v", err)
	}
	for _, r := range []RemoteEmbedding{{APIKeyName: "gpu"}, {APIKeyEnv: "NAJDI_TEST_GPU_KEY"}, {}} {
		emb, err := p.Embedder(remote(r))
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		if _, err := emb.EmbedQueries(context.Background(), []string{"x"}); err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(auth, ",") != "Bearer declared,Bearer declared," {
		t.Errorf("the endpoint received %q", auth)
	}

	// Hosts: none without an allow-list; never another host or port.
	for _, prov := range []*ModelProvider{newModelProvider(nil, ProviderOptions{}), p} {
		for _, u := range []string{"http://127.0.0.1:1", "http://169.254.169.254", srv.URL + "/x?y=", srv.URL + "#"} {
			_, err := prov.Embedder(EmbeddingConfig{Remote: &RemoteEmbedding{URL: u, Model: "m", Dims: 2}})
			var ee *Error
			if !errors.As(err, &ee) || ee.Details["field"] != "embedding_config.model.url" {
				t.Errorf("url %s: err %v, want ErrInvalid on embedding_config.model.url", u, err)
			}
		}
	}
}

// TestRemoteEmbeddingPrefixes checks that query_prefix and passage_prefix
// of a remote model reach the endpoint (they answered 400 before), parsed
// from a collection configuration as a client sends it.
func TestRemoteEmbeddingPrefixes(t *testing.T) {
	var mu sync.Mutex
	var inputs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		inputs = append(inputs, req.Input...)
		mu.Unlock()
		var data []any
		for i := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": []float32{1, 0}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	cfg, err := ParseCollectionConfig([]byte(`{"embedding_config": {"model": {"url": "` + srv.URL + `", "model": "e5", "dims": 2,
		"query_prefix": "query: ", "passage_prefix": "passage: "}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := newModelProvider(nil, ProviderOptions{AllowOutbound: []string{strings.TrimPrefix(srv.URL, "http://")}})
	emb, err := p.Embedder(cfg.EmbeddingConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := emb.EmbedQueries(ctx, []string{"where"}); err != nil {
		t.Fatal(err)
	}
	if _, err := emb.EmbedPassages(ctx, []string{"here"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(inputs, "|") != "query: where|passage: here" {
		t.Errorf("the endpoint received %q", inputs)
	}
	plain := EmbeddingConfig{Remote: &RemoteEmbedding{URL: srv.URL, Model: "e5"}}
	if cfg.EmbeddingConfig.Key() == plain.Key() {
		t.Errorf("prefixes do not change the embedding key %q: vectors would be compared across them", plain.Key())
	}
}
