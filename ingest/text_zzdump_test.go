package ingest

import (
	"fmt"
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	name := os.Getenv("DUMP")
	if name == "" {
		return
	}
	b := docReadShared(t, name)
	var f Format
	switch {
	case len(name) > 5 && name[len(name)-5:] == ".html":
		f = FormatHTML
	case name[len(name)-4:] == ".pdf":
		f = FormatPDF
	case name[len(name)-5:] == ".docx":
		f = FormatDOCX
	default:
		f = FormatText
	}
	doc, err := ParseDocument(f, b, "")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("TITLE %q\n", doc.Title)
	for _, s := range doc.Sections {
		fmt.Printf("[%s] %s\n", s.Type, s.Content)
	}
}
