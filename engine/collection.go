package engine

import (
	"sort"
	"sync"

	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
)

// docLoc locates the live copy of a document.
type docLoc struct {
	seg   uint64
	local uint32
}

// collection is the in-memory state of one collection. Writers (ingest,
// delete, merge commit) hold wmu for their whole operation; readers take a
// snapshot of segs under mu and then work lock-free on immutable segments.
type collection struct {
	e          *Engine
	owner, id  string
	num        uint32
	wmu        sync.Mutex
	mu         sync.RWMutex
	rec        collRecord
	segs       []*segment.Segment // ascending id
	loc        map[string]docLoc
	dropped    bool
	vocabCache *vocabCache
}

func newCollection(e *Engine, owner, id string, rec collRecord) *collection {
	if rec.Inferred == nil {
		rec.Inferred = map[string]string{}
	}
	return &collection{e: e, owner: owner, id: id, num: rec.Num, rec: rec, loc: map[string]docLoc{}}
}

func loadCollection(e *Engine, owner, id string, rec collRecord) (*collection, error) {
	c := newCollection(e, owner, id, rec)
	ids, err := e.store.Segments(c.num)
	if err != nil {
		return nil, err
	}
	for _, sid := range ids {
		s, err := segment.Load(e.store, c.num, sid)
		if err != nil {
			return nil, err
		}
		c.segs = append(c.segs, s)
		for local, doc := range s.Docs {
			if s.Deleted.Contains(uint32(local)) {
				continue
			}
			c.loc[doc] = docLoc{seg: s.ID, local: uint32(local)}
		}
	}
	return c, nil
}

func (c *collection) config() CollectionConfig {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.rec.Config
}

func (c *collection) record() collRecord {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r := c.rec
	r.Inferred = cloneMap(c.rec.Inferred)
	return r
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (c *collection) setRecord(r collRecord) {
	c.mu.Lock()
	c.rec = r
	c.mu.Unlock()
}

func (c *collection) docCount() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.loc)
}

func (c *collection) info() Collection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return Collection{ID: c.id, Owner: c.owner, Config: c.rec.Config, DocumentCount: int64(len(c.loc)), CreatedAt: c.rec.Created, UpdatedAt: c.rec.Updated}
}

// snapshot returns the current segments; the slice must not be modified.
func (c *collection) snapshot() []*segment.Segment {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.segs
}

// fieldType returns the declared, else inferred, type of a field.
func (c *collection) fieldType(name string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return fieldTypeOf(&c.rec, name)
}

func fieldTypeOf(rec *collRecord, name string) (string, bool) {
	if f, ok := rec.Config.Fields[name]; ok {
		return f.Type, true
	}
	t, ok := rec.Inferred[name]
	return t, ok
}

// segByID finds a segment in a snapshot.
func segByID(segs []*segment.Segment, id uint64) *segment.Segment {
	i := sort.Search(len(segs), func(i int) bool { return segs[i].ID >= id })
	if i < len(segs) && segs[i].ID == id {
		return segs[i]
	}
	return nil
}

// analyzerFor returns the analyzer of a collection language for a text.
func analyzerFor(lang string, sample string) *text.Analyzer {
	switch lang {
	case "cs":
		return text.NewAnalyzer(text.Czech)
	case "auto":
		return text.NewAnalyzer(text.DetectLanguage(sample))
	}
	return text.NewAnalyzer(text.English)
}
