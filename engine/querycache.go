package engine

import (
	"sync"
)

// DefaultQueryCacheSize is the number of query vectors the engine keeps by
// default (Options.QueryCacheSize): with 384-dimension models about 1.6
// MiB plus the query texts.
const DefaultQueryCacheSize = 1024

// maxCachedQueryBytes is the longest query text whose vector is cached:
// short queries are the ones repeated (a search box, a chatbot's intents),
// and the bound keeps the cache's memory at size × (bytes + vector).
const maxCachedQueryBytes = 256

// queryCacheKey identifies a query vector: the embedding method
// (EmbeddingConfig.Key, which holds a remote model's prefixes; a local
// model's prefixes are part of the model) and the query text.
type queryCacheKey struct {
	model, text string
}

// queryCache is a bounded LRU cache of query vectors. Models are
// immutable, so entries never need invalidation; the least recently used
// entry goes when the cache is full. Vectors are shared: callers must not
// modify them. A nil *queryCache caches nothing.
type queryCache struct {
	mu    sync.Mutex
	size  int
	items map[queryCacheKey]*queryCacheEntry
	// head is a sentinel of the circular recency list: head.next is the
	// most recently used entry, head.prev the least.
	head queryCacheEntry
}

type queryCacheEntry struct {
	key        queryCacheKey
	vec        []float32
	prev, next *queryCacheEntry
}

// newQueryCache returns a cache of at most size vectors; size <= 0 returns
// nil (no cache).
func newQueryCache(size int) *queryCache {
	if size <= 0 {
		return nil
	}
	c := &queryCache{size: size, items: make(map[queryCacheKey]*queryCacheEntry, size)}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// get returns the cached vector of a query, marking it recently used.
func (c *queryCache) get(model, text string) ([]float32, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	en := c.items[queryCacheKey{model, text}]
	if en == nil {
		return nil, false
	}
	c.unlink(en)
	c.pushFront(en)
	return en.vec, true
}

// put caches the vector of a query, evicting the least recently used entry
// when the cache is full. Texts longer than maxCachedQueryBytes are not
// cached.
func (c *queryCache) put(model, text string, vec []float32) {
	if c == nil || len(text) > maxCachedQueryBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := queryCacheKey{model, text}
	if en := c.items[k]; en != nil {
		en.vec = vec
		c.unlink(en)
		c.pushFront(en)
		return
	}
	var en *queryCacheEntry
	if len(c.items) >= c.size {
		en = c.head.prev // reuse the evicted entry
		c.unlink(en)
		delete(c.items, en.key)
	} else {
		en = &queryCacheEntry{}
	}
	en.key, en.vec = k, vec
	c.items[k] = en
	c.pushFront(en)
}

// len returns the number of cached vectors.
func (c *queryCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

func (c *queryCache) unlink(en *queryCacheEntry) {
	en.prev.next, en.next.prev = en.next, en.prev
}

func (c *queryCache) pushFront(en *queryCacheEntry) {
	en.prev, en.next = &c.head, c.head.next
	c.head.next.prev = en
	c.head.next = en
}
