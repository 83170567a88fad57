package testutil

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// SciFactDoc is one document of the BEIR SciFact corpus.
type SciFactDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// SciFactDocs returns the first n documents of the SciFact corpus in
// shared/data (all of them when n <= 0), in file order. It fails the test
// when the corpus cannot be read or holds fewer than n documents.
func SciFactDocs(tb testing.TB, n int) []SciFactDoc {
	tb.Helper()
	f, err := os.Open(filepath.Join(SharedData(tb), "beir", "scifact", "corpus.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []SciFactDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() && (n <= 0 || len(out) < n) {
		var d SciFactDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatalf("SciFact corpus: %v", err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("SciFact corpus: %v", err)
	}
	if len(out) < n {
		tb.Fatalf("only %d SciFact documents, want %d", len(out), n)
	}
	return out
}
