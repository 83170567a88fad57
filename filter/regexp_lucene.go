package filter

import (
	"fmt"
	"strconv"
	"strings"
)

// Lucene RegExp syntax flags (org.apache.lucene.util.automaton.RegExp).
const (
	rxFlagIntersection = 1 << iota // &
	rxFlagComplement               // ~
	rxFlagEmpty                    // #
	rxFlagAnyString                // @
	rxFlagAutomaton                // <identifier>, not supported
	rxFlagInterval                 // <n-m>
	rxFlagAll          = 0xff
	rxFlagNone         = 0
)

var rxFlagNames = map[string]int{
	"ALL":          rxFlagAll,
	"NONE":         rxFlagNone,
	"INTERSECTION": rxFlagIntersection,
	"COMPLEMENT":   rxFlagComplement,
	"EMPTY":        rxFlagEmpty,
	"ANYSTRING":    rxFlagAnyString,
	"INTERVAL":     rxFlagInterval,
}

// parseRxFlags decodes Elasticsearch's "flags" parameter ("" means ALL).
func parseRxFlags(s string) (int, error) {
	if strings.TrimSpace(s) == "" {
		return rxFlagAll, nil
	}
	f := 0
	for _, name := range strings.Split(s, "|") {
		v, ok := rxFlagNames[strings.ToUpper(strings.TrimSpace(name))]
		if !ok {
			return 0, fmt.Errorf("unknown regexp flag %q", name)
		}
		f |= v
	}
	return f, nil
}

// rxParser is a recursive-descent parser mirroring Lucene's RegExp grammar:
//
//	regexp     ::= unionexp
//	unionexp   ::= interexp '|' unionexp | interexp
//	interexp   ::= concatexp '&' interexp | concatexp          (INTERSECTION)
//	concatexp  ::= repeatexp concatexp | repeatexp
//	repeatexp  ::= repeatexp ('?' | '*' | '+' | '{n}' | '{n,}' | '{n,m}') | complexp
//	complexp   ::= '~' complexp | charclassexp                   (COMPLEMENT)
//	charclassexp ::= '[' '^'? charclass+ ']' | simpleexp
//	charclass  ::= charexp '-' charexp | charexp | '\' [dDsSwW]
//	simpleexp  ::= charexp | '.' | '#' | '@' | '"' chars '"' | '(' ')' | '(' unionexp ')' | '<' n '-' m '>'
//	charexp    ::= any rune | '\' any rune
type rxParser struct {
	b     *rxBuilder
	s     []rune
	pos   int
	flags int
	ci    bool
}

// compileLucene parses pattern into b and returns the root node.
func compileLucene(b *rxBuilder, pattern string, flags int, ci bool) (int32, error) {
	p := &rxParser{b: b, s: []rune(pattern), flags: flags, ci: ci}
	if len(p.s) > MaxRegexpLength {
		return 0, rxErrorf(ErrTooComplex, "regular expression longer than %d characters", MaxRegexpLength)
	}
	if len(p.s) == 0 {
		return rxIDEps, nil
	}
	e, err := p.union()
	if err != nil {
		return 0, err
	}
	if p.more() {
		return 0, p.errf("end-of-string expected")
	}
	if b.err != nil {
		return 0, b.err
	}
	return e, nil
}

func (p *rxParser) errf(format string, args ...any) error {
	return rxErrorf(ErrInvalid, "regexp: %s at position %d", fmt.Sprintf(format, args...), p.pos)
}

func (p *rxParser) more() bool         { return p.pos < len(p.s) }
func (p *rxParser) check(f int) bool   { return p.flags&f != 0 }
func (p *rxParser) peek(s string) bool { return p.more() && strings.ContainsRune(s, p.s[p.pos]) }

func (p *rxParser) match(c rune) bool {
	if p.more() && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *rxParser) next() (rune, error) {
	if !p.more() {
		return 0, p.errf("unexpected end-of-string")
	}
	p.pos++
	return p.s[p.pos-1], nil
}

func (p *rxParser) union() (int32, error) {
	e, err := p.inter()
	if err != nil {
		return 0, err
	}
	if p.match('|') {
		f, err := p.union()
		if err != nil {
			return 0, err
		}
		e = p.b.alt(e, f)
	}
	return e, p.b.err
}

func (p *rxParser) inter() (int32, error) {
	e, err := p.concat()
	if err != nil {
		return 0, err
	}
	if p.check(rxFlagIntersection) && p.match('&') {
		f, err := p.inter()
		if err != nil {
			return 0, err
		}
		e = p.b.and(e, f)
	}
	return e, p.b.err
}

func (p *rxParser) concat() (int32, error) {
	// Iterative over the sequence to keep recursion shallow on long patterns.
	var parts []int32
	for {
		e, err := p.repeat()
		if err != nil {
			return 0, err
		}
		parts = append(parts, e)
		if !p.more() || p.peek(")|") || (p.check(rxFlagIntersection) && p.peek("&")) {
			break
		}
	}
	e := parts[len(parts)-1]
	for i := len(parts) - 2; i >= 0; i-- {
		e = p.b.cat(parts[i], e)
	}
	return e, p.b.err
}

func (p *rxParser) repeat() (int32, error) {
	e, err := p.compl()
	if err != nil {
		return 0, err
	}
	for p.peek("?*+{") {
		switch {
		case p.match('?'):
			e = p.b.opt(e)
		case p.match('*'):
			e = p.b.star(e)
		case p.match('+'):
			e = p.b.repeat(e, 1, -1)
		case p.match('{'):
			n, err := p.int()
			if err != nil {
				return 0, err
			}
			m := n
			if p.match(',') {
				m = -1
				if p.peek("0123456789") {
					if m, err = p.int(); err != nil {
						return 0, err
					}
				}
			}
			if !p.match('}') {
				return 0, p.errf("expected '}'")
			}
			e = p.b.repeat(e, n, m)
		}
		if p.b.err != nil {
			return 0, p.b.err
		}
	}
	return e, nil
}

func (p *rxParser) int() (int, error) {
	start := p.pos
	for p.peek("0123456789") {
		p.pos++
	}
	if start == p.pos {
		return 0, p.errf("integer expected")
	}
	n, err := strconv.Atoi(string(p.s[start:p.pos]))
	if err != nil || n > rxMaxRepeat {
		return 0, rxErrorf(ErrTooComplex, "regexp: repetition count %s above %d", string(p.s[start:p.pos]), rxMaxRepeat)
	}
	return n, nil
}

func (p *rxParser) compl() (int32, error) {
	if p.check(rxFlagComplement) && p.match('~') {
		e, err := p.compl()
		if err != nil {
			return 0, err
		}
		return p.b.not(e), p.b.err
	}
	return p.charClassExp()
}

func (p *rxParser) charClassExp() (int32, error) {
	if !p.match('[') {
		return p.simple()
	}
	negate := p.match('^')
	var rs []rxRange
	for first := true; first || (p.more() && !p.peek("]")); first = false {
		cls, err := p.charClass()
		if err != nil {
			return 0, err
		}
		rs = append(rs, cls...)
	}
	if !p.match(']') {
		return 0, p.errf("expected ']'")
	}
	rs = normSet(rs)
	if p.ci {
		rs = foldSet(rs)
	}
	if negate {
		rs = complementSet(rs)
	}
	return p.b.set(rs), p.b.err
}

// predefined returns the ranges of \d, \s, \w and their negations.
func predefined(c rune) ([]rxRange, bool) {
	var rs []rxRange
	switch c {
	case 'd', 'D':
		rs = []rxRange{{'0', '9'}}
	case 's', 'S':
		rs = []rxRange{{'\t', '\r'}, {' ', ' '}}
	case 'w', 'W':
		rs = []rxRange{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	default:
		return nil, false
	}
	if c >= 'A' && c <= 'Z' {
		rs = complementSet(rs)
	}
	return rs, true
}

func (p *rxParser) charClass() ([]rxRange, error) {
	if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' {
		if rs, ok := predefined(p.s[p.pos+1]); ok {
			p.pos += 2
			return rs, nil
		}
	}
	c, err := p.charExp()
	if err != nil {
		return nil, err
	}
	if p.match('-') {
		d, err := p.charExp()
		if err != nil {
			return nil, err
		}
		if c > d {
			return nil, p.errf("invalid range %q-%q", c, d)
		}
		return []rxRange{{c, d}}, nil
	}
	return []rxRange{{c, c}}, nil
}

func (p *rxParser) charExp() (rune, error) {
	p.match('\\')
	return p.next()
}

// lit returns the node for one literal rune, case-folded if requested.
func (p *rxParser) lit(r rune) int32 {
	rs := []rxRange{{r, r}}
	if p.ci {
		rs = foldSet(rs)
	}
	return p.b.set(rs)
}

func (p *rxParser) simple() (int32, error) {
	switch {
	case p.match('.'):
		return rxIDAny, nil
	case p.check(rxFlagEmpty) && p.match('#'):
		return rxIDNone, nil
	case p.check(rxFlagAnyString) && p.match('@'):
		return rxIDAnyStr, nil
	case p.match('"'):
		start := p.pos
		for p.more() && !p.peek(`"`) {
			p.pos++
		}
		if !p.match('"') {
			return 0, p.errf("expected '\"'")
		}
		e := rxIDEps
		for i := p.pos - 2; i >= start; i-- {
			e = p.b.cat(p.lit(p.s[i]), e)
		}
		return e, p.b.err
	case p.match('('):
		if p.match(')') {
			return rxIDEps, nil
		}
		e, err := p.union()
		if err != nil {
			return 0, err
		}
		if !p.match(')') {
			return 0, p.errf("expected ')'")
		}
		return e, nil
	case p.check(rxFlagAutomaton|rxFlagInterval) && p.match('<'):
		start := p.pos
		for p.more() && !p.peek(">") {
			p.pos++
		}
		if !p.match('>') {
			return 0, p.errf("expected '>'")
		}
		s := string(p.s[start : p.pos-1])
		i := strings.IndexByte(s, '-')
		if i == -1 {
			return 0, rxErrorf(ErrUnsupported, "regexp: named automaton <%s>", s)
		}
		if !p.check(rxFlagInterval) {
			return 0, p.errf("illegal identifier")
		}
		if i == 0 || i == len(s)-1 || i != strings.LastIndexByte(s, '-') {
			return 0, p.errf("interval syntax error")
		}
		smin, smax := s[:i], s[i+1:]
		lo, err1 := strconv.ParseUint(smin, 10, 63)
		hi, err2 := strconv.ParseUint(smax, 10, 63)
		if err1 != nil || err2 != nil || lo > 1e17 || hi > 1e17 {
			return 0, p.errf("interval syntax error")
		}
		digits := 0
		if len(smin) == len(smax) {
			digits = len(smin)
		}
		if lo > hi {
			lo, hi = hi, lo
		}
		return p.interval(lo, hi, digits), p.b.err
	}
	if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' {
		if rs, ok := predefined(p.s[p.pos+1]); ok {
			p.pos += 2
			return p.b.set(rs), p.b.err
		}
	}
	c, err := p.charExp()
	if err != nil {
		return 0, err
	}
	return p.lit(c), p.b.err
}

// interval mirrors Lucene's Automata.makeDecimalInterval: decimal strings of
// the numbers lo..hi; with digits > 0 exactly that many digits (zero
// padded), else any number of leading zeros.
func (p *rxParser) interval(lo, hi uint64, digits int) int32 {
	b := p.b
	if digits > 0 {
		width := len(strconv.FormatUint(hi, 10))
		if width > digits {
			return b.fail(p.errf("interval bound %d wider than %d digits", hi, digits))
		}
		return p.digitRange(pad(lo, digits), pad(hi, digits))
	}
	var alts []int32
	for l := len(strconv.FormatUint(lo, 10)); l <= len(strconv.FormatUint(hi, 10)); l++ {
		low := uint64(1)
		for range l - 1 {
			low *= 10
		}
		high := low*10 - 1
		if l == 1 {
			low = 0
		}
		a, z := max(lo, low), min(hi, high)
		if a > z {
			continue
		}
		alts = append(alts, p.digitRange(pad(a, l), pad(z, l)))
	}
	return b.cat(b.star(b.char('0')), b.alt(alts...))
}

func pad(v uint64, width int) string {
	s := strconv.FormatUint(v, 10)
	return strings.Repeat("0", max(width-len(s), 0)) + s
}

// digitRange matches the decimal strings of equal length between lo and hi.
func (p *rxParser) digitRange(lo, hi string) int32 {
	b := p.b
	if lo == "" {
		return rxIDEps
	}
	digit := b.set([]rxRange{{'0', '9'}})
	anyDigits := func(n int) int32 { return b.repeat(digit, n, n) }
	if lo[0] == hi[0] {
		return b.cat(b.char(rune(lo[0])), p.digitRange(lo[1:], hi[1:]))
	}
	rest := len(lo) - 1
	if strings.Trim(lo[1:], "0") == "" && strings.Trim(hi[1:], "9") == "" {
		return b.cat(b.set([]rxRange{{rune(lo[0]), rune(hi[0])}}), anyDigits(rest))
	}
	alts := []int32{
		b.cat(b.char(rune(lo[0])), p.digitRange(lo[1:], strings.Repeat("9", rest))),
		b.cat(b.char(rune(hi[0])), p.digitRange(strings.Repeat("0", rest), hi[1:])),
	}
	if lo[0]+1 <= hi[0]-1 {
		alts = append(alts, b.cat(b.set([]rxRange{{rune(lo[0] + 1), rune(hi[0] - 1)}}), anyDigits(rest)))
	}
	return b.alt(alts...)
}
