//go:build ignore

// Command make-bombs writes the decompression-bomb corpus of issue 18 —
// XLSX, ODS and DOCX files that inflate to gigabytes, nested archives,
// archives of many entries or lying headers, ODS repeat attributes, XLSX
// shared-string fan-out and dimensions, deeply nested XML — into a
// directory, with an index of what each does and what a reader must answer:
//
//	go run ./scripts/make-bombs.go -out /tmp/bombs
//
// The files are built by package internal/bombs, which the tests of
// packages ingest (TestBombs) and server (TestBombsE2E) call directly, so
// that nothing large is committed. Output is deterministic; only the
// standard library is used.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/najdi/najdi/internal/bombs"
)

func main() {
	out := flag.String("out", "bombs", "directory to write the bombs to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "make-bombs:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var index strings.Builder
	fmt.Fprintf(&index, "%-32s %10s %14s  %-9s  %s\n", "file", "bytes", "inflates to", "outcome", "what")
	for _, b := range bombs.Corpus() {
		if err := os.WriteFile(filepath.Join(out, b.Name), b.Data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&index, "%-32s %10d %14d  %-9s  %s\n", b.Name, len(b.Data), b.Inflated, b.Want, b.What)
	}
	if err := os.WriteFile(filepath.Join(out, "INDEX.txt"), []byte(index.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(index.String())
	return nil
}
