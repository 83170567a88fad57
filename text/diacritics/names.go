package diacritics

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// properCase returns the dictionary spelling of the lowercase form f when
// the dictionary knows f only with capitals ("praze" → "Praze", "cssr" →
// "ČSSR"); false when it also knows f in lowercase ("most"), knows it in
// more than one capitalization, or does not know it.
func (r *Restorer) properCase(f string) (string, bool) {
	if r.dict == nil || f == "" {
		return "", false
	}
	var out string
	for _, g := range r.dict.Lookup(fold(f)) {
		if g == f {
			return "", false
		}
		if strings.ToLower(g) != f {
			continue
		}
		if out != "" && out != g {
			return "", false
		}
		out = g
	}
	return out, out != ""
}

// hasUpper reports whether s has an upper-case letter.
func hasUpper(s string) bool {
	for _, c := range s {
		if unicode.IsUpper(c) {
			return true
		}
	}
	return false
}

// names are multiword proper names ("Český Krumlov", "Ústí nad Labem")
// whose spelling and capitals a query typed in lowercase gets back, also
// in other grammatical cases ("v ceskem krumlove" → "v Českém Krumlově").
type names struct {
	// byFirst maps the first three letters of a name's folded first word
	// to the names, longest first.
	byFirst map[string][]name
}

type name struct {
	words []string // as written
	keys  []string // folded
}

// WithNames returns a restorer that also restores the spelling and capital
// letters of the multiword proper names in list (single words get their
// capitals from the dictionary); r is not modified. A query word typed in
// lowercase ASCII takes the name's word when it is that word without
// diacritics, or only its capital when it is another case of it (same
// beginning, ending changed by at most the last two letters of the name's
// word; words of up to three letters, such as "nad", must be equal).
func (r *Restorer) WithNames(list []string) *Restorer {
	ns := &names{byFirst: make(map[string][]name)}
	for _, s := range list {
		var n name
		for _, sp := range text.Words(s) {
			w := s[sp.Start:sp.End]
			n.words = append(n.words, w)
			n.keys = append(n.keys, fold(strings.ToLower(w)))
		}
		if len(n.words) < 2 || utf8.RuneCountInString(n.keys[0]) < 3 {
			continue
		}
		k := firstLetters(n.keys[0])
		ns.byFirst[k] = append(ns.byFirst[k], n)
	}
	for k, l := range ns.byFirst {
		// Longest names first: "Nové Město na Moravě" before "Nové Město".
		for i := 1; i < len(l); i++ {
			for j := i; j > 0 && len(l[j].words) > len(l[j-1].words); j-- {
				l[j], l[j-1] = l[j-1], l[j]
			}
		}
		ns.byFirst[k] = l
	}
	nr := *r
	nr.names = ns
	return &nr
}

func firstLetters(k string) string {
	n := 0
	for i := range k {
		if n == 3 {
			return k[:i]
		}
		n++
	}
	return k
}

// apply rewrites out (the restored words of the spans of query) where
// consecutive words typed in lowercase (lower) spell a name.
func (ns *names) apply(query string, spans []text.Span, out []string, lower []bool) {
	if ns == nil {
		return
	}
	for i := 0; i < len(out); i++ {
		if !lower[i] {
			continue
		}
		k0 := fold(strings.ToLower(out[i]))
		var hit *name
		var exact []bool
	cands:
		for j := range ns.byFirst[firstLetters(k0)] {
			n := &ns.byFirst[firstLetters(k0)][j]
			if i+len(n.words) > len(out) {
				continue
			}
			ex := make([]bool, len(n.words))
			for m := range n.words {
				q := i + m
				if !lower[q] || (m > 0 && !joins(query[spans[q-1].End:spans[q].Start])) {
					continue cands
				}
				qk := fold(strings.ToLower(out[q]))
				if qk == n.keys[m] {
					ex[m] = true
				} else if !sameWord(qk, n.keys[m]) {
					continue cands
				}
			}
			hit, exact = n, ex
			break
		}
		if hit == nil {
			continue
		}
		for m, w := range hit.words {
			q := i + m
			switch {
			case exact[m]:
				out[q] = w
			case startsUpper(w):
				out[q] = capitalize(out[q])
			}
		}
		i += len(hit.words) - 1
	}
}

// sameWord reports whether the folded query word q can be another case of
// the folded name word k: k's beginning without its last two letters (at
// least three letters) starts q, and q is at most three letters longer or
// two shorter than k.
func sameWord(q, k string) bool {
	if len(k) <= 3 {
		return q == k
	}
	stem := max(3, len(k)-2)
	return len(q) >= stem && q[:stem] == k[:stem] && len(q) <= len(k)+3
}

// joins reports whether the text between two words keeps them in one name:
// spaces or a hyphen ("Frýdek-Místek", "frydek mistek").
func joins(s string) bool { return strings.Trim(s, " \t-") == "" }

func startsUpper(s string) bool {
	c, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(c)
}

func capitalize(s string) string {
	c, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(c)) + s[n:]
}
