package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCollectionSizeBytes checks that a collection reports its size on
// disk: 0 when empty, more after an ingest, more again after a second one,
// and the size of only its own data (an empty neighbour stays 0).
func TestCollectionSizeBytes(t *testing.T) {
	e, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}
	for _, c := range []string{"full", "empty"} {
		if _, _, err := e.PutCollection(context.Background(), "", c, cfg); err != nil {
			t.Fatal(err)
		}
	}
	size := func(id string) int64 {
		c, err := e.GetCollection(context.Background(), "", id)
		if err != nil {
			t.Fatal(err)
		}
		return c.SizeBytes
	}
	if n := size("full"); n != 0 {
		t.Fatalf("empty collection: size_bytes %d, want 0", n)
	}
	prev := int64(0)
	for round := 0; round < 2; round++ {
		var csv strings.Builder
		csv.WriteString("id,text\n")
		for i := 0; i < 500; i++ {
			fmt.Fprintf(&csv, "r%d-%d,document %d of round %d about rivers and mountains\n", round, i, i, round)
		}
		if _, err := e.Ingest(context.Background(), "", "full", IngestRequest{Format: "csv", Data: []byte(csv.String())}); err != nil {
			t.Fatal(err)
		}
		n := size("full")
		if n <= prev {
			t.Fatalf("after ingest %d: size_bytes %d, want more than %d", round+1, n, prev)
		}
		prev = n
	}
	if n := size("empty"); n != 0 {
		t.Fatalf("untouched neighbour: size_bytes %d, want 0", n)
	}
}
