package engine

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
)

// docLoc locates the live copy of a document.
type docLoc struct {
	seg   uint64
	local uint32
	gen   uint64 // the commit that wrote the copy, or replaces it (version.go)
}

// collection is the in-memory state of one collection. Readers take a
// snapshot of its segments under mu and then work lock-free on immutable
// segments. Writers (an ingest's flush, a delete, a merge) prepare their
// work without locks and take wmu only to commit it: to type fields, write
// one batch and install the result under mu.
type collection struct {
	e         *Engine
	owner, id string
	num       uint32 // the collection's number in store keys
	// index is the collection's index on the Backend ("" without one).
	index string

	// lastSegment is when a writer last installed a segment (Unix
	// nanoseconds of Options.Now; 0 since the open), for IdleMerge.
	lastSegment atomic.Int64

	// wmu serializes the commits of writers (writer.flush, DeleteDocument,
	// merge) and of DeleteCollection. Readers never take it.
	wmu sync.Mutex
	// dropped, guarded by wmu, is set by DeleteCollection; a writer that
	// takes wmu after it gives up.
	dropped bool

	// mu guards the state below. Writers hold wmu when they take it to
	// install a commit; readers hold it only to copy what they need.
	mu struct {
		sync.RWMutex
		// rec is the stored collection record: the configuration and the
		// inferred field types (copied by record, with its own map).
		rec collRecord
		// segs are the live segments in ascending id order. A commit
		// replaces the slice, never a segment in it, so a snapshot stays
		// valid.
		segs []*segment.Segment
		// loc locates the live copy of each document.
		loc map[string]docLoc
		// gen numbers the commits that write documents; visible is the
		// last one installed (version.go).
		gen, visible uint64
		// vocabCache is the diacritics vocabulary, built on demand and
		// dropped by every commit (invalidateVocabulary).
		vocabCache *vocabCache
	}
}

func newCollection(e *Engine, owner, id string, rec collRecord) *collection {
	if rec.Inferred == nil {
		rec.Inferred = map[string]string{}
	}
	c := &collection{e: e, owner: owner, id: id, num: rec.Num}
	c.mu.rec, c.mu.loc = rec, map[string]docLoc{}
	return c
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
		c.mu.segs = append(c.mu.segs, s)
		for local, doc := range s.Docs {
			if s.Deleted.Contains(uint32(local)) {
				continue
			}
			c.mu.loc[doc] = docLoc{seg: s.ID, local: uint32(local)}
		}
	}
	return c, nil
}

func (c *collection) config() CollectionConfig {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mu.rec.Config
}

func (c *collection) record() collRecord {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r := c.mu.rec
	r.Inferred = cloneMap(c.mu.rec.Inferred)
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
	c.mu.rec = r
	c.mu.Unlock()
}

func (c *collection) docCount() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.mu.loc)
}

func (c *collection) info() Collection {
	c.mu.RLock()
	info := Collection{ID: c.id, Owner: c.owner, Config: c.mu.rec.Config, DocumentCount: int64(len(c.mu.loc)), CreatedAt: c.mu.rec.Created, UpdatedAt: c.mu.rec.Updated}
	for _, s := range c.mu.segs {
		info.SizeBytes += int64(s.Bytes)
	}
	c.mu.RUnlock()
	info.SizeBytes += int64(c.e.store.DocumentBytes(c.num))
	return info
}

// snapshot returns the current segments; the slice must not be modified.
func (c *collection) snapshot() []*segment.Segment {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mu.segs
}

// fieldType returns the declared, else inferred, type of a field.
func (c *collection) fieldType(name string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return fieldTypeOf(&c.mu.rec, name)
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
	return text.NewAnalyzer(queryLanguage(lang, sample))
}

// queryLanguage resolves a collection language (search_config.language)
// for a text: "auto" detects it.
func queryLanguage(lang string, sample string) text.Language {
	switch lang {
	case "cs":
		return text.Czech
	case "auto":
		return text.DetectLanguage(sample)
	}
	return text.English
}
