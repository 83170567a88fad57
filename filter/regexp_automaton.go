package filter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unicode"
)

// This file holds the automaton behind Regexp: regular expressions with
// complement and intersection as hash-consed terms, matched by Brzozowski
// derivatives. Every distinct derivative is one state of a lazily built DFA
// and transitions are memoized, so scanning a term dictionary costs a map
// look-up per rune once the states it needs exist.

type rxKind uint8

const (
	rxNone rxKind = iota // ∅, the empty language
	rxEps                // the empty string
	rxSet                // one rune from a set
	rxCat                // concatenation of two nodes
	rxAlt                // union of several nodes
	rxAnd                // intersection of several nodes
	rxNot                // complement
	rxStar               // Kleene star
)

// rxRange is an inclusive range of runes.
type rxRange struct{ lo, hi rune }

type rxNode struct {
	kind     rxKind
	nullable bool
	set      []rxRange
	kids     []int32
}

// Node ids fixed by newRxBuilder.
const (
	rxIDNone   int32 = 0
	rxIDEps    int32 = 1
	rxIDAny    int32 = 2 // any single rune
	rxIDAnyStr int32 = 3 // any string
)

// Default complexity limits.
const (
	// DefaultMaxDeterminizedStates is the default of Regexp.MaxDeterminizedStates
	// (the Elasticsearch default).
	DefaultMaxDeterminizedStates = 10000
	// MaxRegexpLength is the longest accepted pattern in runes
	// (Elasticsearch's index.max_regex_length default).
	MaxRegexpLength = 1000
	// rxMaxNodes bounds the terms built while compiling and matching.
	rxMaxNodes = 200000
	// rxMaxRepeat bounds n and m of {n,m}.
	rxMaxRepeat = 1000
)

// rxBuilder interns nodes and memoizes derivatives.
type rxBuilder struct {
	nodes     []rxNode
	intern    map[string]int32
	deriv     map[uint64]int32
	isState   []bool
	ascii     []*[128]int32 // by state id: cached ASCII transitions, -1 unknown
	numStates int
	maxStates int
	key       []byte
	err       error
}

func newRxBuilder(maxStates int) *rxBuilder {
	b := &rxBuilder{intern: make(map[string]int32), deriv: make(map[uint64]int32), maxStates: maxStates}
	b.add(rxNode{kind: rxNone})
	b.add(rxNode{kind: rxEps, nullable: true})
	b.add(rxNode{kind: rxSet, set: []rxRange{{0, unicode.MaxRune}}})
	b.add(rxNode{kind: rxStar, nullable: true, kids: []int32{rxIDAny}})
	return b
}

func (b *rxBuilder) fail(err error) int32 {
	if b.err == nil {
		b.err = err
	}
	return rxIDNone
}

// add interns n and returns its id.
func (b *rxBuilder) add(n rxNode) int32 {
	k := b.key[:0]
	k = append(k, byte(n.kind))
	for _, r := range n.set {
		k = binary.AppendUvarint(k, uint64(r.lo))
		k = binary.AppendUvarint(k, uint64(r.hi))
	}
	for _, id := range n.kids {
		k = binary.LittleEndian.AppendUint32(k, uint32(id))
	}
	b.key = k
	if id, ok := b.intern[string(k)]; ok {
		return id
	}
	if len(b.nodes) >= rxMaxNodes {
		return b.fail(rxErrorf(ErrTooComplex, "regular expression needs more than %d automaton nodes", rxMaxNodes))
	}
	id := int32(len(b.nodes))
	b.nodes = append(b.nodes, n)
	b.intern[string(k)] = id
	return id
}

// normSet sorts and merges ranges.
func normSet(rs []rxRange) []rxRange {
	slices.SortFunc(rs, func(a, b rxRange) int { return int(a.lo) - int(b.lo) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

func (b *rxBuilder) set(rs []rxRange) int32 {
	rs = normSet(slices.Clone(rs))
	if len(rs) == 0 {
		return rxIDNone
	}
	return b.add(rxNode{kind: rxSet, set: rs})
}

func (b *rxBuilder) char(r rune) int32 { return b.set([]rxRange{{r, r}}) }

// complementSet returns the runes not in rs (rs normalized).
func complementSet(rs []rxRange) []rxRange {
	var out []rxRange
	next := rune(0)
	for _, r := range rs {
		if r.lo > next {
			out = append(out, rxRange{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, rxRange{next, unicode.MaxRune})
	}
	return out
}

func (b *rxBuilder) cat(x, y int32) int32 {
	switch {
	case x == rxIDNone || y == rxIDNone:
		return rxIDNone
	case x == rxIDEps:
		return y
	case y == rxIDEps:
		return x
	}
	if n := b.nodes[x]; n.kind == rxCat {
		return b.cat(n.kids[0], b.cat(n.kids[1], y))
	}
	return b.add(rxNode{kind: rxCat, nullable: b.nodes[x].nullable && b.nodes[y].nullable, kids: []int32{x, y}})
}

func (b *rxBuilder) alt(ids ...int32) int32 {
	var kids []int32
	var sets []rxRange
	var walk func(id int32)
	walk = func(id int32) {
		n := b.nodes[id]
		switch n.kind {
		case rxNone:
		case rxAlt:
			for _, k := range n.kids {
				walk(k)
			}
		case rxSet:
			sets = append(sets, n.set...)
		default:
			kids = append(kids, id)
		}
	}
	for _, id := range ids {
		walk(id)
	}
	if len(sets) > 0 {
		kids = append(kids, b.set(sets))
	}
	slices.Sort(kids)
	kids = slices.Compact(kids)
	switch {
	case len(kids) == 0:
		return rxIDNone
	case len(kids) == 1:
		return kids[0]
	case slices.Contains(kids, rxIDAnyStr):
		return rxIDAnyStr
	}
	nullable := false
	for _, k := range kids {
		nullable = nullable || b.nodes[k].nullable
	}
	return b.add(rxNode{kind: rxAlt, nullable: nullable, kids: kids})
}

func (b *rxBuilder) and(ids ...int32) int32 {
	var kids []int32
	var walk func(id int32)
	walk = func(id int32) {
		n := b.nodes[id]
		switch {
		case n.kind == rxAnd:
			for _, k := range n.kids {
				walk(k)
			}
		case id == rxIDAnyStr:
		default:
			kids = append(kids, id)
		}
	}
	for _, id := range ids {
		walk(id)
	}
	slices.Sort(kids)
	kids = slices.Compact(kids)
	switch {
	case len(kids) == 0:
		return rxIDAnyStr
	case slices.Contains(kids, rxIDNone):
		return rxIDNone
	case len(kids) == 1:
		return kids[0]
	}
	nullable := true
	for _, k := range kids {
		nullable = nullable && b.nodes[k].nullable
	}
	return b.add(rxNode{kind: rxAnd, nullable: nullable, kids: kids})
}

func (b *rxBuilder) not(x int32) int32 {
	switch {
	case b.nodes[x].kind == rxNot:
		return b.nodes[x].kids[0]
	case x == rxIDNone:
		return rxIDAnyStr
	case x == rxIDAnyStr:
		return rxIDNone
	}
	return b.add(rxNode{kind: rxNot, nullable: !b.nodes[x].nullable, kids: []int32{x}})
}

func (b *rxBuilder) star(x int32) int32 {
	switch {
	case x == rxIDNone || x == rxIDEps:
		return rxIDEps
	case b.nodes[x].kind == rxStar:
		return x
	}
	return b.add(rxNode{kind: rxStar, nullable: true, kids: []int32{x}})
}

func (b *rxBuilder) opt(x int32) int32 { return b.alt(x, rxIDEps) }

// repeat returns x{lo,hi}; hi < 0 means unbounded.
func (b *rxBuilder) repeat(x int32, lo, hi int) int32 {
	if hi >= 0 && lo > hi {
		return rxIDNone
	}
	var tail int32
	if hi < 0 {
		tail = b.star(x)
	} else {
		tail = rxIDEps
		for range hi - lo {
			tail = b.opt(b.cat(x, tail))
			if b.err != nil {
				return rxIDNone
			}
		}
	}
	out := tail
	for range lo {
		out = b.cat(x, out)
		if b.err != nil {
			return rxIDNone
		}
	}
	return out
}

func setContains(rs []rxRange, r rune) bool {
	i, found := slices.BinarySearchFunc(rs, r, func(x rxRange, r rune) int {
		switch {
		case x.hi < r:
			return -1
		case x.lo > r:
			return 1
		}
		return 0
	})
	_ = i
	return found
}

// derive returns the derivative of node id by rune r.
func (b *rxBuilder) derive(id int32, r rune) int32 {
	key := uint64(id)<<21 | uint64(r)
	if d, ok := b.deriv[key]; ok {
		return d
	}
	if b.err != nil {
		return rxIDNone
	}
	n := b.nodes[id]
	var d int32
	switch n.kind {
	case rxNone, rxEps:
		d = rxIDNone
	case rxSet:
		d = rxIDNone
		if setContains(n.set, r) {
			d = rxIDEps
		}
	case rxCat:
		d = b.cat(b.derive(n.kids[0], r), n.kids[1])
		if b.nodes[n.kids[0]].nullable {
			d = b.alt(d, b.derive(n.kids[1], r))
		}
	case rxStar:
		d = b.cat(b.derive(n.kids[0], r), id)
	case rxAlt, rxAnd:
		ds := make([]int32, len(n.kids))
		for i, k := range n.kids {
			ds[i] = b.derive(k, r)
		}
		if n.kind == rxAlt {
			d = b.alt(ds...)
		} else {
			d = b.and(ds...)
		}
	case rxNot:
		d = b.not(b.derive(n.kids[0], r))
	}
	if b.err != nil {
		return rxIDNone
	}
	b.deriv[key] = d
	return d
}

// step is one DFA transition; it counts distinct states against the limit.
// ASCII transitions of a state are cached in a dense table.
func (b *rxBuilder) step(state int32, r rune) int32 {
	if r < 128 && int(state) < len(b.ascii) {
		if tab := b.ascii[state]; tab != nil && tab[r] >= 0 {
			return tab[r]
		}
	}
	d := b.derive(state, r)
	b.markState(d)
	if r < 128 && b.err == nil {
		for int(state) >= len(b.ascii) {
			b.ascii = append(b.ascii, nil)
		}
		tab := b.ascii[state]
		if tab == nil {
			tab = new([128]int32)
			for i := range tab {
				tab[i] = -1
			}
			b.ascii[state] = tab
		}
		tab[r] = d
	}
	return d
}

func (b *rxBuilder) markState(id int32) {
	for int(id) >= len(b.isState) {
		b.isState = append(b.isState, false)
	}
	if !b.isState[id] {
		b.isState[id] = true
		b.numStates++
		if b.numStates > b.maxStates {
			b.fail(rxErrorf(ErrTooComplex, "regular expression needs more than %d determinized states", b.maxStates))
		}
	}
}

// literalPrefix returns the string every match of id starts with.
func (b *rxBuilder) literalPrefix(id int32) string {
	var out []rune
	for {
		n := b.nodes[id]
		single := func(x rxNode) (rune, bool) {
			if x.kind == rxSet && len(x.set) == 1 && x.set[0].lo == x.set[0].hi {
				return x.set[0].lo, true
			}
			return 0, false
		}
		if r, ok := single(n); ok {
			return string(append(out, r))
		}
		if n.kind != rxCat {
			return string(out)
		}
		r, ok := single(b.nodes[n.kids[0]])
		if !ok {
			return string(out)
		}
		out = append(out, r)
		id = n.kids[1]
	}
}

// foldSet adds the simple case folds of every rune in rs. Only runes of
// unicode.CaseRanges can fold, so the work is bounded whatever the ranges.
func foldSet(rs []rxRange) []rxRange {
	out := slices.Clone(rs)
	for _, r := range rs {
		for _, cr := range unicode.CaseRanges {
			lo, hi := max(r.lo, rune(cr.Lo)), min(r.hi, rune(cr.Hi))
			for c := lo; c <= hi; c++ {
				for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
					if f < r.lo || f > r.hi {
						out = append(out, rxRange{f, f})
					}
				}
			}
		}
	}
	return normSet(out)
}

// rxError is a regular expression error; Error includes the sentinel's text
// and Unwrap returns the sentinel.
type rxError struct {
	kind error
	msg  string
}

func (e *rxError) Error() string { return e.kind.Error() + ": " + e.msg }
func (e *rxError) Unwrap() error { return e.kind }

func rxErrorf(kind error, format string, args ...any) error {
	return &rxError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// rxErrorAt prefixes a regular expression error with the path of its clause.
func rxErrorAt(path string, err error) error {
	var re *rxError
	if errors.As(err, &re) {
		return errorf(re.kind, "%s: %s", path, re.msg)
	}
	return fmt.Errorf("%s: %w", path, err)
}
