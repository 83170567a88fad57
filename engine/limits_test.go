package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// keywordEngine opens an engine holding the keyword-only collection "c"
// with the declared fields; the test closes it.
func keywordEngine(t *testing.T, fields map[string]engine.FieldSpec) *engine.Engine {
	t.Helper()
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	cfg := engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}, Fields: fields}
	if _, _, err := e.PutCollection(context.Background(), "", "c", cfg); err != nil {
		t.Fatal(err)
	}
	return e
}

func wantErrors(t *testing.T, res engine.IngestResult, err error, stored int, msgs ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("ingest: %v", err)
	}
	if len(res.Documents) != stored {
		t.Errorf("stored %d documents, want %d: %+v", len(res.Documents), stored, res.Documents)
	}
	if len(res.Errors) != len(msgs) {
		t.Fatalf("errors %+v, want %d naming %q", res.Errors, len(msgs), msgs)
	}
	for i, m := range msgs {
		if !strings.Contains(res.Errors[i].Message, m) || res.Errors[i].Record == nil {
			t.Errorf("error %d: %+v, want a record index and a message with %q", i, res.Errors[i], m)
		}
	}
}

// TestNumberFieldRejectsText: a value of a number field (declared, inferred
// before, or inferred earlier in the same ingest) that is not a number is
// reported with its record and document, and the document is not stored.
func TestNumberFieldRejectsText(t *testing.T) {
	ctx := context.Background()
	e := keywordEngine(t, map[string]engine.FieldSpec{"price": {Type: engine.FieldNumber}})
	res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{
		{DocumentID: "a", Sections: []ingest.Section{{Content: "alpha"}}, Fields: map[string]any{"price": "cheap"}},
		{DocumentID: "b", Sections: []ingest.Section{{Content: "beta"}}, Fields: map[string]any{"price": "12.5", "weight": 3.0, "dial": 93.0}},
		{DocumentID: "c", Sections: []ingest.Section{{Content: "gamma"}}, Fields: map[string]any{"dial": "1-684"}},
		{DocumentID: "d", Sections: []ingest.Section{{Content: "delta"}}, Fields: map[string]any{"price": true}},
	}})
	// dial, inferred a number by b of the same upload, holds text too: it
	// is enum_text, and c is stored.
	wantErrors(t, res, err, 2, `"price" is a number field: "cheap" is not a number`, `"price" is a number field: true`)
	if res.Errors[0].DocumentID != "a" || *res.Errors[0].Record != 0 || *res.Errors[1].Record != 3 {
		t.Errorf("errors locate the wrong documents: %+v", res.Errors)
	}
	if got := rank(t, e, []string{"c"}, "1-684", 5); len(got) != 1 || got[0] != "c" {
		t.Errorf("dial 1-684 is searchable enum_text: %v", got)
	}
	if _, err := e.GetDocument(ctx, "", "c", "a"); err == nil {
		t.Error("document a with price \"cheap\" was stored")
	}
	// weight was stored as a number field by b: a later CSV is checked.
	res, err = e.Ingest(ctx, "", "c", engine.IngestRequest{Format: "csv", IDField: "id", Data: []byte("id,weight,price\nk1,7,1\nk2,light,2\nk3,,n/a\n")})
	wantErrors(t, res, err, 1, `"weight" is a number field: "light"`, `"price" is a number field: "n/a"`)
	// The property giving a record its id is exempt: numeric ids in one
	// file, others in the next.
	res, err = e.Ingest(ctx, "", "c", engine.IngestRequest{Format: "csv", Data: []byte("id,note\n1,x\n2,y\n")})
	wantErrors(t, res, err, 2)
	res, err = e.Ingest(ctx, "", "c", engine.IngestRequest{Format: "jsonl", Data: []byte(`{"id": "a-1", "note": "z"}` + "\n")})
	wantErrors(t, res, err, 1)
}

// TestInvalidUTF8FieldName: a field or section name that is not UTF-8 is
// reported; a configuration declaring one is a 400.
func TestInvalidUTF8FieldName(t *testing.T) {
	ctx := context.Background()
	e := keywordEngine(t, nil)
	res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{
		{DocumentID: "a", Sections: []ingest.Section{{Content: "alpha"}}, Fields: map[string]any{"br\xffand": "x"}},
		{DocumentID: "b", Sections: []ingest.Section{{Type: "t\xfe", Content: "beta"}}},
	}})
	wantErrors(t, res, err, 0, "not valid UTF-8", "not valid UTF-8")
	cfg := engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}, Fields: map[string]engine.FieldSpec{"b\xffad": {Type: engine.FieldEnum}}}
	if _, _, err := e.PutCollection(ctx, "", "d", cfg); !isKind(err, engine.ErrInvalid) {
		t.Errorf("config with an invalid UTF-8 field name: %v, want ErrInvalid", err)
	}
}

func isKind(err error, k error) bool { return errors.Is(err, k) }

// TestDocumentSizeLimit: a single document over MaxDocumentBytes is a 413
// (ErrTooLarge); in an envelope it is reported and the others are stored.
func TestDocumentSizeLimit(t *testing.T) {
	ctx := context.Background()
	e := keywordEngine(t, nil)
	big := strings.Repeat("word ", engine.MaxDocumentBytes/5+1)
	_, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Format: "txt", DocumentID: "big", Data: []byte(big)})
	if !isKind(err, engine.ErrTooLarge) {
		t.Errorf("a %d-byte text document: %v, want ErrTooLarge", len(big), err)
	}
	res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{
		{DocumentID: "big", Sections: []ingest.Section{{Content: big}}},
		{DocumentID: "small", Sections: []ingest.Section{{Content: "small"}}},
	}})
	wantErrors(t, res, err, 1, "limit per document")
}

// TestColumnAndFieldLimits: a record with more than MaxColumnsPerRecord
// columns, and a document adding a field beyond MaxFieldsPerCollection,
// are reported and not stored.
func TestColumnAndFieldLimits(t *testing.T) {
	ctx := context.Background()
	e := keywordEngine(t, nil)
	var hdr, row []string
	for i := 0; i <= engine.MaxColumnsPerRecord; i++ {
		hdr, row = append(hdr, fmt.Sprintf("c%d", i)), append(row, "v")
	}
	csv := "id," + strings.Join(hdr, ",") + "\nr1," + strings.Join(row, ",") + "\n"
	res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Format: "csv", IDField: "id", Data: []byte(csv)})
	wantErrors(t, res, err, 0, "columns, more than the limit")

	fields := func(prefix string, n int) map[string]any {
		m := map[string]any{}
		for i := 0; i < n; i++ {
			m[fmt.Sprintf("%s%03d", prefix, i)] = "v"
		}
		return m
	}
	half := engine.MaxFieldsPerCollection / 2
	res, err = e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{
		{DocumentID: "a", Fields: fields("a", half)},
		{DocumentID: "b", Fields: fields("b", half)},
		{DocumentID: "c", Fields: fields("c", 1)},
		{DocumentID: "d", Fields: fields("a", 3)},
	}})
	wantErrors(t, res, err, 3, "fields per collection")
	if res.Errors[0].DocumentID != "c" {
		t.Errorf("the document adding field %d: %+v", engine.MaxFieldsPerCollection+1, res.Errors)
	}
	// and so in a later ingest, after the fields were stored
	res, err = e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{{DocumentID: "e", Fields: fields("e", 1)}}})
	wantErrors(t, res, err, 0, "fields per collection")
}

// TestSearchLimitsCheckedInPlan: a bad summary tokenizer and an over-long
// query are 400s found while planning, before retrieval (an unknown
// collection filter would otherwise be found later, too).
func TestSearchLimitsCheckedInPlan(t *testing.T) {
	ctx := context.Background()
	e := keywordEngine(t, nil)
	k := 5
	// A bad tokenizer is found by plan: also when no summary is asked for
	// (before, only the summarizer, after retrieval, looked at it).
	for _, inc := range []string{"summary", "full"} {
		_, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: "nothing", MaxResults: &k,
			IncludeContent: []string{inc}, SummaryConfig: &engine.RequestSummaryConfig{Tokenizer: "bogus"}})
		if !isKind(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "summary_config.tokenizer") {
			t.Errorf("include_content %s, tokenizer bogus: %v, want a 400 naming summary_config.tokenizer", inc, err)
		}
	}
	_, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: strings.Repeat("é", engine.MaxQueryChars+1)})
	if !isKind(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "query") {
		t.Errorf("query of %d characters: %v, want a 400", engine.MaxQueryChars+1, err)
	}
	if _, err = e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: strings.Repeat("é", engine.MaxQueryChars)}); err != nil {
		t.Errorf("query of %d characters: %v", engine.MaxQueryChars, err)
	}
}

// TestReturnedContentTruncated: a document's content in search results is
// cut at MaxReturnedContentBytes with "truncated": true, flat and in
// sections; GET returns it whole.
func TestReturnedContentTruncated(t *testing.T) {
	ctx := context.Background()
	e := keywordEngine(t, nil)
	big := "needle " + strings.Repeat("čá", engine.MaxReturnedContentBytes/3+7)
	res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{
		{DocumentID: "big", Sections: []ingest.Section{{Content: big}, {Content: "tail"}}},
		{DocumentID: "small", Sections: []ingest.Section{{Content: "needle small"}}},
	}})
	wantErrors(t, res, err, 2)
	for _, format := range []string{"flat", "sections"} {
		r, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: "needle", ResultFormat: format})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range r.Documents {
			n := 0
			if d.Content != nil {
				n = len(*d.Content)
			}
			for _, s := range d.Sections {
				n += len(s.Content)
			}
			want := d.DocumentID == "big"
			if d.Truncated != want || n > engine.MaxReturnedContentBytes || (d.DocumentID == "small" && n == 0) {
				t.Errorf("%s %s: truncated %v with %d bytes", format, d.DocumentID, d.Truncated, n)
			}
			if d.Content != nil && !utf8.ValidString(*d.Content) {
				t.Errorf("%s %s: cut inside a character", format, d.DocumentID)
			}
		}
	}
	d, err := e.GetDocument(ctx, "", "c", "big")
	if err != nil || d.Sections[0].Content != big {
		t.Errorf("GET returns the document whole: %v", err)
	}
}

// TestInferenceFromStoredValuesOnly: an undeclared field is typed by the
// first value the upload stores. A value only in an occurrence that a later
// one of the same id replaced in the same upload is not stored, so a
// filter on the field stays a 400 even when a stored document names it
// with null (seed 1795507200406512309 of TestModelHTTP: 200 before).
func TestInferenceFromStoredValuesOnly(t *testing.T) {
	ctx := context.Background()
	e := keywordEngine(t, map[string]engine.FieldSpec{"color": {Type: engine.FieldEnum}})
	res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{
		{DocumentID: "a", Sections: []ingest.Section{{Content: "alpha"}}, Fields: map[string]any{"extra": nil}},
		{DocumentID: "b", Sections: []ingest.Section{{Content: "beta"}}, Fields: map[string]any{"extra": "one"}},
		{DocumentID: "b", Sections: []ingest.Section{{Content: "beta again"}}, Fields: map[string]any{"color": "red"}},
	}})
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("ingest: %v %+v", err, res.Errors)
	}
	_, err = e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: "alpha", Filter: []byte(`{"term": {"extra": "one"}}`)})
	if !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), `unknown field "extra"`) {
		t.Fatalf("filter on a field no stored document has a value for: err %v, want ErrInvalid naming it", err)
	}
	// A stored value types it.
	if _, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: []engine.DocumentInput{
		{DocumentID: "c", Sections: []ingest.Section{{Content: "gamma"}}, Fields: map[string]any{"extra": "two"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: "gamma", Filter: []byte(`{"term": {"extra": "two"}}`)}); err != nil {
		t.Fatalf("filter after a stored value: %v", err)
	}
}
