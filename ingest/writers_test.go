package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestParseOtherWriters parses documents written by python-docx and by
// reportlab with an embedded TrueType font (testdata/gen-docs.py): Czech
// text comes out whole, headings, list items and table rows keep their
// section types, and PDF paragraphs follow the blank line and the page.
func TestParseOtherWriters(t *testing.T) {
	for _, tc := range []struct {
		file string
		f    Format
		want []Section
	}{
		{"python-docx.docx", FormatDOCX, []Section{
			{Type: "title", Content: "Zpráva o činnosti"},
			{Type: "p", Content: "Úvodní odstavec s českými znaky: příliš žluťoučký kůň úpěl ďábelské ódy."},
			{Type: "h1", Content: "Kapitola 1"},
			{Type: "p", Content: "Text s tučným a kurzívou."},
			{Type: "li", Content: "první položka"},
			{Type: "li", Content: "druhá položka"},
			{Type: "table", Content: "Jméno | Hodnota"},
			{Type: "table", Content: "Praha | 1 300 000"},
			{Type: "p", Content: "Řádek jedna Řádek dva"},
			{Type: "h1", Content: "Kapitola 2"},
			{Type: "p", Content: "Závěr. Tabulátor uvnitř."},
		}},
		{"reportlab.pdf", FormatPDF, []Section{
			{Type: "p", Content: "Zpráva o činnosti Příliš žluťoučký kůň úpěl ďábelské ódy. Druhý řádek textu."},
			{Type: "p", Content: "Nový odstavec po mezeře."},
			{Type: "p", Content: "Strana dvě: závěrečné shrnutí."},
		}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ParseDocument(tc.f, data, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var got []Section
		for _, s := range doc.Sections {
			got = append(got, Section{Type: s.Type, Content: s.Content})
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.file, got, tc.want)
		}
		if f, err := DetectFormat("", "", data); err != nil || f != tc.f {
			t.Errorf("%s: detected %q, %v; want %q", tc.file, f, err, tc.f)
		}
	}
}

// TestODSOtherWriter reads a spreadsheet written by odfpy
// (testdata/gen-ods.py) with Czech-locale display values: numbers keep
// their stored value and show as displayed, the date becomes ISO, booleans
// keep their displayed words.
func TestODSOtherWriter(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "odfpy.ods"))
	if err != nil {
		t.Fatal(err)
	}
	recs, rerrs := recAll(t, FormatODS, data, RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors %v", rerrs)
	}
	got := recSheetLines(recs)
	want := []string{
		"Tabulka 1/0: název=Žluťoučký kůň; počet=#42; podíl=#12,5 %; cena=#1 234,50 Kč; datum=2024-03-01; platí=?PRAVDA",
		"Tabulka 1/1: název=druhý; počet=<null>; podíl=<null>; cena=<null>; datum=<null>; platí=?NEPRAVDA",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records:\n got %q\nwant %q", got, want)
	}
	if v, _ := recProp(recs[0], "cena"); v[0].Num != 1234.5 {
		t.Errorf("cena Num = %v, want 1234.5", v[0].Num)
	}
}
