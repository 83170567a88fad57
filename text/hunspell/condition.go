package hunspell

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// condElem is one position of an affix condition: any character, or a
// character from (or, when neg, not from) set.
type condElem struct {
	any bool
	neg bool
	set string
}

func (e condElem) match(r rune) bool {
	return e.any || strings.ContainsRune(e.set, r) != e.neg
}

// condition is a compiled Hunspell affix condition; nil matches anything.
type condition []condElem

var errBadCondition = errors.New("bad condition")

// parseCondition compiles a condition such as "[^aeo]k" or ".".
func parseCondition(p string) (condition, error) {
	var c condition
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			c = append(c, condElem{any: true})
			i++
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, errBadCondition
			}
			set := p[i+1 : i+end]
			e := condElem{}
			if strings.HasPrefix(set, "^") {
				e.neg, set = true, set[1:]
			}
			e.set = set
			c = append(c, e)
			i += end + 1
		case ']':
			return nil, errBadCondition
		default:
			_, n := utf8.DecodeRuneInString(p[i:])
			c = append(c, condElem{set: p[i : i+n]})
			i += n
		}
	}
	for _, e := range c {
		if !e.any {
			return c, nil
		}
	}
	// Only dots: the condition still requires that many characters.
	if len(c) <= 1 {
		return nil, nil
	}
	return c, nil
}

// matchEnd reports whether the condition matches the end of s.
func (c condition) matchEnd(s string) bool {
	i := len(s)
	for k := len(c) - 1; k >= 0; k-- {
		if i == 0 {
			return false
		}
		r, n := utf8.DecodeLastRuneInString(s[:i])
		i -= n
		if !c[k].match(r) {
			return false
		}
	}
	return true
}

// matchStart reports whether the condition matches the start of s.
func (c condition) matchStart(s string) bool {
	i := 0
	for _, e := range c {
		if i == len(s) {
			return false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if !e.match(r) {
			return false
		}
	}
	return true
}
