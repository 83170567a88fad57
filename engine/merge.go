package engine

import (
	"cmp"
	"context"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/vector"
)

// kickMerge asks the merger to look for work now.
func (e *Engine) kickMerge() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

func (e *Engine) mergeKick() <-chan struct{} { return e.kick }

// mergeLoop merges segments in the background: when a collection has more
// than Options.MaxSegments segments, or a segment is mostly deleted. Once
// merges have run and every collection is idle with nothing left to merge,
// it returns the freed memory to the operating system (releaseMemory).
// Every warmInterval it also has dropped vector files read back into the
// page cache (warmVectors).
func (e *Engine) mergeLoop() {
	defer e.wg.Done()
	t := time.NewTicker(e.opts.MergeInterval)
	defer t.Stop()
	merged := false // since the last release
	var warmed time.Time
	every := warmInterval // doubled while files keep being dropped (warmVectors)
	for {
		select {
		case <-e.done:
			return
		case <-t.C:
		case <-e.mergeKick():
		}
		e.mu.RLock()
		colls := make([]*collection, 0, len(e.colls))
		for _, c := range e.colls {
			colls = append(colls, c)
		}
		e.mu.RUnlock()
		for _, c := range colls {
			if e.closed() {
				return
			}
			// Merging is ingest work: it takes a turn, before jobs.
			if e.slots.acquire(context.Background(), e.done, prioMerge) != nil {
				return
			}
			docs, err := e.mergeCollection(c)
			e.slots.release()
			if err != nil {
				e.log.Error("merge failed", "collection", c.id, "err", err)
			}
			if docs >= releaseAfterMergeDocs {
				e.releaseMemory()
			}
			// Released or not, once idle: a large merge's release comes
			// while the parts it replaced may still be held (a peer run
			// at 1M read 1,690 MiB idle with the large-merge release
			// alone, 1,267 MiB with the idle one alone).
			merged = merged || docs > 0
		}
		if merged && e.opts.IdleMerge > 0 && !e.anyBusy(colls) {
			merged = false
			e.releaseMemory()
		}
		if now := time.Now(); now.Sub(warmed) >= every {
			warmed = now
			if e.warmVectors(colls) > 0 {
				every = min(2*every, 16*warmInterval)
			} else {
				every = warmInterval
			}
		}
	}
}

// MergeNow merges the segments of a collection down to one, synchronously
// (used by benchmarks and tests; the background merger does this
// incrementally).
func (e *Engine) MergeNow(owner, coll string) error {
	c, err := e.collection(owner, coll)
	if err != nil {
		return err
	}
	// A merge that the background merger overtook (it replaced one of the
	// segments first) commits nothing: merge the new set again, a few
	// times at most.
	for range 8 {
		segs := c.snapshot()
		if len(segs) == 0 || len(segs) == 1 && segs[0].Deleted.IsEmpty() {
			return nil
		}
		// One segment with deletes is rewritten too: its deleted
		// documents' postings, vectors and field entries go.
		if err := e.merge(c, segs); err != nil {
			return err
		}
		if e.closed() || segByID(c.snapshot(), segs[0].ID) == nil {
			return nil
		}
	}
	return nil
}

// mergeCollection picks segments to merge by a tiered policy: the smallest
// segments are merged together until at most MaxSegments/2 remain; a
// segment with more than half of its documents deleted is rewritten; and
// once the collection has been idle for IdleMerge, its segments of
// comparable size are merged (idleMergePick).
//
// It returns the number of documents the merge rewrote (0: none).
func (e *Engine) mergeCollection(c *collection) (docs int, err error) {
	segs := c.snapshot()
	var pick []*segment.Segment
	if len(segs) > e.opts.MaxSegments {
		bySize := byLive(segs)
		n := len(segs) - e.opts.MaxSegments/2 + 1
		pick = bySize[:min(n, len(bySize))]
	} else {
		for _, s := range segs {
			if len(s.Docs) > 0 && s.Live()*2 < len(s.Docs) {
				pick = append(pick, s)
			}
		}
		if len(pick) == 0 && e.opts.IdleMerge > 0 && len(segs) > 1 &&
			e.opts.Now().UnixNano()-c.lastSegment.Load() >= int64(e.opts.IdleMerge) {
			pick = idleMergePick(segs)
		}
		if len(pick) == 0 {
			return 0, nil
		}
	}
	for _, s := range pick {
		docs += len(s.Docs)
	}
	return docs, e.merge(c, pick)
}

// anyBusy reports whether a collection received a segment less than
// Options.IdleMerge ago.
func (e *Engine) anyBusy(colls []*collection) bool {
	now := e.opts.Now().UnixNano()
	for _, c := range colls {
		if now-c.lastSegment.Load() < int64(e.opts.IdleMerge) {
			return true
		}
	}
	return false
}

// releaseAfterMergeDocs is the size of a merge (documents rewritten)
// after which the merger releases memory at once (releaseMemory); a
// variable for tests.
var releaseAfterMergeDocs = 100_000

// releaseMemory collects garbage and returns the free memory to the
// operating system (debug.FreeOSMemory): after a merge of at least
// releaseAfterMergeDocs documents, after any merge once the
// collections are idle with nothing left to merge, and after Open when
// loading allocated releaseAfterOpenBytes or more. A merge holds its parts'
// and its result's indexes at once, and reads the parts' memory-mapped
// vector files; a bulk load and its merges raise the Go heap's target to
// twice the most memory they held live at a collection. Without new
// allocations no collection runs to lower it (nor to run the cleanups
// that unmap merged-away segments' files), so an idle server would keep
// that much resident: at 1M chunks, about a gigabyte more than it needs.
// The store lets go of the batches it wrote first (segment.Store.
// ReleaseMemory: the last merge's commit, 512 MB at 1M chunks, stayed
// reachable inside Pebble). Large merges are rare (each document is
// rewritten O(log n) times), so these full collections cost little;
// Options.IdleMerge < 0 turns the idle release off.
func (e *Engine) releaseMemory() {
	if err := e.store.ReleaseMemory(); err != nil {
		e.log.Warn("releasing the store's written batches", "err", err)
	}
	debug.FreeOSMemory()
	e.memReleases.Add(1)
}

// releaseAfterOpenBytes is how much Open may allocate loading the
// collections before it returns the freed memory to the operating system
// (releaseMemory); a variable for tests. Loading reads every segment's
// postings, field entries and vector codes, and what it builds on the way
// is garbage once loaded: a restarted server at 1M chunks held 1.8 GB of
// Go heap for 390 MB live, and kept it while idle, as no merge ran (the
// merger releases memory only after merges).
var releaseAfterOpenBytes uint64 = 64 << 20

// heapAllocs returns the bytes allocated on the Go heap since the
// process started.
func heapAllocs() uint64 { return runtimeBytes("/gc/heap/allocs:bytes") }

// runtimeBytes reads one runtime/metrics counter or gauge of bytes.
func runtimeBytes(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// byLive returns the segments ordered by live documents, fewest first.
func byLive(segs []*segment.Segment) []*segment.Segment {
	bySize := slices.Clone(segs)
	slices.SortFunc(bySize, func(a, b *segment.Segment) int { return a.Live() - b.Live() })
	return bySize
}

// idleMergeRatio bounds the write amplification of idle merges: a segment
// joins the smaller ones only when it holds at most this many times their
// live documents together.
const idleMergeRatio = 4

// idleMergePick returns the segments an idle collection merges: by live
// documents ascending, the longest run of segments each holding at most
// idleMergeRatio times the live documents of the run's segments before it
// (of equal runs, the one of the smallest segments); nil when no run has
// two. The flushes of a bulk load (similar sizes) all merge, whatever the
// size of its last, partial flush (which stays apart when it is too small
// to join: a run starting at it would have stopped at the next flush, and
// kept the load's 4–5 flush-merged segments apart for good); a few small
// writes after a large load merge with each other, and with the large
// segment only once they add up to a quarter of it, so a document is
// rewritten O(log n) times in all.
func idleMergePick(segs []*segment.Segment) []*segment.Segment {
	bySize := byLive(segs)
	bestLo, bestN := 0, 0
	for lo := range bySize {
		n, sum := 1, bySize[lo].Live()
		for lo+n < len(bySize) && bySize[lo+n].Live() <= idleMergeRatio*sum {
			sum += bySize[lo+n].Live()
			n++
		}
		if n > bestN {
			bestLo, bestN = lo, n
		}
	}
	if bestN < 2 {
		return nil
	}
	return bySize[bestLo : bestLo+bestN]
}

// merge rewrites parts as one segment. It builds the new segment without
// locks, then commits it under the write lock, carrying over deletes that
// happened meanwhile.
func (e *Engine) merge(c *collection, parts []*segment.Segment) error {
	slices.SortFunc(parts, func(a, b *segment.Segment) int { return cmp.Compare(a.ID, b.ID) })
	merged := &segment.Segment{ID: e.store.NextID(), Deleted: roaring.New()}
	remap := make([][]int32, len(parts))
	var chunkRemap [][]int32
	texts := make([]*invindex.TextIndex, len(parts))
	fields := make([]*invindex.FieldIndex, len(parts))
	var vecs []*vector.Index
	for p, s := range parts {
		remap[p] = make([]int32, len(s.Docs))
		for local, doc := range s.Docs {
			if s.Deleted.Contains(uint32(local)) {
				remap[p][local] = -1
				continue
			}
			remap[p][local] = int32(len(merged.Docs))
			merged.Docs = append(merged.Docs, doc)
		}
		texts[p], fields[p] = s.Text, s.Fields
		if s.Vectors != nil {
			cr := make([]int32, len(s.Chunks))
			for i, ch := range s.Chunks {
				nd := remap[p][ch.Doc]
				if nd < 0 {
					cr[i] = -1
					continue
				}
				cr[i] = int32(len(merged.Chunks))
				merged.Chunks = append(merged.Chunks, segment.ChunkRef{Doc: uint32(nd), Section: ch.Section, Start: ch.Start, End: ch.End})
			}
			chunkRemap = append(chunkRemap, cr)
			vecs = append(vecs, s.Vectors)
		}
	}
	if len(vecs) != 0 && len(vecs) != len(parts) {
		return fmt.Errorf("BUG: merging segments with and without vectors")
	}
	if len(merged.Docs) == 0 {
		// Nothing live: the parts go and no empty segment replaces them.
		merged = nil
	} else if err := e.buildMerged(merged, remap, chunkRemap, texts, fields, vecs); err != nil {
		return err
	} else if err := merged.SaveVectors(e.store, c.num); err != nil {
		return err
	}
	committed, err := e.commitMerge(c, parts, merged, remap)
	if !committed && merged != nil && merged.Vectors != nil {
		// Never referenced by a committed batch: its vectors file goes.
		e.store.DiscardVectors(c.num, merged.ID)
	}
	return err
}

// buildMerged builds the indexes of merged from those of parts.
func (e *Engine) buildMerged(merged *segment.Segment, remap, chunkRemap [][]int32, texts []*invindex.TextIndex, fields []*invindex.FieldIndex, vecs []*vector.Index) error {
	merged.InitChunkIndex()
	merged.Text = invindex.MergeTextIndexes(texts, remap)
	merged.Fields = invindex.MergeFieldIndexes(fields, remap)
	if len(vecs) > 0 {
		v, err := vector.Merge(vecs, chunkRemap, e.opts.Ranker.VectorOptions())
		if err != nil {
			return fmt.Errorf("merge vectors: %w", err)
		}
		merged.Vectors = v
	}
	return nil
}

// commitMerge replaces parts by merged (nil: by nothing) under the write
// lock, carrying over deletes that happened since parts were read. It
// reports whether it committed the batch (an error after the commit is
// not possible; a refused or failed one leaves merged unreferenced).
func (e *Engine) commitMerge(c *collection, parts []*segment.Segment, merged *segment.Segment, remap [][]int32) (bool, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped || e.closed() {
		return false, nil
	}
	cur := c.snapshot()
	for p, s := range parts {
		now := segByID(cur, s.ID)
		if now == nil {
			return false, nil // replaced meanwhile; try again later
		}
		if merged == nil {
			continue
		}
		later := roaring.AndNot(now.Deleted, s.Deleted)
		it := later.Iterator()
		for it.HasNext() {
			if nd := remap[p][it.Next()]; nd >= 0 {
				merged.Deleted.Add(uint32(nd))
			}
		}
	}
	b := e.store.NewBatch()
	if merged != nil {
		if err := merged.Write(b, c.num); err != nil {
			b.Abort()
			return false, err
		}
	}
	for _, s := range parts {
		b.DeleteSegment(c.num, s.ID)
	}
	if err := b.Commit(); err != nil {
		// A failed commit may still have reached the log: keep the file,
		// the next open removes it if it is an orphan.
		return true, err
	}
	c.mu.Lock()
	out := make([]*segment.Segment, 0, len(c.mu.segs))
	for _, s := range c.mu.segs {
		if !slices.ContainsFunc(parts, func(p *segment.Segment) bool { return p.ID == s.ID }) {
			out = append(out, s)
		}
	}
	if merged == nil {
		c.mu.segs = out
		c.mu.Unlock()
		return true, nil
	}
	out = append(out, merged)
	slices.SortFunc(out, func(a, b *segment.Segment) int { return cmp.Compare(a.ID, b.ID) })
	c.mu.segs = out
	for local, doc := range merged.Docs {
		if !merged.Deleted.Contains(uint32(local)) {
			c.mu.loc[doc] = docLoc{seg: merged.ID, local: uint32(local), gen: c.mu.loc[doc].gen}
		}
	}
	c.mu.Unlock()
	return true, nil
}
