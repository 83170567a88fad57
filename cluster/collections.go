package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/najdi/najdi/filter"
)

// alias returns the alias of a collection.
func (c *Client) alias(coll string) string { return c.cfg.Prefix + coll }

// genIndex returns the index name of generation g of a collection.
func (c *Client) genIndex(coll string, g int) string {
	return c.cfg.Prefix + coll + ".g" + strconv.Itoa(g)
}

// collectionOf returns the collection of an index or alias name.
func (c *Client) collectionOf(index string) (string, int, bool) {
	rest, ok := strings.CutPrefix(index, c.cfg.Prefix)
	if !ok {
		return "", 0, false
	}
	coll, gen, ok := strings.Cut(rest, ".g")
	if !ok {
		return rest, 0, true
	}
	g, err := strconv.Atoi(gen)
	if err != nil {
		return "", 0, false
	}
	return coll, g, true
}

// CreateCollection creates the first generation index of a collection and
// its alias. A collection that exists is ErrConflict.
func (c *Client) CreateCollection(ctx context.Context, coll string, s Schema) error {
	if _, err := c.generations(ctx, coll); err == nil {
		return clusterError(ErrConflict, 0, "create collection "+coll, "the collection exists on the cluster", nil)
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	body, err := c.indexBody(s, c.alias(coll))
	if err != nil {
		return err
	}
	err = c.doJSON(ctx, "PUT", "/"+c.genIndex(coll, 1), nil, body, nil)
	if err != nil && strings.Contains(err.Error(), "already_exists") {
		return clusterError(ErrConflict, 0, "create collection "+coll, "the collection exists on the cluster", nil)
	}
	return err
}

// generations returns the indices the collection's alias points to, and
// ErrNotFound when there is no such alias.
func (c *Client) generations(ctx context.Context, coll string) ([]string, error) {
	var m map[string]any
	if err := c.doJSON(ctx, "GET", "/_alias/"+c.alias(coll), nil, nil, &m); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, clusterError(ErrNotFound, 0, "collection "+coll, "no such collection on the cluster", nil)
		}
		return nil, err
	}
	var out []string
	for idx := range m {
		out = append(out, idx)
	}
	if len(out) == 0 {
		return nil, clusterError(ErrNotFound, 0, "collection "+coll, "no such collection on the cluster", nil)
	}
	slices.Sort(out)
	return out, nil
}

// Collections returns the names of the collections on the cluster (the
// aliases under the prefix), sorted.
func (c *Client) Collections(ctx context.Context) ([]string, error) {
	var m map[string]struct {
		Aliases map[string]any `json:"aliases"`
	}
	if err := c.doJSON(ctx, "GET", "/_alias/"+c.cfg.Prefix+"*", nil, nil, &m); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	seen := map[string]bool{}
	for _, v := range m {
		for a := range v.Aliases {
			if coll, g, ok := c.collectionOf(a); ok && g == 0 {
				seen[coll] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// DropCollection deletes every generation index of a collection (and so
// its alias).
func (c *Client) DropCollection(ctx context.Context, coll string) error {
	idx, err := c.generations(ctx, coll)
	if err != nil {
		return err
	}
	// Generations created but not yet swapped in are dropped too.
	var all map[string]any
	if err := c.doJSON(ctx, "GET", "/"+c.alias(coll)+".g*", url.Values{"filter_path": {"*.settings.index.provided_name"}}, nil, &all); err == nil {
		for k := range all {
			if !slices.Contains(idx, k) {
				idx = append(idx, k)
			}
		}
	}
	return c.doJSON(ctx, "DELETE", "/"+strings.Join(idx, ","), nil, nil, nil)
}

// AddFields maps new filter fields on a collection's current generation
// (a field's type cannot change once mapped: that is ErrInvalid).
func (c *Client) AddFields(ctx context.Context, coll string, fields map[string]filter.FieldType) error {
	props := map[string]any{}
	for name, t := range fields {
		m, err := fieldMapping(name, t)
		if err != nil {
			return err
		}
		if m != nil {
			props[name] = m
		}
	}
	if len(props) == 0 {
		return nil
	}
	return c.doJSON(ctx, "PUT", "/"+c.alias(coll)+"/_mapping", nil, map[string]any{"properties": props}, nil)
}

// NewGeneration creates the next generation index of an existing
// collection, not yet visible to searches, and returns its name: a reindex
// writes into it (IngestInto) and then SwapGeneration makes it current.
func (c *Client) NewGeneration(ctx context.Context, coll string, s Schema) (string, error) {
	cur, err := c.generations(ctx, coll)
	if err != nil {
		return "", err
	}
	g := 0
	for _, idx := range cur {
		if _, n, ok := c.collectionOf(idx); ok {
			g = max(g, n)
		}
	}
	body, err := c.indexBody(s, "")
	if err != nil {
		return "", err
	}
	for {
		g++
		name := c.genIndex(coll, g)
		err := c.doJSON(ctx, "PUT", "/"+name, nil, body, nil)
		if err == nil {
			return name, nil
		}
		if !strings.Contains(err.Error(), "already_exists") {
			return "", err
		}
	}
}

// SwapGeneration points the collection's alias at index in one atomic
// alias update and deletes the generations it pointed to before.
func (c *Client) SwapGeneration(ctx context.Context, coll, index string) error {
	if got, _, ok := c.collectionOf(index); !ok || got != coll {
		return clusterError(ErrInvalid, 0, "swap generation", fmt.Sprintf("index %q is not a generation of collection %q", index, coll), nil)
	}
	old, err := c.generations(ctx, coll)
	if err != nil {
		return err
	}
	var actions []any
	actions = append(actions, map[string]any{"add": map[string]any{"index": index, "alias": c.alias(coll), "is_write_index": true}})
	for _, o := range old {
		if o != index {
			actions = append(actions, map[string]any{"remove_index": map[string]any{"index": o}})
		}
	}
	return c.doJSON(ctx, "POST", "/_aliases", nil, map[string]any{"actions": actions}, nil)
}

// StoreBytes returns the bytes the primary shards of collections take on
// disk (index statistics).
func (c *Client) StoreBytes(ctx context.Context, colls []string) (int64, error) {
	idx, err := c.indices(colls)
	if err != nil {
		return 0, err
	}
	var r struct {
		All struct {
			Primaries struct {
				Store struct {
					Size int64 `json:"size_in_bytes"`
				} `json:"store"`
			} `json:"primaries"`
		} `json:"_all"`
	}
	if err := c.doJSON(ctx, "GET", "/"+idx+"/_stats/store", nil, nil, &r); err != nil {
		return 0, fmt.Errorf("cluster: index statistics: %w", err)
	}
	return r.All.Primaries.Store.Size, nil
}

// DropCollectionsWithPrefix deletes every index this client's prefix
// names (its collections and its meta index): for benchmarks and tests.
func (c *Client) DropCollectionsWithPrefix(ctx context.Context) error {
	return c.doJSON(ctx, "DELETE", "/"+c.cfg.Prefix+"*", nil, nil, nil)
}
