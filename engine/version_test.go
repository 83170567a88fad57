package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// TestReplaceDuringSearch: a search matches one copy of a document; when
// the document is replaced (or deleted and added again) before the search
// loads its body, the response must not show the new body under the old
// match. It is dropped. A merge that only moves the copy keeps it. The
// hooks make each interleaving deterministic, including the window in
// which the replacing batch is committed (the new body readable) but its
// segments not yet installed.
func TestReplaceDuringSearch(t *testing.T) {
	ctx := context.Background()
	ingest := func(t *testing.T, e *Engine, csv string) {
		t.Helper()
		if _, err := e.Ingest(ctx, "", "c", IngestRequest{Format: "csv", Data: []byte(csv)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		// during runs between the search's match and its body load
		// (testHookBeforeLoad); nil: the replace runs concurrently and the
		// search loads while its batch is committed but not installed.
		during   func(t *testing.T, e *Engine)
		wantKept bool
	}{
		{name: "replaced", during: func(t *testing.T, e *Engine) {
			ingest(t, e, "id,text\nd1,a new body about nothing\n")
		}},
		{name: "deleted and added again", during: func(t *testing.T, e *Engine) {
			if err := e.DeleteDocument(ctx, "", "c", "d1"); err != nil {
				t.Fatal(err)
			}
			ingest(t, e, "id,text\nd1,a new body about nothing\n")
		}},
		{name: "replaced, commit not yet installed"},
		{name: "merged", during: func(t *testing.T, e *Engine) {
			if err := e.MergeNow("", "c"); err != nil {
				t.Fatal(err)
			}
		}, wantKept: true},
		{name: "other document replaced", during: func(t *testing.T, e *Engine) {
			ingest(t, e, "id,text\nd2,a new body about nothing\n")
		}, wantKept: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Open(Options{Dir: t.TempDir(), FlushDocs: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
				t.Fatal(err)
			}
			ingest(t, e, "id,text\nd1,the river flows north\nd2,mountains and a river\nd3,unrelated words\n")
			var once sync.Once
			done := func() {}
			if tc.during != nil {
				testHookBeforeLoad = func() { once.Do(func() { tc.during(t, e) }) }
			} else {
				// The replace commits its batch, then waits until the search
				// has loaded (and returned) before installing its segments.
				committed, release := make(chan struct{}), make(chan struct{})
				var wg sync.WaitGroup
				testHookCommitted = func() {
					close(committed)
					<-release
				}
				testHookBeforeLoad = func() {
					once.Do(func() {
						wg.Add(1)
						go func() {
							defer wg.Done()
							ingest(t, e, "id,text\nd1,a new body about nothing\n")
						}()
						<-committed
					})
				}
				done = func() {
					close(release)
					wg.Wait()
				}
			}
			defer func() { testHookBeforeLoad, testHookCommitted = nil, nil }()
			limit := 10
			res, err := e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "river", MaxResults: &limit, IncludeContent: []string{"full"}})
			if err != nil {
				t.Fatal(err)
			}
			done()
			var got []string
			kept := false
			for _, d := range res.Documents {
				got = append(got, d.DocumentID)
				for _, s := range d.Sections {
					if strings.Contains(s.Content, "new body") {
						t.Errorf("%s is rendered with the body written after the search matched it: %q", d.DocumentID, s.Content)
					}
				}
				if d.Content != nil && strings.Contains(*d.Content, "new body") {
					t.Errorf("%s is rendered with the body written after the search matched it: %q", d.DocumentID, *d.Content)
				}
				kept = kept || d.DocumentID == "d1"
			}
			if kept != tc.wantKept {
				t.Errorf("results %v: d1 kept %v, want %v", got, kept, tc.wantKept)
			}
		})
	}
}
