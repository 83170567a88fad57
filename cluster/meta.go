package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The meta index (<prefix>_meta) holds najdi's own records as key-values:
// collection configs and owners, NLU models and phrase sets (jobs have
// indices of their own, jobs.go). A
// najdi process then holds no state of its own, and several replicas can
// serve one cluster. Collection ids start with a letter or digit, so the
// name cannot collide with a collection's alias.

func (c *Client) metaIndex() string { return c.cfg.Prefix + "_meta" }

// ensureMeta creates the meta index if it is missing.
func (c *Client) ensureMeta(ctx context.Context) error {
	body := map[string]any{
		"settings": map[string]any{"index": map[string]any{"number_of_shards": 1, "number_of_replicas": 0}},
		"mappings": map[string]any{"dynamic": false, "properties": map[string]any{
			"key":   map[string]any{"type": "keyword"},
			"value": map[string]any{"type": "object", "enabled": false}}},
	}
	err := c.doJSON(ctx, "PUT", "/"+c.metaIndex(), nil, body, nil)
	if err != nil && !strings.Contains(err.Error(), "already_exists") {
		return fmt.Errorf("cluster: create meta index: %w", err)
	}
	return nil
}

// PutMeta stores value (a JSON value) under key, durably and visibly to
// every replica when it returns.
func (c *Client) PutMeta(ctx context.Context, key string, value json.RawMessage) error {
	doc := map[string]any{"key": key, "value": map[string]any{"v": value}}
	// The index must exist with its mapping before the first write, which
	// would otherwise create it with dynamic mappings.
	if !c.metaReady.Load() {
		if err := c.ensureMeta(ctx); err != nil {
			return err
		}
		c.metaReady.Store(true)
	}
	path := "/" + c.metaIndex() + "/_doc/" + url.PathEscape(key)
	if err := c.doJSON(ctx, "PUT", path, url.Values{"refresh": {"wait_for"}}, doc, nil); err != nil {
		return fmt.Errorf("cluster: put %q: %w", key, err)
	}
	return nil
}

// GetMeta returns the value stored under key, ErrNotFound when there is
// none.
func (c *Client) GetMeta(ctx context.Context, key string) (json.RawMessage, error) {
	var r struct {
		Found  bool `json:"found"`
		Source struct {
			Value struct {
				V json.RawMessage `json:"v"`
			} `json:"value"`
		} `json:"_source"`
	}
	err := c.doJSON(ctx, "GET", "/"+c.metaIndex()+"/_doc/"+url.PathEscape(key), nil, nil, &r)
	if errors.Is(err, ErrNotFound) || (err == nil && !r.Found) {
		return nil, clusterError(ErrNotFound, 0, "get "+key, "no such key", nil)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: get %q: %w", key, err)
	}
	return r.Source.Value.V, nil
}

// DeleteMeta removes key; a missing key is not an error.
func (c *Client) DeleteMeta(ctx context.Context, key string) error {
	err := c.doJSON(ctx, "DELETE", "/"+c.metaIndex()+"/_doc/"+url.PathEscape(key), url.Values{"refresh": {"wait_for"}}, nil, nil)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("cluster: delete %q: %w", key, err)
	}
	return nil
}

// ListMeta returns the keys starting with prefix, ascending (at most
// 10,000).
func (c *Client) ListMeta(ctx context.Context, prefix string) ([]string, error) {
	body := map[string]any{"size": 10000, "_source": false, "sort": []any{map[string]any{"key": "asc"}},
		"docvalue_fields": []string{"key"},
		"query":           map[string]any{"prefix": map[string]any{"key": prefix}}}
	var r struct {
		Hits struct {
			Hits []struct {
				Fields map[string][]string `json:"fields"`
			} `json:"hits"`
		} `json:"hits"`
	}
	err := c.doJSON(ctx, "POST", "/"+c.metaIndex()+"/_search", nil, body, &r)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: list %q: %w", prefix, err)
	}
	var out []string
	for _, h := range r.Hits.Hits {
		if k := h.Fields["key"]; len(k) > 0 {
			out = append(out, k[0])
		}
	}
	return out, nil
}
