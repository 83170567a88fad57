package embed

import (
	"bytes"
	"math"
	"strconv"
)

// remoteItem is one embedding of an answer: its index, when the answer
// gave one, and its vector.
type remoteItem struct {
	index    int
	hasIndex bool
	vec      []float32
}

// parseEmbeddings decodes an OpenAI-compatible embeddings answer
// ({"data": [{"index": i, "embedding": [x, …]}, …], …}) without
// reflection: a bulk ingest spends most of its time on the vector side in
// this decode when encoding/json does it (about 60 % of it in reflection
// and validation, the rest in strconv). The vectors share one backing
// array. ok is false for anything outside the plain shape — malformed
// JSON, a key that differs from "data", "index" or "embedding" only in
// case, a repeated key, null where a value is expected, a number out of
// float32 range, nesting deeper than 64 levels — and the caller then
// decodes with encoding/json, which gives the answer and its errors their
// standard meaning. For every answer it accepts, parseEmbeddings returns
// what encoding/json decodes into remoteResponse (TestParseEmbeddingsAgrees).
func parseEmbeddings(b []byte) (items []remoteItem, ok bool) {
	s := jsonScan{b: b}
	if !s.eat('{') {
		return nil, false
	}
	seen := false
	if !s.eat('}') {
		for {
			key, ok := s.key()
			if !ok {
				return nil, false
			}
			switch {
			case string(key) == "data":
				if seen {
					return nil, false
				}
				seen = true
				if items, ok = s.data(); !ok {
					return nil, false
				}
			case bytes.EqualFold(key, []byte("data")):
				return nil, false
			default:
				if !s.skip(0) {
					return nil, false
				}
			}
			if s.eat(',') {
				continue
			}
			if !s.eat('}') {
				return nil, false
			}
			break
		}
	}
	s.ws()
	if s.i != len(s.b) {
		return nil, false
	}
	return items, true
}

// jsonScan is parseEmbeddings' cursor over the answer.
type jsonScan struct {
	b    []byte
	i    int
	vecs []float32 // the backing array the vectors are cut from

	// first is the offset of the first number read into vecs and count
	// the numbers read: they estimate the size of the numbers to come.
	first, count int
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat skips white space and then c, if c is next.
func (s *jsonScan) eat(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// key reads an object key without escapes and the colon after it.
func (s *jsonScan) key() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			k := s.b[start:s.i]
			s.i++
			return k, s.eat(':')
		case c == '\\' || c < 0x20:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// data reads the array of embeddings.
func (s *jsonScan) data() ([]remoteItem, bool) {
	if !s.eat('[') {
		return nil, false
	}
	items := []remoteItem{}
	if s.eat(']') {
		return items, true
	}
	for {
		it, ok := s.item()
		if !ok {
			return nil, false
		}
		items = append(items, it)
		if s.eat(',') {
			continue
		}
		return items, s.eat(']')
	}
}

// item reads one {"index": i, "embedding": [...]} object.
func (s *jsonScan) item() (remoteItem, bool) {
	var it remoteItem
	if !s.eat('{') {
		return it, false
	}
	if s.eat('}') {
		return it, false // no embedding: encoding/json's answer (and error)
	}
	hasVec := false
	for {
		key, ok := s.key()
		if !ok {
			return it, false
		}
		switch {
		case string(key) == "index":
			if it.hasIndex {
				return it, false
			}
			if it.index, ok = s.int(); !ok {
				return it, false
			}
			it.hasIndex = true
		case string(key) == "embedding":
			if hasVec {
				return it, false
			}
			if it.vec, ok = s.floats(); !ok {
				return it, false
			}
			hasVec = true
		case bytes.EqualFold(key, []byte("index")), bytes.EqualFold(key, []byte("embedding")):
			return it, false
		default:
			if !s.skip(1) {
				return it, false
			}
		}
		if s.eat(',') {
			continue
		}
		return it, hasVec && s.eat('}')
	}
}

// int reads an integer (no fraction, no exponent).
func (s *jsonScan) int() (int, bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || s.i-digits > 1 && s.b[digits] == '0' || s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	return n, err == nil
}

// floats reads an array of numbers, appending them to the backing array.
func (s *jsonScan) floats() ([]float32, bool) {
	if !s.eat('[') {
		return nil, false
	}
	start := len(s.vecs)
	if !s.eat(']') {
		for {
			s.ws()
			f, ok := s.float()
			if !ok {
				return nil, false
			}
			if len(s.vecs) == cap(s.vecs) {
				// A new backing array sized for the numbers still to come
				// at the bytes per number seen so far (the answer is mostly
				// vectors); earlier vectors keep the old one, so only this
				// vector's numbers move.
				per := 8
				if s.count > 0 {
					per = max((s.i-s.first)/s.count, 2)
				}
				grown := make([]float32, 0, len(s.vecs)-start+(len(s.b)-s.i)/per+64)
				s.vecs = append(grown, s.vecs[start:]...)
				start = 0
			}
			if s.count == 0 {
				s.first = s.i
			}
			s.count++
			s.vecs = append(s.vecs, f)
			if s.eat(',') {
				continue
			}
			if !s.eat(']') {
				return nil, false
			}
			break
		}
	}
	if start == len(s.vecs) {
		return []float32{}, true // as encoding/json decodes []
	}
	return s.vecs[start:len(s.vecs):len(s.vecs)], true
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// float reads a JSON number as strconv.ParseFloat(s, 32) does. The common
// case — at most 19 significant digits and a decimal exponent within ±22 —
// is one exact float64 multiplication or division (Clinger's fast path),
// correctly rounded; rounding that float64 again to float32 gives the
// correctly rounded float32 unless the float64 lies exactly halfway
// between two float32s (then strconv decides), and outside float32's
// normal range strconv decides too.
func (s *jsonScan) float() (float32, bool) {
	b, start := s.b, s.i
	i := s.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var m uint64
	nd := 0   // significant digits in m
	frac := 0 // digits after the point in m
	if i < len(b) && b[i] == '0' {
		i++
	} else if i < len(b) && b[i] >= '1' && b[i] <= '9' {
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if nd < 19 {
				m = m*10 + uint64(b[i]-'0')
			}
			nd++
		}
	} else {
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d0 := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if m == 0 && b[i] == '0' {
				frac++ // a leading zero: no significant digit yet
				continue
			}
			if nd < 19 {
				m = m*10 + uint64(b[i]-'0')
				frac++
			}
			nd++
		}
		if i == d0 {
			return 0, false
		}
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		d0 := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if exp < 10000 {
				exp = exp*10 + int(b[i]-'0')
			}
		}
		if i == d0 {
			return 0, false
		}
		if eneg {
			exp = -exp
		}
	}
	s.i = i
	if m == 0 && nd == 0 {
		if neg {
			return float32(math.Copysign(0, -1)), true
		}
		return 0, true
	}
	if e10 := exp - frac; nd <= 19 && m <= 1<<53 && e10 >= -22 && e10 <= 22 {
		d := float64(m)
		if e10 < 0 {
			d /= pow10[-e10]
		} else {
			d *= pow10[e10]
		}
		if d >= 0x1p-126 && d < math.MaxFloat32 && math.Float64bits(d)&(1<<29-1) != 1<<28 {
			if neg {
				d = -d
			}
			return float32(d), true
		}
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 32)
	return float32(f), err == nil
}

// skip skips one JSON value, checking its syntax; depth counts the
// enclosing arrays and objects.
func (s *jsonScan) skip(depth int) bool {
	if depth > 64 {
		return false
	}
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '{':
		s.i++
		if s.eat('}') {
			return true
		}
		for {
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != '"' || !s.skipString() || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
			if s.eat(',') {
				continue
			}
			return s.eat('}')
		}
	case c == '[':
		s.i++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(',') {
				continue
			}
			return s.eat(']')
		}
	case c == '-' || c >= '0' && c <= '9':
		return s.skipNumber()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return true
			}
		}
		return false
	}
}

// skipString skips a string, checking its escapes.
func (s *jsonScan) skipString() bool {
	s.i++ // the opening quote
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.i++
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 >= len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
		s.i++
	}
	return false
}

// skipNumber skips a number, checking its grammar.
func (s *jsonScan) skipNumber() bool {
	b, i := s.b, s.i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d0 := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d0 := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d0 {
			return false
		}
	}
	s.i = i
	return true
}
