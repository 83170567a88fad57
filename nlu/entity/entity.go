package entity

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/najdi/najdi/nlu/ner"
	"github.com/najdi/najdi/nlu/token"
)

// Entity classes.
const (
	Person       = "person"
	Location     = "location"
	Organization = "organization"
	Date         = "date"
	Time         = "time"
	Duration     = "duration"
	Number       = "number"
	Ordinal      = "ordinal"
	Money        = "money"
	Percent      = "percent"
	Email        = "email"
	URL          = "url"
	Phone        = "phone"
)

// Entity is one recognized entity. Start and End are code-point offsets into
// the text (End exclusive); Value is the normalized value (nil when the
// class has none).
type Entity struct {
	Class      string
	Start      int
	End        int
	Text       string
	Value      any
	Confidence float64
}

// MoneyValue is the value of a money entity.
type MoneyValue struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// candidate tiers: lower wins overlaps.
const (
	tierPattern = iota
	tierTyped
	tierNumber
	tierName
)

type cand struct {
	tier       int
	start, end int // code points
	bs, be     int // bytes
	class      string
	value      any
	conf       float64
}

// doc is the per-call state shared by the recognizers.
type doc struct {
	text string
	lang string
	now  time.Time
	toks []token.Token
	f    []string // folded token texts
	out  []cand
}

func (d *doc) addTok(tier, i, j int, class string, value any, conf float64) {
	d.out = append(d.out, cand{tier: tier, start: d.toks[i].Start, end: d.toks[j-1].End, bs: d.toks[i].ByteStart, be: d.toks[j-1].ByteEnd, class: class, value: value, conf: conf})
}

// adjacent reports whether tokens i and i+1 touch (no space between).
func (d *doc) adjacent(i int) bool {
	return i+1 < len(d.toks) && d.toks[i].ByteEnd == d.toks[i+1].ByteStart
}

func (d *doc) is(i int, words ...string) bool {
	if i < 0 || i >= len(d.f) {
		return false
	}
	for _, w := range words {
		if d.f[i] == w {
			return true
		}
	}
	return false
}

// Extract returns the built-in entities of text in language lang ("en" or
// "cs"; anything else is treated as "en"), resolving relative dates against
// now. Entities do not overlap and are sorted by Start.
func Extract(text, lang string, now time.Time) []Entity {
	out, _ := ExtractContext(context.Background(), text, lang, now, nil)
	return out
}

// ExtractContext is Extract with English names tagged by the contextual
// tagger (ner.TagEnglishContext) when states is not nil. It fails only when
// ctx ends while the word vectors are computed; another error of states
// falls back to the lexical tagger.
func ExtractContext(ctx context.Context, text, lang string, now time.Time, states ner.WordStates) ([]Entity, error) {
	if lang != "cs" {
		lang = "en"
	}
	d := &doc{text: text, lang: lang, now: now, toks: token.Tokenize(text)}
	d.f = make([]string, len(d.toks))
	for i, t := range d.toks {
		d.f[i] = token.Fold(t.Text)
	}
	d.patterns()
	d.numericDates()
	nums := d.numbers()
	d.typed(nums)
	d.dates()
	d.times()
	d.ordinals()
	for _, n := range nums {
		d.addTok(tierNumber, n.i, n.j, Number, n.value, 0.9)
	}
	var names []ner.NameSpan
	if lang == "cs" {
		names = ner.TagCzech(text, d.toks)
	} else {
		// The embedded models are part of the binary; an error of the
		// lexical tagger is a broken build, and names are simply not
		// reported.
		var err error
		names, err = ner.TagEnglishContext(ctx, d.toks, states)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("entity: names: %w", cerr)
			}
			names, _ = ner.TagEnglish(d.toks)
		}
	}
	for _, s := range names {
		d.out = append(d.out, cand{tier: tierName, start: s.Start, end: s.End, bs: s.ByteStart, be: s.ByteEnd, class: s.Class, conf: s.Confidence})
	}
	return d.resolve(), nil
}

func (d *doc) resolve() []Entity {
	c := d.out
	sort.SliceStable(c, func(a, b int) bool {
		if c[a].tier != c[b].tier {
			return c[a].tier < c[b].tier
		}
		if la, lb := c[a].end-c[a].start, c[b].end-c[b].start; la != lb {
			return la > lb
		}
		return c[a].start < c[b].start
	})
	kept := Disjoint(c, func(x cand) (int, int) { return x.start, x.end })
	sort.Slice(kept, func(a, b int) bool { return kept[a].start < kept[b].start })
	out := make([]Entity, len(kept))
	for i, k := range kept {
		v := k.value
		txt := d.text[k.bs:k.be]
		if v == nil && k.tier != tierName {
			v = txt
		}
		if k.tier == tierName {
			v = txt
		}
		out[i] = Entity{Class: k.class, Start: k.start, End: k.end, Text: txt, Value: v, Confidence: k.conf}
	}
	return out
}

// runeOffset converts a byte offset of d.text to a code-point offset.
func (d *doc) runeOffset(b int) int { return utf8.RuneCountInString(d.text[:b]) }

func (d *doc) addBytes(tier, bs, be int, class string, value any, conf float64) {
	d.out = append(d.out, cand{tier: tier, start: d.runeOffset(bs), end: d.runeOffset(be), bs: bs, be: be, class: class, value: value, conf: conf})
}

func hasPrefixAny(s string, ps ...string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Disjoint returns the items of xs, in their order, that overlap no item
// kept before them: given in order of priority, the best spans that do not
// overlap. span returns an item's [start, end).
func Disjoint[T any](xs []T, span func(T) (start, end int)) []T {
	var kept []T
	for _, x := range xs {
		s, e := span(x)
		ok := true
		for _, k := range kept {
			if ks, ke := span(k); s < ke && ks < e {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, x)
		}
	}
	return kept
}
