package engine

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/najdi/najdi/ingest"
)

// TestIncludeFieldsWithoutBodies checks that a search whose include_fields
// names no section type or field of the stored documents reads no body
// (the peer benchmark's include_fields ["none"]) and answers exactly what
// reading them answered, that one naming a stored name still reads them,
// that a name stored later (a section type, then a field) is shown by the
// next search, that the names survive a reopen, and that a collection
// without known names (as created before they were kept) reads bodies.
func TestIncludeFieldsWithoutBodies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *Engine {
		e, err := Open(Options{Dir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	put := func(e *Engine, docs ...DocumentInput) {
		t.Helper()
		if res, err := e.Ingest(ctx, "", "c", IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
			t.Fatalf("ingest: %v %v", err, res.Errors)
		}
	}
	put(e,
		DocumentInput{DocumentID: "a", Sections: []ingest.Section{{Type: "title", Content: "Apples"}, {Type: "p", Content: "red apples and green apples"}}, Fields: map[string]any{"brand": "acme"}},
		DocumentInput{DocumentID: "b", Sections: []ingest.Section{{Type: "p", Content: "apples in the orchard"}}})
	var loads atomic.Int64
	testHookBeforeLoad = func() { loads.Add(1) }
	defer func() { testHookBeforeLoad = nil }()
	// search returns the response as JSON (took and timings left out) and
	// the bodies it read.
	search := func(e *Engine, fields []string, format string, highlight bool) (string, int64) {
		t.Helper()
		loads.Store(0)
		res, err := e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "apples", IncludeFields: fields, ResultFormat: format, Highlight: &highlight})
		if err != nil {
			t.Fatal(err)
		}
		res.SearchID, res.Metadata.TookMS, res.Metadata.Timings = "", 0, nil
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw), loads.Load()
	}
	type shape struct {
		format    string
		highlight bool
	}
	shapes := []shape{{"flat", false}, {"flat", true}, {"sections", false}, {"sections", true}}
	// want: each shape's answer with the bodies read (include_fields
	// naming a stored name, or no names known).
	want := map[shape]string{}
	check := func(e *Engine, fields []string, wantLoads, compare bool) {
		t.Helper()
		for _, sh := range shapes {
			got, n := search(e, fields, sh.format, sh.highlight)
			if wantLoads != (n > 0) {
				t.Errorf("include_fields %q %+v: %d bodies read, want reads %v", fields, sh, n, wantLoads)
			}
			if w := want[sh]; compare && got != w {
				t.Errorf("include_fields %q %+v:\ngot  %s\nwant %s", fields, sh, got, w)
			}
		}
	}
	c, err := e.collection("", "c")
	if err != nil {
		t.Fatal(err)
	}
	if rec := c.record(); !rec.NamesKnown || !slices.Equal(rec.Names, []string{"brand", "p", "title"}) {
		t.Fatalf("stored names %v (known %v)", rec.Names, rec.NamesKnown)
	}
	// The expected answers, from the collection with its names unknown.
	setNames := func(known bool, names []string) {
		c.mu.Lock()
		c.mu.rec.NamesKnown, c.mu.rec.Names = known, names
		c.mu.Unlock()
	}
	forget := func() { setNames(false, nil) }
	remember := func() { setNames(true, []string{"brand", "p", "title"}) }
	forget()
	for _, sh := range shapes {
		want[sh], _ = search(e, []string{"none"}, sh.format, sh.highlight)
	}
	check(e, []string{"none"}, true, true)
	remember()
	check(e, []string{"none"}, false, true)
	check(e, []string{"none", "other"}, false, true)
	check(e, []string{"brand"}, true, false) // a field: bodies read
	check(e, []string{"title"}, true, false)

	// A document with a section of type "none": now shown.
	put(e, DocumentInput{DocumentID: "c", Sections: []ingest.Section{{Type: "none", Content: "apples none"}}})
	got, n := search(e, []string{"none"}, "flat", false)
	if n == 0 || got == want[shape{"flat", false}] {
		t.Errorf("after a section of type none was stored: %d bodies read, %s", n, got)
	}
	// A field named "other", after a reopen (the names are stored).
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open()
	defer e.Close()
	if _, n := search(e, []string{"other"}, "flat", false); n != 0 {
		t.Errorf("after a reopen: %d bodies read for an unknown name", n)
	}
	put(e, DocumentInput{DocumentID: "d", Sections: []ingest.Section{{Type: "p", Content: "apples again"}}, Fields: map[string]any{"other": "x"}})
	got, n = search(e, []string{"other"}, "flat", false)
	if n == 0 || !json.Valid([]byte(got)) || !strings.Contains(got, `"fields":{"other":"x"}`) {
		t.Errorf("after a field named other was stored: %d bodies read, %s", n, got)
	}
}
