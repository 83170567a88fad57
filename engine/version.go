package engine

// Copies of a document: a search matches one copy (a local document of a
// segment in its snapshot) but loads the body by document id afterwards,
// when a replace may have written a new body. Each commit that writes
// documents has a generation; the document locations record the
// generation of the copy they point to, and a replaced document's
// location is marked with the replacing commit's generation before its
// batch is committed (the new body becomes readable then, before the new
// segments are installed). A hit whose copy is no longer the live one, or
// whose replacement is in flight, is dropped (loadMatched) rather than
// rendered with a body it did not match.

// testHookBeforeLoad, when set by a test, runs before a hit's body is
// loaded; testHookCommitted runs after a writer's batch is committed and
// before its segments are installed.
var testHookBeforeLoad, testHookCommitted func()

// markReplacing starts a commit that writes documents: it returns the
// commit's generation and marks the current locations of replaced (ids
// with a live copy) as being replaced by it. The caller holds wmu and
// must call installed with the generation afterwards, committed or not.
func (c *collection) markReplacing(ids []string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.gen++
	g := c.mu.gen
	for _, id := range ids {
		if l, ok := c.mu.loc[id]; ok {
			l.gen = g
			c.mu.loc[id] = l
		}
	}
	return g
}

// installedLocked records that the commit of generation g is installed
// (or failed, leaving the old copies live). The caller holds c.mu.
func (c *collection) installedLocked(g uint64) {
	c.mu.visible = max(c.mu.visible, g)
}

// visibleGen returns the generation of the last installed commit: a
// snapshot taken afterwards holds every copy of that generation or older.
func (c *collection) visibleGen() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mu.visible
}

// matched reports whether h's copy may be rendered with the body loaded
// after it: its document is still live, and either no commit since the
// search started (generation v0) wrote it, or h is that commit's copy and
// the commit is installed. A merge moves a copy without changing its
// generation, so a merge alone never drops a hit.
func (c *collection) matched(h *hit, v0 uint64) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	l, ok := c.mu.loc[h.docID]
	if !ok {
		return false
	}
	if l.gen <= v0 {
		return true
	}
	return l.gen <= c.mu.visible && l.seg == h.seg.ID && l.local == h.local
}

// loadMatched loads the document of a hit, or ErrNotFound when it was
// deleted or replaced after the search matched it.
func (e *Engine) loadMatched(p *plan, h *hit, bp bodyParts) (Document, error) {
	if testHookBeforeLoad != nil {
		testHookBeforeLoad()
	}
	d, err := e.loadDocParts(h.c, h.docID, bp)
	if err != nil {
		return d, err
	}
	if !h.c.matched(h, p.visible[h.c]) {
		return Document{}, notFoundf("document %q of collection %q changed during the search", h.docID, h.c.id)
	}
	return d, nil
}
