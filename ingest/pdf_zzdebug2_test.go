package ingest

import (
	"fmt"
	"os"
	"testing"
)

func TestZZPDFFrags(t *testing.T) {
	name := os.Getenv("PDFGLY")
	if name == "" {
		return
	}
	r, _ := pdfOpen(docReadShared(t, name))
	pages, _ := pdfPages(r)
	in := &pdfInterp{fontCache: map[string]int32{}}
	in.run(pages[1].V.Key("Contents"), pdfInherited(pages[1], "Resources"), pdfIdentity, 0)
	for _, f := range pdfFragments(in.glyphs) {
		if f.y > 215 && f.y < 230 {
			fmt.Printf("%.1f-%.1f y=%.2f size=%.1f %q\n", f.x0, f.x1, f.y, f.size, f.sb.String())
		}
	}
}
