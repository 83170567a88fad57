package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/najdi/najdi/engine"
)

// TestJobOfDeletedCollection checks that a job is gone with its collection,
// also when a collection of the same id is created again (schemathesis
// found the job still answering 200 after the DELETE).
func TestJobOfDeletedCollection(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}
	if _, _, err := e.PutCollection(ctx, "", "c", cfg); err != nil {
		t.Fatal(err)
	}
	id, err := e.StartIngest("", "c", engine.IngestRequest{Format: "jsonl", Data: []byte(`{"id":"a","t":"x"}` + "\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Job("", "c", id); err != nil {
		t.Fatalf("job of a live collection: %v", err)
	}
	if err := e.DeleteCollection(ctx, "", "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Job("", "c", id); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("job of a deleted collection: %v, want not found", err)
	}
	if _, _, err := e.PutCollection(ctx, "", "c", cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Job("", "c", id); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("job of the deleted collection, in a new one of the same id: %v, want not found", err)
	}
}
