package peers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search/query"
)

// bleveSys is bleve v2 in the benchmark's own process (no HTTP), on disk
// (scorch), keyword only: its vector search needs the faiss cgo build.
type bleveSys struct {
	dir string
	mu  sync.Mutex
	idx map[string]bleve.Index
}

// StartBleve opens bleve indexes under dir.
func StartBleve(dir string) (System, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &bleveSys{dir: dir, idx: map[string]bleve.Index{}}, nil
}

func (b *bleveSys) Name() string { return "bleve" }

func (b *bleveSys) Settings() string {
	return "bleve v2.4.4 in the benchmark's process (no HTTP round trip), scorch on disk, `en` analyzer, " +
		"a disjunction of match queries on title and body, default scoring; keyword only (vector search needs the faiss cgo build)"
}

func (b *bleveSys) Supports(k Kind) bool { return k == Keyword }

func (b *bleveSys) Create(ctx context.Context, index string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if old := b.idx[index]; old != nil {
		old.Close()
	}
	path := filepath.Join(b.dir, index)
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = en.AnalyzerName
	idx, err := bleve.New(path, m)
	if err != nil {
		return fmt.Errorf("bleve create %s: %w", index, err)
	}
	b.idx[index] = idx
	return nil
}

func (b *bleveSys) index(index string) (bleve.Index, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	idx := b.idx[index]
	if idx == nil {
		return nil, fmt.Errorf("bleve: no index %s", index)
	}
	return idx, nil
}

func (b *bleveSys) Ingest(ctx context.Context, index string, docs []Doc) error {
	idx, err := b.index(index)
	if err != nil {
		return err
	}
	batch := idx.NewBatch()
	for _, d := range docs {
		if err := batch.Index(d.ID, map[string]any{"title": d.Title, "text": d.Text}); err != nil {
			return fmt.Errorf("bleve index %s: %w", d.ID, err)
		}
		if batch.Size() >= 1000 {
			if err := idx.Batch(batch); err != nil {
				return fmt.Errorf("bleve batch: %w", err)
			}
			batch.Reset()
		}
	}
	if err := idx.Batch(batch); err != nil {
		return fmt.Errorf("bleve batch: %w", err)
	}
	return nil
}

func (b *bleveSys) Search(ctx context.Context, index string, kind Kind, q Query, k int) (Result, error) {
	if kind != Keyword {
		return Result{}, ErrUnsupported
	}
	idx, err := b.index(index)
	if err != nil {
		return Result{}, err
	}
	title := bleve.NewMatchQuery(q.Text)
	title.SetField("title")
	body := bleve.NewMatchQuery(q.Text)
	body.SetField("text")
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery([]query.Query{title, body}...), k, 0, false)
	res, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return Result{}, fmt.Errorf("bleve search: %w", err)
	}
	out := Result{IDs: make([]string, len(res.Hits)), Took: res.Took}
	for i, h := range res.Hits {
		out.IDs[i] = h.ID
	}
	return out, nil
}

func (b *bleveSys) Footprint(ctx context.Context, index string) (int64, int64, error) {
	disk, err := dirSize(filepath.Join(b.dir, index))
	return 0, disk, err
}

func (b *bleveSys) Drop(ctx context.Context, index string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if idx := b.idx[index]; idx != nil {
		idx.Close()
		delete(b.idx, index)
	}
	return os.RemoveAll(filepath.Join(b.dir, index))
}

func (b *bleveSys) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, idx := range b.idx {
		idx.Close()
	}
	b.idx = nil
	return os.RemoveAll(b.dir)
}
