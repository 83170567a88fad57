package engine_test

import (
	"context"
	"fmt"
	"os"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// Example shows the engine used as a library, without HTTP: open a data
// directory, create a keyword-only collection, ingest an HTML page and
// records, and search with a filter.
func Example() {
	dir, _ := os.MkdirTemp("", "najdi-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	eng, err := engine.Open(engine.Options{Dir: dir}) // no Embedders: keyword-only collections
	if err != nil {
		panic(err)
	}
	defer eng.Close()

	cfg := engine.CollectionConfig{
		EmbeddingConfig: engine.EmbeddingConfig{Model: "none"},
		Fields:          map[string]engine.FieldSpec{"kind": {Type: engine.FieldEnum}},
	}
	if _, _, err := eng.PutCollection(ctx, "", "notes", cfg); err != nil {
		panic(err)
	}
	page := []byte(`<html><head><title>Pebble notes</title></head><body><h1>Compaction</h1><p>Pebble compacts sstables in the background.</p></body></html>`)
	if _, err := eng.Ingest(ctx, "", "notes", engine.IngestRequest{FileName: "pebble.html", Data: page}); err != nil {
		panic(err)
	}
	records := []byte("id,kind,text\nr1,tip,Compaction keeps reads fast\nr2,warning,Never delete the WAL\n")
	res, err := eng.Ingest(ctx, "", "notes", engine.IngestRequest{Format: string(ingest.FormatCSV), Data: records})
	if err != nil {
		panic(err)
	}
	fmt.Println("records ingested:", len(res.Documents))

	max := 5
	out, err := eng.Search(ctx, "", []string{"notes"}, engine.SearchRequest{Query: "compaction", MaxResults: &max})
	if err != nil {
		panic(err)
	}
	for _, d := range out.Documents {
		fmt.Println(d.DocumentID, d.Source)
	}
	filtered, err := eng.Search(ctx, "", []string{"notes"}, engine.SearchRequest{
		Query:  "compaction",
		Filter: []byte(`{"bool": {"must": [{"term": {"kind": "tip"}}]}}`),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("filtered:", filtered.Documents[0].DocumentID)
	// Output:
	// records ingested: 2
	// pebble.html key
	// r1 key
	// filtered: r1
}
