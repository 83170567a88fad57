package ingest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZPDFLines(t *testing.T) {
	name, needle := os.Getenv("PDFDBG"), os.Getenv("NEEDLE")
	if name == "" {
		return
	}
	r, err := pdfOpen(docReadShared(t, name))
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := pdfPages(r)
	in := &pdfInterp{fontCache: map[string]int32{}}
	for pi, p := range pages {
		pl, _ := pdfPageText(in, p)
		for i, l := range pl.lines {
			if needle == "" || strings.Contains(l.text, needle) {
				for k := max(0, i-2); k < min(len(pl.lines), i+3); k++ {
					l := pl.lines[k]
					fmt.Printf("p%d x=%.1f-%.1f y=%.1f size=%.1f bold=%v nb=%v small=%v col=%.0f-%.0f %q\n", pi, l.x0, l.x1, l.y, l.size, l.bold, l.newBlock, l.small, l.colLeft, l.colRight, l.text)
				}
				fmt.Println()
			}
		}
	}
	for i, f := range in.fonts {
		fmt.Println(i, f.name, f.bold, f.unusable)
	}
}
