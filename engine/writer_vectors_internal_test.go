package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/najdi/najdi/ingest"
)

// unitEmbedder embeds every text as the same unit vector of 8 dimensions.
type unitEmbedder struct{}

func (unitEmbedder) Name() string { return "unit-8" }
func (unitEmbedder) Dims() int    { return 8 }
func (u unitEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	return u.embed(texts), nil
}
func (u unitEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	return u.embed(texts), nil
}
func (unitEmbedder) embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0, 0, 0, 0, 0, 0}
	}
	return out
}

type unitProvider struct{}

func (unitProvider) Embedder(EmbeddingConfig) (Embedder, error) { return unitEmbedder{}, nil }

// TestRefusedFlushRemovesVectorsFile: a flush whose commit is refused
// (its collection was deleted between two of an ingest's flushes) removes
// the vectors file it wrote before the commit, instead of leaving it until
// the next open; the committed flushes of a live collection keep theirs,
// and small flushes (inline vectors, the default) write none.
func TestRefusedFlushRemovesVectorsFile(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run("inline="+strconv.FormatBool(inline), func(t *testing.T) {
			dir := t.TempDir()
			e, err := Open(Options{Dir: dir, Embedders: unitProvider{}, FlushDocs: 2, MaxSegments: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if !inline {
				e.Store().SetInlineVectorsBytes(-1)
			}
			ctx := context.Background()
			cfg := CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "unit"}}
			docs := func(prefix string, n int) []DocumentInput {
				var out []DocumentInput
				for i := range n {
					out = append(out, DocumentInput{DocumentID: prefix + strconv.Itoa(i), Sections: []ingest.Section{{Type: "p", Content: "some words " + strconv.Itoa(i)}}})
				}
				return out
			}
			for _, coll := range []string{"keep", "gone"} {
				if _, _, err := e.PutCollection(ctx, "", coll, cfg); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.Ingest(ctx, "", "keep", IngestRequest{Documents: docs("k", 4)}); err != nil {
				t.Fatal(err)
			}
			deleted := false
			_, err = e.Ingest(ctx, "", "gone", IngestRequest{Documents: docs("g", 6), Progress: func(int) {
				if !deleted {
					deleted = true
					if err := e.DeleteCollection(ctx, "", "gone"); err != nil {
						t.Error(err)
					}
				}
			}})
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("ingest into a collection deleted after its first flush: %v, want not found", err)
			}
			ents, err := os.ReadDir(filepath.Join(dir, "vectors"))
			if err != nil {
				t.Fatal(err)
			}
			want := 2 // the two flushes of "keep"
			if inline {
				want = 0
			}
			if len(ents) != want {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Fatalf("vectors files %v, want %d (those of collection keep)", names, want)
			}
		})
	}
}
