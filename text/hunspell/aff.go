package hunspell

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// flag is a decoded affix flag: the rune for single-character flags, the
// two runes (16 bits each) for FLAG long, the number for FLAG num.
type flag = uint32

// flagMode is the FLAG directive of an .aff file.
type flagMode int

const (
	flagChar flagMode = iota
	flagLong
	flagNum
)

// affix is one PFX or SFX rule.
type affix struct {
	flag       flag
	cross      bool   // cross product allowed (Y in the block header)
	strip, add string // as the dictionary spells them; "" for 0
	cond       condition
	cont       []flag // continuation flags ("add/CONT"); nil if none
}

// hasCont reports whether f is one of the continuation flags of a.
func (a *affix) hasCont(f flag) bool {
	for _, c := range a.cont {
		if c == f {
			return true
		}
	}
	return false
}

// affixGroup holds the rules that share Key(add) and Key(strip).
type affixGroup struct {
	stripKey string
	rules    []*affix
}

// affixIndex maps Key(add) to the groups of rules with that key.
type affixIndex struct {
	m      map[string][]affixGroup
	maxLen int // longest key in m, in bytes
}

func (x *affixIndex) add(addKey, stripKey string, a *affix) {
	if x.m == nil {
		x.m = make(map[string][]affixGroup)
	}
	gs := x.m[addKey]
	for i := range gs {
		if gs[i].stripKey == stripKey {
			gs[i].rules = append(gs[i].rules, a)
			return
		}
	}
	x.m[addKey] = append(gs, affixGroup{stripKey: stripKey, rules: []*affix{a}})
	x.maxLen = max(x.maxLen, len(addKey))
}

// affData is what parseAff extracts from an .aff file.
type affData struct {
	mode         flagMode
	aliases      [][]flag // AF, 1-based in the .dic; aliases[0] is unused
	forbidden    flag
	hasForbidden bool
	needAffix    flag
	hasNeedAffix bool
	fullStrip    bool
	prefixes     []*affix
	suffixes     []*affix
	contRules    int // rules with continuation flags
}

// affParser parses an .aff file that is already decoded to UTF-8.
type affParser struct {
	name string
	d    affData
	// open affix block
	blockKind  string // "PFX" or "SFX"; "" when no block is open
	blockFlag  string
	blockCross bool
	blockLeft  int
	aliasLeft  int
}

func (p *affParser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("hunspell: parse %s line %d: %w: %s", p.name, line, ErrBadDictionary, fmt.Sprintf(format, args...))
}

// parseFlags decodes a flag string such as "ABC", "AaBb" or "1,23".
func parseFlags(mode flagMode, s string) ([]flag, bool) {
	var fs []flag
	switch mode {
	case flagChar:
		fs = make([]flag, 0, utf8.RuneCountInString(s))
		for _, r := range s {
			fs = append(fs, flag(r))
		}
	case flagLong:
		rs := []rune(s)
		if len(rs)%2 != 0 {
			return nil, false
		}
		for i := 0; i < len(rs); i += 2 {
			if rs[i] > 0xFFFF || rs[i+1] > 0xFFFF {
				return nil, false
			}
			fs = append(fs, flag(rs[i])<<16|flag(rs[i+1]))
		}
	case flagNum:
		for f := range strings.SplitSeq(s, ",") {
			n, err := strconv.ParseUint(f, 10, 16)
			if err != nil {
				return nil, false
			}
			fs = append(fs, flag(n))
		}
	}
	return fs, true
}

// parseOneFlag decodes a flag string that must hold exactly one flag.
func parseOneFlag(mode flagMode, s string) (flag, bool) {
	fs, ok := parseFlags(mode, s)
	if !ok || len(fs) != 1 {
		return 0, false
	}
	return fs[0], true
}

// findFlagMode returns the FLAG directive's mode.
func findFlagMode(text string) (flagMode, error) {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "FLAG" {
			continue
		}
		switch strings.ToLower(f[1]) {
		case "long":
			return flagLong, nil
		case "num":
			return flagNum, nil
		case "utf-8", "char":
			return flagChar, nil
		}
		return 0, fmt.Errorf("%w: unknown FLAG %q", ErrBadDictionary, f[1])
	}
	return flagChar, nil
}

// parseAff parses the decoded text of an .aff file.
func parseAff(name, text string) (*affData, error) {
	mode, err := findFlagMode(text)
	if err != nil {
		return nil, fmt.Errorf("hunspell: parse %s: %w", name, err)
	}
	p := &affParser{name: name, d: affData{mode: mode}}
	n := 0
	for line := range strings.Lines(text) {
		n++
		if !utf8.ValidString(line) {
			return nil, p.errorf(n, "invalid UTF-8")
		}
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if err := p.line(n, f); err != nil {
			return nil, err
		}
	}
	if p.blockLeft > 0 {
		return nil, p.errorf(n, "%s %s block ends %d rules early", p.blockKind, p.blockFlag, p.blockLeft)
	}
	if p.aliasLeft > 0 {
		return nil, p.errorf(n, "AF table ends %d entries early", p.aliasLeft)
	}
	return &p.d, nil
}

func (p *affParser) line(n int, f []string) error {
	if p.blockLeft > 0 {
		if f[0] != p.blockKind || len(f) < 2 || f[1] != p.blockFlag {
			return p.errorf(n, "expected %d more %s %s rules, got %q", p.blockLeft, p.blockKind, p.blockFlag, strings.Join(f, " "))
		}
		return p.rule(n, f)
	}
	if p.aliasLeft > 0 && f[0] != "AF" {
		return p.errorf(n, "expected %d more AF entries", p.aliasLeft)
	}
	switch f[0] {
	case "PFX", "SFX":
		return p.header(n, f)
	case "AF":
		if p.aliasLeft > 0 {
			fs, ok := parseFlags(p.d.mode, argOrEmpty(f))
			if !ok {
				return p.errorf(n, "bad AF flags %q", argOrEmpty(f))
			}
			p.d.aliases = append(p.d.aliases, fs)
			p.aliasLeft--
			return nil
		}
		if p.d.aliases != nil {
			return p.errorf(n, "second AF table")
		}
		cnt, err := strconv.Atoi(argOrEmpty(f))
		if err != nil || cnt < 0 {
			return p.errorf(n, "bad AF count %q", argOrEmpty(f))
		}
		p.d.aliases = make([][]flag, 1, cnt+1)
		p.aliasLeft = cnt
	case "FORBIDDENWORD", "NEEDAFFIX", "PSEUDOROOT":
		fl, ok := parseOneFlag(p.d.mode, argOrEmpty(f))
		if !ok {
			return p.errorf(n, "bad %s flag %q", f[0], argOrEmpty(f))
		}
		if f[0] == "FORBIDDENWORD" {
			p.d.forbidden, p.d.hasForbidden = fl, true
		} else {
			p.d.needAffix, p.d.hasNeedAffix = fl, true
		}
	case "FULLSTRIP":
		p.d.fullStrip = true
	}
	return nil
}

func argOrEmpty(f []string) string {
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

// header parses "SFX flag Y|N count".
func (p *affParser) header(n int, f []string) error {
	if len(f) < 4 || (f[2] != "Y" && f[2] != "N") {
		return p.errorf(n, "bad %s header %q", f[0], strings.Join(f, " "))
	}
	cnt, err := strconv.Atoi(f[3])
	if err != nil || cnt < 0 {
		return p.errorf(n, "bad %s rule count %q", f[0], f[3])
	}
	if _, ok := parseOneFlag(p.d.mode, f[1]); !ok {
		return p.errorf(n, "bad %s flag %q", f[0], f[1])
	}
	p.blockKind, p.blockFlag, p.blockCross, p.blockLeft = f[0], f[1], f[2] == "Y", cnt
	return nil
}

// rule parses "SFX flag strip add[/contflags] [condition [morph...]]".
func (p *affParser) rule(n int, f []string) error {
	p.blockLeft--
	if len(f) < 4 {
		return p.errorf(n, "bad %s rule %q", f[0], strings.Join(f, " "))
	}
	fl, _ := parseOneFlag(p.d.mode, f[1]) // validated by header
	a := &affix{flag: fl, cross: p.blockCross, strip: f[2], add: f[3]}
	if i := strings.IndexByte(a.add, '/'); i >= 0 {
		cs := a.add[i+1:]
		a.add = a.add[:i]
		if cs != "" {
			fs, ok := p.contFlags(cs)
			if !ok {
				return p.errorf(n, "bad continuation flags %q", cs)
			}
			a.cont = fs
			p.d.contRules++
		}
	}
	if a.strip == "0" {
		a.strip = ""
	}
	if a.add == "0" {
		a.add = ""
	}
	if len(f) >= 5 && !strings.HasPrefix(f[4], "#") {
		c, err := parseCondition(f[4])
		if err != nil {
			return p.errorf(n, "bad condition %q", f[4])
		}
		a.cond = c
	}
	if f[0] == "PFX" {
		p.d.prefixes = append(p.d.prefixes, a)
	} else {
		p.d.suffixes = append(p.d.suffixes, a)
	}
	return nil
}

// contFlags decodes the continuation flags of an affix rule: flags in the
// FLAG mode, or the number of an AF alias when the .aff has an AF table
// (as in Hunspell, the table must come before the rules that use it).
func (p *affParser) contFlags(s string) ([]flag, bool) {
	if p.d.aliases == nil {
		return parseFlags(p.d.mode, s)
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 1 || i >= len(p.d.aliases) {
		return nil, false
	}
	return p.d.aliases[i], true
}
