package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/najdi/najdi/engine"
)

// TestRetrieversUnavailable: asking for a retriever that a searched
// collection does not have (semantic on a keyword-only collection, keyword
// on one with fulltext off) is ErrInvalid naming retrievers and the
// collection, with or without a query; before, semantic on a keyword-only
// collection ran keyword retrieval and keyword on a fulltext-off collection
// ran BM25 the collection's configuration turns off. A retriever every
// searched collection has is searched as before.
func TestRetrieversUnavailable(t *testing.T) {
	ctx, e := retrieverCollections(t, []string{"helium balloons float"})
	for _, tc := range []struct {
		colls      []string
		retrievers string
		query      string
		bad        string // the collection named by the error; "" for none
	}{
		{[]string{"kw"}, engine.RetrieveSemantic, "helium", "kw"},
		{[]string{"kw"}, engine.RetrieveSemantic, "", "kw"},
		{[]string{"vec"}, engine.RetrieveKeyword, "helium", "vec"},
		{[]string{"vec"}, engine.RetrieveKeyword, "", "vec"},
		{[]string{"hyb", "vec"}, engine.RetrieveKeyword, "helium", "vec"},
		{[]string{"kw"}, engine.RetrieveKeyword, "helium", ""},
		{[]string{"vec"}, engine.RetrieveSemantic, "helium", ""},
		{[]string{"hyb", "vec"}, engine.RetrieveSemantic, "helium", ""},
		{[]string{"hyb"}, engine.RetrieveKeyword, "helium", ""},
		{[]string{"hyb"}, engine.RetrieveSemantic, "helium", ""},
	} {
		res, err := e.Search(ctx, "", tc.colls, engine.SearchRequest{Query: tc.query, Retrievers: tc.retrievers})
		if tc.bad == "" {
			if err != nil || len(res.Documents) != len(tc.colls) {
				t.Errorf("%s on %v %q: %v, %d documents, want one of each collection", tc.retrievers, tc.colls, tc.query, err, len(res.Documents))
			}
			continue
		}
		var ee *engine.Error
		if !errors.Is(err, engine.ErrInvalid) || !errors.As(err, &ee) || ee.Details["field"] != "retrievers" || !strings.HasPrefix(err.Error(), "retrievers: ") || !strings.Contains(err.Error(), `"`+tc.bad+`"`) {
			t.Errorf("%s on %v %q: %v, want ErrInvalid on retrievers naming %q", tc.retrievers, tc.colls, tc.query, err, tc.bad)
		}
	}
}
