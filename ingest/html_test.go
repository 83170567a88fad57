package ingest

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
	"golang.org/x/text/encoding/charmap"
)

func TestParseHTMLWikipedia(t *testing.T) {
	doc, err := ParseHTML(testutil.ReadDoc(t, "wikipedia-mozilla.html"), "")
	if err != nil {
		t.Fatal(err)
	}
	docCheckOutput(t, doc)
	if !strings.Contains(doc.Title, "Mozilla") {
		t.Errorf("Title = %q, want it to contain Mozilla", doc.Title)
	}
	if len(doc.Sections) == 0 || doc.Sections[0].Type != "title" {
		t.Fatalf("first section %+v, want the title", doc.Sections[:min(1, len(doc.Sections))])
	}
	// Headings of the article, in order, with their levels (checked by
	// reading the page source).
	wantHeadings := []Section{
		{Type: "h1", Content: "Mozilla"},
		{Type: "h2", Content: "History"},
		{Type: "h3", Content: "Eich CEO promotion controversy"},
		{Type: "h2", Content: "Values"},
		{Type: "h3", Content: "Pledge"},
		{Type: "h2", Content: "Software"},
		{Type: "h3", Content: "Firefox"},
		{Type: "h3", Content: "Firefox Mobile"},
		{Type: "h3", Content: "Firefox OS"},
		{Type: "h3", Content: "Thunderbird"},
		{Type: "h3", Content: "SeaMonkey"},
		{Type: "h3", Content: "Bugzilla"},
		{Type: "h3", Content: "Components"},
		{Type: "h4", Content: "NSS"},
		{Type: "h4", Content: "SpiderMonkey"},
	}
	var got []Section
	for _, s := range doc.Sections {
		if len(s.Type) == 2 && s.Type[0] == 'h' {
			got = append(got, s)
		}
	}
	if len(got) < len(wantHeadings) || !reflect.DeepEqual(got[:len(wantHeadings)], wantHeadings) {
		t.Errorf("headings = %q\nwant prefix %q", got[:min(len(got), len(wantHeadings))], wantHeadings)
	}
	var all strings.Builder
	for _, s := range doc.Sections {
		all.WriteString(s.Content)
		all.WriteByte('\n')
		switch s.Content {
		case "Main page", "Jump to content", "Contents", "Navigation menu", "Personal tools", "Views", "Edit", "Random article":
			t.Errorf("chrome section %+v", s)
		}
	}
	text := all.String()
	for _, bad := range []string{"wgCanonicalNamespace", "document.documentElement", "[edit]", "[1]", "Jump to: navigation", "function(", "Retrieved from"} {
		if strings.Contains(text, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	for _, want := range []string{
		"Mozilla is a free-software community, created in 1998 by members of Netscape.",
		"Build and enable open-source technologies and communities that support the Manifesto’s principles;",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The infobox is a data table: one section per row, th | td.
	if !strings.Contains(text, "Founded | February 28, 1998\n") {
		t.Error("infobox row Founded missing")
	}
	var li int
	for _, s := range doc.Sections {
		if s.Type == "li" {
			li++
		}
	}
	if li < 50 { // pledge and reps lists, see also, ~90 references
		t.Errorf("only %d li sections", li)
	}
}

func TestParseHTML(t *testing.T) {
	cp1250, _ := charmap.Windows1250.NewEncoder().String(`<html><head><meta charset="windows-1250"><title>Žluťoučký kůň</title></head><body><p>Příliš žluťoučký kůň</p></body></html>`)
	httpEquiv, _ := charmap.ISO8859_2.NewEncoder().String(`<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2"><p>šťáva</p>`)
	tests := []struct {
		name    string
		in      string
		charset string
		want    []Section
	}{
		{"empty", "", "", nil},
		{"meta charset", cp1250, "", []Section{{Type: "title", Content: "Žluťoučký kůň"}, {Type: "p", Content: "Příliš žluťoučký kůň"}}},
		{"http-equiv", httpEquiv, "", []Section{{Type: "p", Content: "šťáva"}}},
		{"declared wins", "<p>\xe8</p>", "windows-1252", []Section{{Type: "p", Content: "è"}}},
		{
			"blocks and inline",
			`<body>loose <b>text</b><h2>Head<span class="mw-editsection">[edit]</span></h2><p>One <i>two</i><sup class="reference">[1]</sup>
			three.</p><ul><li>a<ul><li>b</li></ul>c</li></ul><blockquote>q</blockquote><pre>x  y</pre></body>`,
			"",
			[]Section{{Type: "p", Content: "loose text"}, {Type: "h2", Content: "Head"}, {Type: "p", Content: "One two three."}, {Type: "li", Content: "a"}, {Type: "li", Content: "b"}, {Type: "li", Content: "c"}, {Type: "quote", Content: "q"}, {Type: "pre", Content: "x y"}},
		},
		{
			"dropped chrome",
			`<body><nav>Main page</nav><header>Site</header><div role="navigation">Menu</div><div hidden>h</div>
			<p aria-hidden="true">a</p><p style="display: none">b</p><script>var x</script><style>p{}</style><form>f<input value=v></form>
			<div id="toc">Contents</div><aside>ad</aside><p>kept</p><footer>(c)</footer><noscript>js</noscript><template>t</template></body>`,
			"",
			[]Section{{Type: "p", Content: "kept"}},
		},
		{
			"documentation navigation bars",
			`<body><div class="navheader"><table><tr><td><a href="a.html">Prev</a></td><td>Chapter 2</td></tr></table></div>
			<div class="sphinxsidebar"><p>Search</p></div><p>Text of the page.</p><div class="navfooter"><table><tr><td>Next</td></tr></table></div></body>`,
			"",
			[]Section{{Type: "p", Content: "Text of the page."}},
		},
		{
			"article header kept",
			`<article><header><h1>Story</h1></header><p>Body</p><footer>By me</footer></article>`,
			"",
			[]Section{{Type: "h1", Content: "Story"}, {Type: "p", Content: "Body"}, {Type: "p", Content: "By me"}},
		},
		{
			"data table with header",
			`<table><caption>Cities</caption><tr><th>Name</th><th>Pop</th></tr><tr><td>Praha</td><td>1.3M</td></tr><tr><td>Brno</td><td></td></tr></table>`,
			"",
			[]Section{{Type: "caption", Content: "Cities"}, {Type: "table", Content: "Name | Pop"}, {Type: "table", Content: "Name: Praha | Pop: 1.3M"}, {Type: "table", Content: "Name: Brno"}},
		},
		{
			"layout table",
			`<table><tr><td><h1>Page</h1><p>Para</p></td><td>side</td></tr></table>`,
			"",
			[]Section{{Type: "h1", Content: "Page"}, {Type: "p", Content: "Para"}, {Type: "p", Content: "side"}},
		},
		{
			"figure caption and wbr",
			`<figure><img alt="x"><figcaption>A <b>cat</b></figcaption></figure><p>mozilla<wbr>.org</p>`,
			"",
			[]Section{{Type: "caption", Content: "A cat"}, {Type: "p", Content: "mozilla.org"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ParseHTML([]byte(tt.in), tt.charset)
			checkSections(t, doc, err, tt.want)
		})
	}
}

func TestParseHTMLDeepNesting(t *testing.T) {
	tests := []struct {
		name    string
		depth   int
		wantErr bool
	}{
		{"within the limit", 400, false},
		// golang.org/x/net/html rejects trees nested deeper than 512.
		{"hostile", 100000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Repeat("<div>", tt.depth) + "deep" + strings.Repeat("</div>", tt.depth) + "<p>shallow</p>"
			doc, err := ParseHTML([]byte(in), "")
			if tt.wantErr {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("err = %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []Section{{Type: "p", Content: "deep"}, {Type: "p", Content: "shallow"}}
			if !reflect.DeepEqual(doc.Sections, want) {
				t.Errorf("sections %q, want %q", doc.Sections, want)
			}
		})
	}
}

func FuzzParseHTML(f *testing.F) {
	f.Add(testutil.ReadDoc(f, "wikipedia-mozilla.html")[:20000])
	f.Add([]byte(`<meta charset=latin2><table><tr><th>a<td>b<table><tr><td>c</table></table><ul><li>x<p>y`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseHTML(data, "")
		if err != nil {
			return
		}
		docCheckOutput(t, doc)
	})
}
