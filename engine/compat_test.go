package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/najdi/najdi/engine"
)

// TestOpenFormatV1 opens a store written by format version 1
// (segment/testdata/v1: an HTML page, CSV records with typed fields, one
// deleted record) and checks that documents, deletes, keyword search and
// filters still work. Old fixtures must keep opening.
func TestOpenFormatV1(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "segment", "testdata", "v1")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	e, err := engine.Open(engine.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c, err := e.GetCollection(ctx, "", "compat")
	if err != nil {
		t.Fatal(err)
	}
	if c.DocumentCount != 3 {
		t.Fatalf("document_count %d, want 3 (page.html, r1, r2)", c.DocumentCount)
	}
	d, err := e.GetDocument(ctx, "", "compat", "page.html")
	if err != nil || d.Sections[0].Type != "title" || d.Sections[0].Content != "Format fixture" {
		t.Fatalf("page.html: %+v %v", d, err)
	}
	if _, err := e.GetDocument(ctx, "", "compat", "r3"); err == nil {
		t.Fatal("the deleted record r3 is back")
	}
	res, err := e.Search(ctx, "", []string{"compat"}, engine.SearchRequest{Query: "compaction", Filter: []byte(`{"bool": {"must": [{"term": {"kind": "tip"}}, {"range": {"price": {"lte": 10}}}]}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 1 || res.Documents[0].DocumentID != "r1" {
		t.Fatalf("search over the v1 store: %+v", res.Documents)
	}
	// A delete rewrites the delete bitmap of an old segment in the current
	// envelope beside its format 1 parts; the mixed segment must reopen.
	if err := e.DeleteDocument(ctx, "", "compat", "r1"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e, err = engine.Open(engine.Options{Dir: dir})
	if err != nil {
		t.Fatalf("reopen after a delete: %v", err)
	}
	defer e.Close()
	if c, err := e.GetCollection(ctx, "", "compat"); err != nil || c.DocumentCount != 2 {
		t.Fatalf("after deleting r1 and reopening: %+v %v", c, err)
	}
}
