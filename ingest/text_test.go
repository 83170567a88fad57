package ingest

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/najdi/najdi/internal/testutil"
)

func TestParseTextCzechFile(t *testing.T) {
	doc, err := ParseText(testutil.ReadDoc(t, "czech-cac-excerpt-cp1250.txt"), "")
	if err != nil {
		t.Fatal(err)
	}
	// The file holds three paragraphs separated by blank lines; the first
	// line is a long sentence, so it is no title.
	if len(doc.Sections) != 3 {
		t.Fatalf("got %d sections, want 3: %+v", len(doc.Sections), doc.Sections)
	}
	if doc.Title != "" {
		t.Errorf("Title = %q, want none", doc.Title)
	}
	wantStarts := []string{
		"Kolektivní socialistický závazek pracovníků Výzkumného ústavu meliorací v Praze",
		"Na včerejším zasedání pléna Meziparlamentní unie v Římě",
		"V dnešní době má kosmetika, tedy péče o zdraví a krásu, nový obsah.",
	}
	for i, s := range doc.Sections {
		if s.Type != "p" {
			t.Errorf("section %d type %q, want p", i, s.Type)
		}
		if !strings.HasPrefix(s.Content, wantStarts[i]) {
			t.Errorf("section %d starts %q, want %q", i, s.Content[:min(len(s.Content), 80)], wantStarts[i])
		}
		if strings.ContainsAny(s.Content, "\r\n\uFFFD") {
			t.Errorf("section %d has CR, LF or U+FFFD", i)
		}
	}
	all := doc.Sections[0].Content + doc.Sections[1].Content + doc.Sections[2].Content
	for _, w := range []string{"Velké říjnové socialistické revoluce", "Sovětského svazu", "Zbraslavi"} {
		if !strings.Contains(all, w) {
			t.Errorf("text lacks %q", w)
		}
	}
}

func TestParseText(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		title string
		want  []Section
	}{
		{"empty", "", "", nil},
		{"blank lines only", "\r\n \n\t\n", "", nil},
		{
			"title and paragraphs",
			"Annual Report 2024\r\n\r\nFirst line\r\nsecond line.\r\n\r\nNext paragraph.",
			"Annual Report 2024",
			[]Section{{Type: "title", Content: "Annual Report 2024"}, {Type: "p", Content: "First line second line."}, {Type: "p", Content: "Next paragraph."}},
		},
		{
			"sentence is no title",
			"This is a sentence.\n\nAnother one.",
			"",
			[]Section{{Type: "p", Content: "This is a sentence."}, {Type: "p", Content: "Another one."}},
		},
		{
			"single block is no title",
			"Just One Line",
			"",
			[]Section{{Type: "p", Content: "Just One Line"}},
		},
		{
			"list",
			"Shopping:\n- milk\n- bread and\n  butter\n* eggs\n\n1. one\n2) two",
			"",
			[]Section{{Type: "p", Content: "Shopping:"}, {Type: "li", Content: "milk"}, {Type: "li", Content: "bread and butter"}, {Type: "li", Content: "eggs"}, {Type: "li", Content: "one"}, {Type: "li", Content: "two"}},
		},
		{
			"markdown headings",
			"intro text\n\n# Big\n\n### Small ###\n\nSetext\n======\n\nOther\n-----",
			"",
			[]Section{{Type: "p", Content: "intro text"}, {Type: "h1", Content: "Big"}, {Type: "h3", Content: "Small"}, {Type: "h1", Content: "Setext"}, {Type: "h2", Content: "Other"}},
		},
		{
			"cr only and form feed",
			"a\rb\fc\x00d",
			"",
			[]Section{{Type: "p", Content: "a b"}, {Type: "p", Content: "c d"}},
		},
		{
			"whitespace collapsed",
			"  many   \t spaces\u00a0here  ",
			"",
			[]Section{{Type: "p", Content: "many spaces here"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ParseText([]byte(tt.in), "")
			checkSections(t, doc, err, tt.want)
			if doc.Title != tt.title {
				t.Errorf("Title = %q, want %q", doc.Title, tt.title)
			}
		})
	}
}

// checkSections fails the test on err and reports sections other than
// want.
func checkSections(t *testing.T, doc Document, err error, want []Section) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc.Sections, want) {
		t.Errorf("Sections = %q\nwant %q", doc.Sections, want)
	}
}

func TestParseDocumentDispatch(t *testing.T) {
	tests := []struct {
		name        string
		f           Format
		data        string
		contentType string
		want        string // first section content; "" means an error is expected
	}{
		{"text charset", FormatText, "\x9atest\x9a", "text/plain; charset=windows-1250", "štestš"},
		{"text sloppy header", FormatText, "\xb9", "text/plain;charset=latin2 ;", "š"},
		{"html charset", FormatHTML, "<p>\xe8</p>", "text/html; charset=windows-1252", "è"},
		{"csv unsupported", FormatCSV, "a,b", "", ""},
		{"bogus", Format("exe"), "x", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ParseDocument(tt.f, []byte(tt.data), tt.contentType)
			if tt.want == "" {
				if err == nil {
					t.Fatal("want error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Sections) == 0 || doc.Sections[0].Content != tt.want {
				t.Errorf("sections %q, want first %q", doc.Sections, tt.want)
			}
		})
	}
}

func FuzzParseText(f *testing.F) {
	f.Add(testutil.ReadDoc(f, "czech-cac-excerpt-cp1250.txt"))
	f.Add([]byte("Title\r\n\r\n- a\r\n- b\r\n\r\n# h\r\n\r\nx\n==="))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseText(data, "")
		if err != nil {
			return
		}
		docCheckOutput(t, doc)
	})
}

// docCheckOutput checks the invariants every parser promises: valid UTF-8,
// no empty sections, normalized white space.
func docCheckOutput(t *testing.T, doc Document) {
	t.Helper()
	if !utf8.ValidString(doc.Title) {
		t.Fatalf("invalid UTF-8 title %q", doc.Title)
	}
	for i, s := range doc.Sections {
		if s.Type == "" || s.Content == "" {
			t.Fatalf("section %d empty: %+v", i, s)
		}
		if !utf8.ValidString(s.Content) {
			t.Fatalf("section %d invalid UTF-8: %q", i, s.Content)
		}
		if s.Content != docCleanText(s.Content) {
			t.Fatalf("section %d not normalized: %q", i, s.Content)
		}
	}
}
