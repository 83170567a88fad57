package phrase

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// ErrEmpty is returned by Compile for an entry without any word token.
var ErrEmpty = errors.New("phrase: entry has no words")

// Entry is one phrase to compile. Ref is returned with every match of the
// entry, so synonyms of one phrase share a Ref.
type Entry struct {
	Text string
	Ref  int
}

// Options configures a Matcher.
type Options struct {
	// Language is "cs" for Czech inflection-aware matching; anything else
	// matches folded tokens exactly.
	Language string
	// CaseSensitive additionally requires every matched token to have the
	// same capitalization of its first letter as the phrase token.
	CaseSensitive bool
}

// Match is one occurrence of a phrase. Start and End are code-point offsets
// into the text, ByteStart and ByteEnd byte offsets (End exclusive).
type Match struct {
	Ref       int
	Start     int
	End       int
	ByteStart int
	ByteEnd   int
	// Exact is true when the folded text tokens equal the phrase's.
	Exact bool
}

type edgeKey struct {
	node int32
	tok  int32
}

type pattern struct {
	ref    int
	folded []string
	caps   []bool
}

// Matcher is a compiled phrase list. It is safe for concurrent use.
type Matcher struct {
	opts   Options
	ids    map[string]int32
	edges  map[edgeKey]int32
	accept []int32 // per node: pattern index or -1
	pats   []pattern
}

// barrier is the key of sentence punctuation; it never matches.
const barrier = "\x00"

// Compile builds a Matcher from entries. Entries without words are skipped
// and reported (with the first bad index) by an ErrEmpty-wrapping error only
// when no entry compiles.
func Compile(entries []Entry, opts Options) (*Matcher, error) {
	m := &Matcher{opts: opts, ids: make(map[string]int32), edges: make(map[edgeKey]int32, len(entries)*2), accept: []int32{-1}}
	compiled := 0
	for _, e := range entries {
		toks := words(text.Tokenize(e.Text))
		if len(toks) == 0 {
			continue
		}
		p := pattern{ref: e.Ref}
		node := int32(0)
		for _, t := range toks {
			f := text.Fold(t.Text)
			p.folded = append(p.folded, f)
			p.caps = append(p.caps, text.IsCapitalized(t.Text))
			k := Key(f, opts.Language)
			id, ok := m.ids[k]
			if !ok {
				id = int32(len(m.ids))
				m.ids[k] = id
			}
			ek := edgeKey{node, id}
			next, ok := m.edges[ek]
			if !ok {
				next = int32(len(m.accept))
				m.accept = append(m.accept, -1)
				m.edges[ek] = next
			}
			node = next
		}
		if m.accept[node] >= 0 {
			// Duplicate key path: keep the first, unless this one is the
			// exact spelling and the first was not (e.g. "Pivo" vs "Piva").
			continue
		}
		m.accept[node] = int32(len(m.pats))
		m.pats = append(m.pats, p)
		compiled++
	}
	if compiled == 0 && len(entries) > 0 {
		return nil, ErrEmpty
	}
	return m, nil
}

// Len returns the number of compiled patterns.
func (m *Matcher) Len() int { return len(m.pats) }

// words keeps word tokens and turns sentence punctuation into barriers.
func words(toks []text.Piece) []text.Piece {
	out := toks[:0:0]
	for _, t := range toks {
		if t.Word() {
			out = appendParts(out, t)
			continue
		}
		if t.Text == "&" {
			out = append(out, text.Piece{Text: "and", Start: t.Start, End: t.End, ByteStart: t.ByteStart, ByteEnd: t.ByteEnd})
			continue
		}
		if strings.ContainsAny(t.Text, ".,;:!?()[]{}\"") {
			out = append(out, text.Piece{Text: barrier, Start: t.Start, End: t.End, ByteStart: t.ByteStart, ByteEnd: t.ByteEnd})
		}
	}
	return out
}

// appendParts appends the word t, split at hyphens into its parts
// ("Praze-Karlíně" → "Praze", "Karlíně"), so each part inflects on its own
// and a hyphenated name matches written with a hyphen, with spaces around
// one, or with a space alone.
func appendParts(out []text.Piece, t text.Piece) []text.Piece {
	if !strings.ContainsAny(t.Text, "-‐‑–") {
		return append(out, t)
	}
	start, bstart := t.Start, t.ByteStart
	rest := t.Text
	for rest != "" {
		k := strings.IndexFunc(rest, func(r rune) bool { return r == '-' || r == '‐' || r == '‑' || r == '–' })
		part := rest
		if k >= 0 {
			part = rest[:k]
		}
		if part != "" {
			n := utf8.RuneCountInString(part)
			out = append(out, text.Piece{Text: part, Start: start, End: start + n, ByteStart: bstart, ByteEnd: bstart + len(part)})
		}
		if k < 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(rest[k:])
		start += utf8.RuneCountInString(rest[:k]) + 1
		bstart += k + size
		rest = rest[k+size:]
	}
	return out
}

// Match returns the leftmost-longest, non-overlapping matches in s.
func (m *Matcher) Match(s string) []Match {
	return m.MatchTokens(text.Tokenize(s))
}

// MatchTokens is Match over pieces produced by text.Tokenize.
func (m *Matcher) MatchTokens(all []text.Piece) []Match {
	toks := words(all)
	if len(toks) == 0 || len(m.pats) == 0 {
		return nil
	}
	ids := make([]int32, len(toks))
	for i, t := range toks {
		ids[i] = -1
		if t.Text == barrier {
			continue
		}
		if id, ok := m.ids[Key(text.Fold(t.Text), m.opts.Language)]; ok {
			ids[i] = id
		}
	}
	var out []Match
	for i := 0; i < len(toks); {
		node, best, bestEnd := int32(0), int32(-1), -1
		for j := i; j < len(toks) && ids[j] >= 0; j++ {
			next, ok := m.edges[edgeKey{node, ids[j]}]
			if !ok {
				break
			}
			node = next
			if p := m.accept[node]; p >= 0 && m.caseOK(p, toks[i:j+1]) {
				best, bestEnd = p, j
			}
		}
		if best < 0 {
			i++
			continue
		}
		p := &m.pats[best]
		exact := true
		for k, t := range toks[i : bestEnd+1] {
			if text.Fold(t.Text) != p.folded[k] {
				exact = false
				break
			}
		}
		out = append(out, Match{Ref: p.ref, Start: toks[i].Start, End: toks[bestEnd].End, ByteStart: toks[i].ByteStart, ByteEnd: toks[bestEnd].ByteEnd, Exact: exact})
		i = bestEnd + 1
	}
	return out
}

func (m *Matcher) caseOK(p int32, toks []text.Piece) bool {
	if !m.opts.CaseSensitive {
		return true
	}
	for k, t := range toks {
		if text.IsCapitalized(t.Text) != m.pats[p].caps[k] {
			return false
		}
	}
	return true
}

// Key reduces a folded token to its matching key for language lang.
func Key(folded, lang string) string {
	if folded == "and" || folded == "a" {
		return "and"
	}
	if lang != "cs" {
		return folded
	}
	return CzechStem(folded)
}

// CzechStem is text.StemCzech in its CzechNames variant: it strips a Czech
// case ending from a folded word and normalizes the stem's final consonant
// alternations. Words that are not all letters, and words shorter than
// four letters, keep their endings.
func CzechStem(w string) string { return text.StemCzech(w, text.CzechNames) }
