package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// TestConcurrentWritesAndReads ingests, replaces, deletes, merges and
// searches at once (run it with -race) and checks the final state.
func TestConcurrentWritesAndReads(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), MaxSegments: 3, FlushDocs: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}, Fields: map[string]engine.FieldSpec{"w": {Type: engine.FieldEnum}}}
	if _, _, err := e.PutCollection(ctx, "", "c", cfg); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				id := fmt.Sprintf("d%d", i%25) // writers overlap: replaces
				doc := engine.DocumentInput{DocumentID: id, Sections: []ingest.Section{{Type: "p", Content: fmt.Sprintf("shared words writer%d round%d", w, i)}}, Fields: map[string]any{"w": fmt.Sprint(w)}}
				if _, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{doc}}); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 9 {
					_ = e.DeleteDocument(ctx, "", "c", fmt.Sprintf("d%d", (i+w)%25))
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		max := 100
		for i := 0; i < 60; i++ {
			if _, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: "shared words", MaxResults: &max, Filter: []byte(`{"terms": {"w": ["0", "1", "2"]}}`)}); err != nil {
				t.Error(err)
				return
			}
			if i%20 == 0 {
				if err := e.MergeNow("", "c"); err != nil {
					t.Error(err)
				}
			}
		}
	}()
	wg.Wait()
	if err := e.MergeNow("", "c"); err != nil {
		t.Fatal(err)
	}
	ids, _, err := e.ListDocuments(ctx, "", "c", 1000, "")
	if err != nil {
		t.Fatal(err)
	}
	max := 1000
	res, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: "shared words", MaxResults: &max})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != len(ids) {
		t.Fatalf("search finds %d documents, the collection lists %d", len(res.Documents), len(ids))
	}
	c, _ := e.GetCollection(ctx, "", "c")
	if int(c.DocumentCount) != len(ids) {
		t.Fatalf("document_count %d, listed %d", c.DocumentCount, len(ids))
	}
	for _, id := range ids {
		if _, err := e.GetDocument(ctx, "", "c", id); err != nil {
			t.Fatalf("listed document %s: %v", id, err)
		}
	}
}
