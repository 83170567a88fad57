package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/filter"
)

// EngineBackend serves an engine's collections from the cluster: it
// implements engine.Backend over a Client (engine.Options.Backend). An
// engine index name is a collection of this package (one generation alias
// per engine collection and owner).
type EngineBackend struct{ C *Client }

var (
	_ engine.Backend      = EngineBackend{}
	_ engine.BackendSizer = EngineBackend{}
)

// IndexBytes reports the bytes the collection's primary shards take on
// disk (index statistics: store size, all generations behind its alias).
func (b EngineBackend) IndexBytes(ctx context.Context, index string) (int64, error) {
	return b.C.StoreBytes(ctx, []string{index})
}

// Describe names the cluster's flavour and version.
func (b EngineBackend) Describe() string {
	return string(b.C.info.Flavour) + " " + b.C.info.Version
}

// PutRecord stores an engine record in the meta index.
func (b EngineBackend) PutRecord(ctx context.Context, key string, value []byte) error {
	return b.C.PutMeta(ctx, key, json.RawMessage(value))
}

// GetRecord returns an engine record (ErrNotFound when none).
func (b EngineBackend) GetRecord(ctx context.Context, key string) ([]byte, error) {
	return b.C.GetMeta(ctx, key)
}

// DeleteRecord removes an engine record.
func (b EngineBackend) DeleteRecord(ctx context.Context, key string) error {
	return b.C.DeleteMeta(ctx, key)
}

// ListRecords lists the keys of engine records starting with prefix.
func (b EngineBackend) ListRecords(ctx context.Context, prefix string) ([]string, error) {
	return b.C.ListMeta(ctx, prefix)
}

// CreateIndex creates the collection's index unless it exists.
func (b EngineBackend) CreateIndex(ctx context.Context, index string, fields map[string]filter.FieldType, dims int) error {
	err := b.C.CreateCollection(ctx, index, Schema{Fields: fields, Dims: dims})
	if errors.Is(err, ErrConflict) {
		return b.C.AddFields(ctx, index, fields)
	}
	return err
}

// DropIndex deletes the collection's index; a missing one is not an error.
func (b EngineBackend) DropIndex(ctx context.Context, index string) error {
	err := b.C.DropCollection(ctx, index)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// AddFields maps new filter fields.
func (b EngineBackend) AddFields(ctx context.Context, index string, fields map[string]filter.FieldType) error {
	if len(fields) == 0 {
		return nil
	}
	return b.C.AddFields(ctx, index, fields)
}

// Write ingests documents.
func (b EngineBackend) Write(ctx context.Context, index string, docs []engine.BackendDoc) ([]engine.BackendDocError, error) {
	cd := make([]Document, len(docs))
	for i, d := range docs {
		cd[i] = Document{ID: d.ID, Terms: d.Terms, Length: d.Length, Body: d.Body, Fields: d.Fields}
		for _, ch := range d.Chunks {
			cd[i].Chunks = append(cd[i].Chunks, Chunk{Vector: ch.Vector, Section: ch.Section, Start: ch.Start, End: ch.End})
		}
	}
	des, err := b.C.Ingest(ctx, index, cd)
	out := make([]engine.BackendDocError, len(des))
	for i, de := range des {
		out[i] = engine.BackendDocError{ID: de.ID, Err: de.Err}
	}
	return out, err
}

// Exists reports which documents are stored.
func (b EngineBackend) Exists(ctx context.Context, index string, ids []string) (map[string]bool, error) {
	return b.C.Exists(ctx, index, ids)
}

// Delete removes documents.
func (b EngineBackend) Delete(ctx context.Context, index string, ids []string) ([]string, error) {
	return b.C.Delete(ctx, index, ids)
}

// Get returns a stored body.
func (b EngineBackend) Get(ctx context.Context, index, id string) ([]byte, error) {
	return b.C.Get(ctx, index, id)
}

// List pages through document ids.
func (b EngineBackend) List(ctx context.Context, index, after string, n int) ([]string, string, error) {
	return b.C.List(ctx, index, after, n)
}

func clusterFilter(f engine.BackendFilter) Filter {
	return Filter{Query: f.Query, Schema: f.Schema, IDs: f.IDs}
}

// Count counts documents.
func (b EngineBackend) Count(ctx context.Context, indices []string, flt engine.BackendFilter) (int64, error) {
	return b.C.Count(ctx, indices, clusterFilter(flt))
}

// FilterIDs returns the documents a filter allows.
func (b EngineBackend) FilterIDs(ctx context.Context, index string, flt engine.BackendFilter) ([]string, error) {
	return b.C.FilterIDs(ctx, index, clusterFilter(flt))
}

// Keyword is BM25 top-k with statistics.
func (b EngineBackend) Keyword(ctx context.Context, indices []string, terms []engine.BackendTerm, flt engine.BackendFilter, k int) (engine.BackendKeyword, error) {
	qt := make([]QueryTerm, len(terms))
	for i, t := range terms {
		qt[i] = QueryTerm{Term: t.Term, Count: t.Count}
	}
	r, err := b.C.Keyword(ctx, indices, qt, clusterFilter(flt), k)
	if err != nil {
		return engine.BackendKeyword{}, err
	}
	out := engine.BackendKeyword{Docs: r.Stats.Docs, DocFreq: r.Stats.DocFreq, AvgLength: r.Stats.AvgLength}
	for _, h := range r.Hits {
		out.Hits = append(out.Hits, engine.BackendHit{Index: h.Collection, ID: h.ID, Score: h.Score})
	}
	return out, nil
}

// Vector returns the k nearest chunks.
func (b EngineBackend) Vector(ctx context.Context, indices []string, vec []float32, flt engine.BackendFilter, k int) ([]engine.BackendVectorHit, error) {
	hs, err := b.C.NearestChunks(ctx, indices, vec, clusterFilter(flt), k)
	if err != nil {
		return nil, err
	}
	out := make([]engine.BackendVectorHit, len(hs))
	for i, h := range hs {
		out[i] = engine.BackendVectorHit{Index: h.Collection, ID: h.ID, Similarity: h.Similarity,
			Chunk: engine.BackendChunk{Section: h.Section, Start: h.Start, End: h.End}}
	}
	return out, nil
}

// Match returns documents holding every term.
func (b EngineBackend) Match(ctx context.Context, indices []string, terms []string, flt engine.BackendFilter, k int) ([]engine.BackendHit, error) {
	hs, err := b.C.Match(ctx, indices, terms, clusterFilter(flt), k)
	if err != nil {
		return nil, err
	}
	out := make([]engine.BackendHit, len(hs))
	for i, h := range hs {
		out[i] = engine.BackendHit{Index: h.Collection, ID: h.ID}
	}
	return out, nil
}

// Chunks returns documents' stored chunks.
func (b EngineBackend) Chunks(ctx context.Context, index string, ids []string) (map[string][]engine.BackendChunk, error) {
	m, err := b.C.ChunkVectors(ctx, index, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]engine.BackendChunk, len(m))
	for id, chs := range m {
		for _, ch := range chs {
			if len(ch.Vector) == 0 {
				return nil, clusterError(ErrCluster, 0, "chunk vectors", fmt.Sprintf("the cluster returned no vector for a chunk of %q", id), nil)
			}
			out[id] = append(out[id], engine.BackendChunk{Vector: ch.Vector, Section: ch.Section, Start: ch.Start, End: ch.End})
		}
	}
	return out, nil
}
