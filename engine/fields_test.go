package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// TestFieldsSearchAndTypes checks the field-type table of docs/API.md on
// envelope documents and CSV records: text and enum_text fields are
// searched by keyword (enum and number are not), and a number field stores
// numbers, also from multi-valued CSV cells.
func TestFieldsSearchAndTypes(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}, Fields: map[string]engine.FieldSpec{
		"Brand": {Type: engine.FieldEnumText}, "Notes": {Type: engine.FieldText}, "Code": {Type: engine.FieldEnum},
		"Sizes": {Type: engine.FieldNumber, Multi: true}, "Price": {Type: engine.FieldNumber},
	}}
	if _, _, err := e.PutCollection(ctx, "", "c", cfg); err != nil {
		t.Fatal(err)
	}
	res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{{
		DocumentID: "e1", Sections: []ingest.Section{{Content: "alpha"}},
		Fields: map[string]any{"Brand": "acme", "Notes": "zulu yankee", "Code": "kilo", "Guess": "quebec"},
	}}})
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, res.Errors)
	}
	res, err = e.Ingest(ctx, "", "c", engine.IngestRequest{Format: "csv", IDField: "id", Data: []byte("id,Sizes,Price\nk1,5|10,004\n")})
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("ingest csv: %v %v", err, res.Errors)
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"acme", []string{"e1"}},   // enum_text
		{"zulu", []string{"e1"}},   // text
		{"quebec", []string{"e1"}}, // undeclared string: inferred enum_text
		{"kilo", nil},              // enum: filter only
		{"alpha", []string{"e1"}},
	} {
		got := rank(t, e, []string{"c"}, tt.query, 10)
		if !slices.Equal(got, tt.want) {
			t.Errorf("query %q: %v, want %v", tt.query, got, tt.want)
		}
	}
	d, err := e.GetDocument(ctx, "", "c", "k1")
	if err != nil {
		t.Fatal(err)
	}
	f := engine.FieldsMap(d.Fields, nil)
	if sizes, ok := f["Sizes"].([]any); !ok || len(sizes) != 2 || sizes[0] != 5.0 || sizes[1] != 10.0 {
		t.Errorf("Sizes = %#v, want [5 10] as numbers", f["Sizes"])
	}
	if f["Price"] != 4.0 {
		t.Errorf("Price = %#v, want 4", f["Price"])
	}
	// The passages of a document found by a field point into its sections.
	hl := true
	r, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: "zulu alpha", Highlight: &hl})
	if err != nil || len(r.Documents) != 1 {
		t.Fatalf("search: %v %+v", err, r.Documents)
	}
	for _, p := range r.Documents[0].Passages {
		if p.SectionIndex != 0 || p.Text != "alpha" {
			t.Errorf("passage %+v outside the sections", p)
		}
	}
}
