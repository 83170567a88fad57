package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/najdi/najdi/ingest"
)

// TestDecodeStoredDoc checks that the reflection-free decoder gives what
// encoding/json gives, on bodies as json.Marshal writes them and on other
// valid forms (white space, key order, escapes, invalid UTF-8), and that it
// leaves out exactly the parts not asked for.
func TestDecodeStoredDoc(t *testing.T) {
	weird := "tab\tnl\n\"q\" \\ <b>&amp; \x01 é 😀 \u2028 bad\xff utf8"
	docs := []storedDoc{
		{},
		{Sections: []ingest.Section{}},
		{Sections: []ingest.Section{{Type: "title", Content: "A title"}, {Type: "p", Content: "Body text."}}},
		{Sections: []ingest.Section{{Type: weird, Content: weird}, {Type: "", Content: ""}, {Type: "custom-type", Content: "x"}},
			Fields: []FieldValue{{Name: "brand", Values: []any{"acme"}}, {Name: "n", Values: []any{1.5, 2.0}}, {Name: "b", Values: []any{true}}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab \t\n\"\\/<>&é😀\u2028\x00\x1f")
	for range 200 {
		var d storedDoc
		for range r.IntN(4) {
			var c []rune
			for range r.IntN(30) {
				c = append(c, alphabet[r.IntN(len(alphabet))])
			}
			d.Sections = append(d.Sections, ingest.Section{Type: []string{"title", "p", "h2", "odd"}[r.IntN(4)], Content: string(c)})
		}
		docs = append(docs, d)
	}
	var raws []string
	for _, d := range docs {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, string(b))
	}
	raws = append(raws,
		` { "f" : [ {"n":"x","v":[1]} ] , "s" : [ { "content" : "c\u00e9\/", "type" : "p" } , {"type":"title"} ] } `,
		`{"s":null}`, `{"s":[{}]}`, "{\"s\":[{\"type\":\"p\",\"content\":\"raw\xffbyte\"}]}",
		`{"s":[{"type":"t\u0069tle","content":"\ud83d\ude00"}]}`,
		// Escapes the hand-written unquote decodes as encoding/json does:
		// unpaired and reversed surrogates, all short escapes, invalid
		// bytes next to escapes.
		`{"s":[{"type":"p","content":"\ud83d"},{"type":"p","content":"\ud83dx\ude00\ud83d\u0041"},{"type":"title","content":"\ude00\ud83d"}]}`,
		`{"s":[{"type":"p","content":"\"\\\/\b\f\n\r\t\u00E9\u00e9"}]}`,
		"{\"s\":[{\"type\":\"p\",\"content\":\"\xff\\u003c\xc3\"},{\"type\":\"title\",\"content\":\"\\n\xe2\x82\"}]}",
	)
	for i, raw := range raws {
		for _, bp := range []bodyParts{{}, {noFields: true}, {sections: map[string]bool{"title": true}}, {sections: map[string]bool{}, noFields: true}} {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				var want storedDoc
				if err := json.Unmarshal([]byte(raw), &want); err != nil {
					t.Fatal(err)
				}
				for j := range want.Sections {
					if bp.sections != nil && !bp.sections[want.Sections[j].Type] {
						want.Sections[j].Content = ""
					}
				}
				if bp.noFields {
					want.Fields = nil
				}
				got, err := decodeStoredDoc([]byte(raw), bp)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s with %+v:\ngot  %#v\nwant %#v", raw, bp, got, want)
				}
			})
		}
	}
	for _, bad := range []string{``, `{`, `{"s":[{"type":"p","content":"x}]}`, `{"s":[{"type":"p"}]`, `[1]`, "{\"s\":[{\"type\":\"p\",\"content\":\"a\x01\"}]}",
		`{"s":[{"type":"p","content":"\x"}]}`, `{"s":[{"type":"p","content":"\u12"}]}`, `{"s":[{"type":"p","content":"\u12g4"}]}`,
		`{"s":[{"type":"p","content":"\'"}]}`, "{\"s\":[{\"type\":\"title\",\"content\":\"\\n\x01\"}]}"} {
		for _, bp := range []bodyParts{{}, {sections: map[string]bool{}, noFields: true}} {
			if _, err := decodeStoredDoc([]byte(bad), bp); err == nil {
				t.Errorf("%q decoded with %+v", bad, bp)
			}
		}
	}
}

// BenchmarkDecodeStoredDoc compares the decoder with encoding/json on a
// SciFact-sized body.
func BenchmarkDecodeStoredDoc(b *testing.B) {
	var body string
	for len(body) < 1500 {
		body += "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development. "
	}
	raw, _ := json.Marshal(storedDoc{Sections: []ingest.Section{{Type: "title", Content: "Microstructural development of human newborn cerebral white matter"}, {Type: "p", Content: body}}})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var sd storedDoc
			if err := json.Unmarshal(raw, &sd); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bc := range []struct {
		name string
		bp   bodyParts
	}{{"all", bodyParts{}}, {"titles", bodyParts{sections: map[string]bool{"title": true}}}, {"none", bodyParts{sections: map[string]bool{"none": true}}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeStoredDoc(raw, bc.bp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRuneSpan checks runeSpan against slicing the code points.
func TestRuneSpan(t *testing.T) {
	for _, s := range []string{"", "a", "abc", "žluťoučký kůň", "😀x😀", "bad\xffbyte"} {
		rs := []rune(s)
		for st := 0; st <= len(rs)+1; st++ {
			for en := st + 1; en <= len(rs)+2; en++ {
				got, ok := runeSpan(s, st, en)
				// Stored content is valid UTF-8; on invalid bytes runeSpan
				// keeps them where []rune has U+FFFD.
				if want := en <= len(rs); ok != want || ok && string([]rune(got)) != string(rs[st:en]) {
					t.Errorf("runeSpan(%q, %d, %d) = %q, %v", s, st, en, got, ok)
				}
			}
		}
	}
}
