package cluster

import (
	"slices"
	"strings"
	"unicode"
)

// najdi folds case-insensitive filters with Unicode simple folding at the
// level of single characters. Lucene differs by version: Lucene 9
// (Elasticsearch 8) folds ASCII letters only and not inside class ranges,
// Lucene 10 (OpenSearch 3) folds Unicode. So the translation spells every
// letter with all its cases itself and sends the pattern case-sensitive:
// the cluster then matches exactly what najdi matches, on every version.

// orbit returns r and the other runes of its simple-folding orbit.
func orbit(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// hasCase reports whether r has another case.
func hasCase(r rune) bool { return unicode.SimpleFold(r) != r }

// classRune writes r for use inside a Lucene character class.
func classRune(b *strings.Builder, r rune) {
	if strings.ContainsRune(`\]-[^"`, r) {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

// litRune writes r as a literal outside a class: a letter with other cases
// as a class of them, anything else escaped.
func litRune(b *strings.Builder, r rune) {
	if hasCase(r) {
		b.WriteByte('[')
		for _, o := range orbit(r) {
			classRune(b, o)
		}
		b.WriteByte(']')
		return
	}
	if r < 128 && !(r >= '0' && r <= '9') {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

// foldLiteral returns a Lucene pattern matching s with any letter in any
// case.
func foldLiteral(s string) string {
	var b strings.Builder
	for _, r := range s {
		litRune(&b, r)
	}
	return b.String()
}

// foldPattern rewrites a Lucene regular expression so that, matched
// case-sensitively, it matches what najdi's case-insensitive evaluation of
// p matches: literal letters become classes of their cases, classes gain
// the other cases of their letters and ranges. Operators, predefined
// classes (\d \s \w) and everything that is not a letter are kept.
func foldPattern(p string) string {
	rs := []rune(p)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			if strings.ContainsRune("dDsSwW", rs[i]) {
				b.WriteByte('\\')
				b.WriteRune(rs[i])
			} else {
				litRune(&b, rs[i])
			}
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			if j == i+1 {
				b.WriteString(`""`)
			}
			for _, q := range rs[i+1 : min(j, len(rs))] {
				litRune(&b, q)
			}
			i = j
		case r == '[':
			i = foldClass(&b, rs, i)
		case hasCase(r):
			litRune(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// foldClass rewrites the class starting at rs[i] == '[' and returns the
// index of its closing ']' (or the end).
func foldClass(b *strings.Builder, rs []rune, i int) int {
	b.WriteByte('[')
	i++
	if i < len(rs) && rs[i] == '^' {
		b.WriteByte('^')
		i++
	}
	var extra []rune
	for ; i < len(rs) && rs[i] != ']'; i++ {
		lo := rs[i]
		if lo == '\\' && i+1 < len(rs) {
			i++
			lo = rs[i]
			if strings.ContainsRune("dDsSwW", lo) {
				b.WriteByte('\\')
				b.WriteRune(lo)
				continue
			}
		}
		hi := lo
		if i+2 < len(rs) && rs[i+1] == '-' && rs[i+2] != ']' {
			i += 2
			hi = rs[i]
			if hi == '\\' && i+1 < len(rs) {
				i++
				hi = rs[i]
			}
		}
		classRune(b, lo)
		if hi != lo {
			b.WriteByte('-')
			classRune(b, hi)
		}
		if hi-lo <= 4096 {
			for r := lo; r <= hi; r++ {
				for _, o := range orbit(r)[1:] {
					if o < lo || o > hi {
						extra = append(extra, o)
					}
				}
			}
		}
	}
	slices.Sort(extra)
	extra = slices.Compact(extra)
	for k := 0; k < len(extra); {
		j := k
		for j+1 < len(extra) && extra[j+1] == extra[j]+1 {
			j++
		}
		classRune(b, extra[k])
		if j > k {
			b.WriteByte('-')
			classRune(b, extra[j])
		}
		k = j + 1
	}
	b.WriteByte(']')
	return i
}
