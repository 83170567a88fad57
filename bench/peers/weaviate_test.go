package peers

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/embed"
)

// weaviateBin returns the cached weaviate-server, building it first with
// scripts/install-weaviate.sh when it is not cached (minutes, once).
func weaviateBin(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("../../scripts/install-weaviate.sh")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/install-weaviate.sh: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// TestWeaviateGRPCMatchesREST starts a real Weaviate node, loads the same
// 300 SciFact abstracts (static vectors) once over gRPC and once over REST,
// and checks that every kind of query answers the same ids over gRPC as
// over GraphQL, on both collections: the gRPC client asks what the REST
// client asks.
func TestWeaviateGRPCMatchesREST(t *testing.T) {
	bin := weaviateBin(t)
	models, _ := embed.CachePaths(embed.DefaultCacheDir())
	st, err := LoadStatic(filepath.Join(models, "bge-small-en-v1.5"))
	if err != nil {
		t.Fatal(err)
	}
	_, docs, queries, err := SciFactStatic("../../../shared/data/beir/scifact", st)
	if err != nil {
		t.Fatal(err)
	}
	docs, queries = docs[:300], queries[:20]
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := StartWeaviate(ctx, WeaviateOptions{Bin: bin, Dir: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := s.(*weaviate)
	rest := &weaviate{opt: WeaviateOptions{REST: true}, url: w.url, proc: w.proc, ids: w.ids}
	for _, tc := range []struct {
		index string
		load  *weaviate
	}{{"grpcload", w}, {"restload", rest}} {
		if err := tc.load.Create(ctx, tc.index); err != nil {
			t.Fatal(err)
		}
		if err := tc.load.Ingest(ctx, tc.index, docs); err != nil {
			t.Fatalf("%s: %v", tc.index, err)
		}
	}
	byID := map[string]Doc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	for _, index := range []string{"grpcload", "restload"} {
		for _, kind := range Kinds {
			nonEmpty := 0
			for _, q := range queries {
				g, err := w.Search(ctx, index, kind, q, K)
				if err != nil {
					t.Fatalf("%s %s grpc: %v", index, kind, err)
				}
				r, err := rest.Search(ctx, index, kind, q, K)
				if err != nil {
					t.Fatalf("%s %s rest: %v", index, kind, err)
				}
				if !slices.Equal(g.IDs, r.IDs) {
					t.Fatalf("%s %s query %s: grpc %v, rest %v", index, kind, q.ID, g.IDs, r.IDs)
				}
				if len(g.IDs) > 0 {
					nonEmpty++
				}
				if m := filterMax(kind); m > 0 {
					for _, id := range g.IDs {
						if byID[id].Bucket >= m {
							t.Fatalf("%s %s: %s has bucket %d", index, kind, id, byID[id].Bucket)
						}
					}
				}
			}
			if kind != Filter1 && nonEmpty < len(queries)/2 {
				t.Fatalf("%s %s: only %d of %d queries found anything", index, kind, nonEmpty, len(queries))
			}
		}
	}
	// Both import paths stored the vectors given: a document's own vector
	// finds it first in both collections.
	for _, d := range docs[:10] {
		q := Query{ID: d.ID, Text: d.Title, Vector: d.Vector}
		for _, index := range []string{"grpcload", "restload"} {
			res, err := w.Search(ctx, index, Vector, q, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.IDs) != 1 || res.IDs[0] != d.ID {
				t.Fatalf("%s: nearest to %s's own vector is %v", index, d.ID, res.IDs)
			}
		}
	}
}
