package ingest

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// pdfMaxCMapSize bounds the bytes read from one ToUnicode stream.
const pdfMaxCMapSize = 4 << 20

// pdfFont is what text extraction needs of a PDF font: how to split a
// string into character codes, each code's Unicode text and advance width.
type pdfFont struct {
	name string
	// twoByte says codes are two bytes (composite fonts); simple fonts use
	// one byte per code.
	twoByte bool
	// toUni maps codes to text from the ToUnicode CMap; nil when absent.
	toUni *pdfCMap
	// simple holds the decoded text of the 256 codes of a simple font
	// without ToUnicode ("" for unknown codes).
	simple *[256]string
	// unusable says the font has no usable text mapping: its text is
	// dropped.
	unusable bool
	// widths of a simple font, indexed by code - firstChar, in glyph
	// space units (1/1000 text space unless widthScale says otherwise).
	firstChar  int
	widths     []float64
	missing    float64
	widthScale float64
	// Composite font widths (W array and DW).
	cidWidths map[int]float64
	cidRanges []pdfCIDRange
	dw        float64
	bold      bool
}

// pdfCIDRange is a "first last width" entry of a W array.
type pdfCIDRange struct {
	first, last int
	w           float64
}

// pdfLoadFont reads the font dictionary v.
func pdfLoadFont(v pdf.Value) *pdfFont {
	f := &pdfFont{widthScale: 0.001, dw: 1000}
	base := v.Key("BaseFont").Name()
	if i := strings.IndexByte(base, '+'); i >= 0 {
		base = base[i+1:]
	}
	f.name = base
	lb := strings.ToLower(base)
	f.bold = strings.Contains(lb, "bold") || strings.Contains(lb, "black") || strings.Contains(lb, "heavy") || strings.Contains(lb, "-medi") || strings.HasSuffix(lb, "-bd")
	subtype := v.Key("Subtype").Name()
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.toUni = pdfParseCMap(tu)
	}
	if subtype == "Type0" {
		f.twoByte = true
		enc := v.Key("Encoding").Name()
		if f.toUni != nil && enc != "Identity-H" && enc != "Identity-V" && f.toUni.oneByteSpace() {
			f.twoByte = false
		}
		desc := v.Key("DescendantFonts").Index(0)
		if dw := desc.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.dw = dw.Float64()
		}
		f.loadCIDWidths(desc.Key("W"))
		if f.toUni == nil {
			// Without ToUnicode, character codes of a composite font are
			// glyph ids or CIDs: only the UCS-2 CMaps give text.
			if strings.Contains(enc, "UCS2") || strings.Contains(enc, "UTF16") {
				f.toUni = &pdfCMap{utf16: true}
			} else {
				f.unusable = true
			}
		}
		return f
	}
	if subtype == "Type3" {
		if m := v.Key("FontMatrix"); m.Len() == 6 && m.Index(0).Float64() != 0 {
			f.widthScale = m.Index(0).Float64()
		}
	}
	f.firstChar = int(v.Key("FirstChar").Int64())
	if w := v.Key("Widths"); w.Kind() == pdf.Array {
		n := min(w.Len(), 256)
		f.widths = make([]float64, n)
		for i := range n {
			f.widths[i] = w.Index(i).Float64()
		}
	}
	f.missing = v.Key("FontDescriptor").Key("MissingWidth").Float64()
	// The encoding backs codes a sparse ToUnicode leaves out.
	f.simple = pdfSimpleTable(v)
	return f
}

// loadCIDWidths reads the W array of a CIDFont.
func (f *pdfFont) loadCIDWidths(w pdf.Value) {
	n := w.Len()
	for i := 0; i+1 < n && i < 1<<16; {
		first := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			if f.cidWidths == nil {
				f.cidWidths = map[int]float64{}
			}
			for j := range min(next.Len(), 1<<16) {
				f.cidWidths[first+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= n {
			break
		}
		f.cidRanges = append(f.cidRanges, pdfCIDRange{first, int(next.Int64()), w.Index(i + 2).Float64()})
		i += 3
	}
}

// width returns the advance of code in text space units (before the font
// size is applied).
func (f *pdfFont) width(code int) float64 {
	if f.twoByte {
		if w, ok := f.cidWidths[code]; ok {
			return w * 0.001
		}
		for _, r := range f.cidRanges {
			if code >= r.first && code <= r.last {
				return r.w * 0.001
			}
		}
		return f.dw * 0.001
	}
	i := code - f.firstChar
	if i >= 0 && i < len(f.widths) {
		return f.widths[i] * f.widthScale
	}
	if f.missing > 0 {
		return f.missing * f.widthScale
	}
	return 0.5 // unknown: assume half an em
}

// text returns the Unicode text of code and whether it is known.
func (f *pdfFont) text(code int, n int) (string, bool) {
	if f.unusable {
		return "", false
	}
	if f.toUni != nil {
		if s, ok := f.toUni.lookup(code, n); ok {
			return s, true
		}
	}
	if f.simple != nil && code < 256 {
		s := f.simple[code]
		return s, s != ""
	}
	return "", false
}

// pdfSimpleTable decodes the 256 codes of a simple font through its
// Encoding (base encoding and Differences). Codes whose glyph name is not
// a known name are left "".
func pdfSimpleTable(v pdf.Value) *[256]string {
	var t [256]string
	fv := pdf.Font{V: v}
	enc := fv.Encoder()
	encV := v.Key("Encoding")
	// Names given by Differences, to tell resolved names from unknown ones.
	var diff [256]string
	if d := encV.Key("Differences"); d.Kind() == pdf.Array {
		code := -1
		for i := range min(d.Len(), 1024) {
			x := d.Index(i)
			switch x.Kind() {
			case pdf.Integer:
				code = int(x.Int64())
			case pdf.Name:
				if code >= 0 && code < 256 {
					diff[code] = x.Name()
				}
				code++
			}
		}
	}
	named := encV.Kind() == pdf.Name && (encV.Name() == "WinAnsiEncoding" || encV.Name() == "MacRomanEncoding")
	for c := range 256 {
		if name := diff[c]; name != "" {
			t[c] = pdfGlyphName(name, enc.Decode(string([]byte{byte(c)})), c)
			continue
		}
		s := enc.Decode(string([]byte{byte(c)}))
		if !named && c >= 0x80 {
			// Without a named base encoding, high codes of a built-in or
			// custom font encoding are unknown.
			if encV.Kind() != pdf.Dict || encV.Key("BaseEncoding").Kind() != pdf.Name {
				continue
			}
		}
		t[c] = pdfCleanGlyph(s)
	}
	return &t
}

// pdfGlyphName resolves the glyph name of a Differences entry: decoded is
// what the library's glyph list made of it (the code itself when unknown).
func pdfGlyphName(name, decoded string, code int) string {
	if name == ".notdef" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(decoded)
	if n == len(decoded) && r != utf8.RuneError {
		// The library returns the code itself for names it does not know,
		// so a result equal to the code is trusted only for names that
		// read as glyph names ("space", "eacute"), not as glyph numbers
		// ("g31", "cid102", "a65") that say nothing about the character.
		if int(r) != code || pdfLetterName(name) {
			return pdfCleanGlyph(decoded)
		}
	}
	// uniXXXX[XXXX...] and uXXXX[XX] names.
	if hex, ok := strings.CutPrefix(name, "uni"); ok && len(hex) >= 4 && len(hex)%4 == 0 {
		var sb strings.Builder
		for i := 0; i < len(hex); i += 4 {
			v, err := strconv.ParseUint(hex[i:i+4], 16, 32)
			if err != nil {
				return ""
			}
			sb.WriteRune(rune(v))
		}
		return pdfCleanGlyph(sb.String())
	}
	if hex, ok := strings.CutPrefix(name, "u"); ok && len(hex) >= 4 && len(hex) <= 6 {
		if v, err := strconv.ParseUint(hex, 16, 32); err == nil {
			return pdfCleanGlyph(string(rune(v)))
		}
	}
	if len(name) == 1 && name[0] > ' ' && name[0] < 0x7F {
		return name
	}
	// "a.sc", "one.oldstyle", "f_i": strip suffixes and ligature joins.
	if i := strings.IndexByte(name, '.'); i > 0 {
		base := name[:i]
		if len(base) == 1 {
			return base
		}
	}
	return ""
}

// pdfLetterName reports whether name has letters only.
func pdfLetterName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return name != ""
}

// pdfLigatures spells out the Latin ligature code points.
var pdfLigatures = strings.NewReplacer("\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st")

// pdfCleanGlyph spells out ligatures and returns "" for text that is no
// character: controls, private use, replacement characters, noncharacters.
func pdfCleanGlyph(s string) string {
	if s == "" {
		return ""
	}
	for _, r := range s {
		if r == utf8.RuneError || r == 0 || (r < 0x20 && r != '\t') || docDropRune(r) && r != 0xAD {
			return ""
		}
	}
	if strings.ContainsRune(s, 0xAD) { // soft hyphen: a line-end hyphen
		s = strings.ReplaceAll(s, "\u00AD", "-")
	}
	if s[0] >= 0xEF {
		s = pdfLigatures.Replace(s)
	}
	return s
}

// pdfCMap is a parsed ToUnicode CMap.
type pdfCMap struct {
	// spaces are the codespace ranges.
	spaces []pdfCodeRange
	chars  map[uint32]string
	ranges []pdfBFRange
	// utf16 says codes are UTF-16BE code units (UCS-2 CMaps).
	utf16 bool
}

// pdfCodeRange is a codespace range of n-byte codes.
type pdfCodeRange struct {
	lo, hi uint32
	n      int
}

// pdfBFRange is a bfrange entry: codes lo..hi map to dst with its last
// character incremented, or to the strings of arr.
type pdfBFRange struct {
	lo, hi uint32
	dst    string
	arr    []string
}

// oneByteSpace reports whether every codespace range is one byte.
func (m *pdfCMap) oneByteSpace() bool {
	if len(m.spaces) == 0 {
		return false
	}
	for _, s := range m.spaces {
		if s.n != 1 {
			return false
		}
	}
	return true
}

// lookup returns the text of an n-byte code.
func (m *pdfCMap) lookup(code, n int) (string, bool) {
	if m.utf16 {
		return pdfCleanGlyph(string(rune(code))), code != 0
	}
	c := uint32(code)
	if s, ok := m.chars[c]; ok {
		s = pdfCleanGlyph(s)
		return s, s != ""
	}
	for _, r := range m.ranges {
		if c < r.lo || c > r.hi {
			continue
		}
		off := int(c - r.lo)
		if r.arr != nil {
			if off < len(r.arr) {
				s := pdfCleanGlyph(r.arr[off])
				return s, s != ""
			}
			return "", false
		}
		u := utf16.Decode(pdfUTF16Units(r.dst))
		if len(u) == 0 {
			return "", false
		}
		u[len(u)-1] += rune(off)
		s := pdfCleanGlyph(string(u))
		return s, s != ""
	}
	return "", false
}

// pdfUTF16Units splits a big-endian UTF-16 byte string into code units.
func pdfUTF16Units(s string) []uint16 {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	if len(s) == 1 { // a one-byte destination: treat it as Latin-1
		u = append(u, uint16(s[0]))
	}
	return u
}

// pdfUTF16 decodes a big-endian UTF-16 byte string.
func pdfUTF16(s string) string {
	return string(utf16.Decode(pdfUTF16Units(s)))
}

// pdfBytesCode returns the big-endian integer of a code string.
func pdfBytesCode(s string) uint32 {
	var c uint32
	for i := 0; i < len(s) && i < 4; i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

// pdfParseCMap parses a ToUnicode stream; nil when it holds no mapping.
func pdfParseCMap(v pdf.Value) (m *pdfCMap) {
	defer func() {
		if recover() != nil {
			m = nil
		}
	}()
	rc := v.Reader()
	data, err := io.ReadAll(io.LimitReader(rc, pdfMaxCMapSize))
	rc.Close()
	if err != nil || len(data) == 0 {
		return nil
	}
	m = &pdfCMap{chars: map[uint32]string{}}
	var stack []pdfToken
	lex := pdfLexer{data: data}
	for {
		tok, ok := lex.next()
		if !ok {
			break
		}
		if tok.kind != pdfTokKeyword {
			if len(stack) < 1<<16 {
				stack = append(stack, tok)
			}
			continue
		}
		switch tok.s {
		case "endcodespacerange":
			for i := 0; i+1 < len(stack); i += 2 {
				lo, hi := stack[i], stack[i+1]
				if lo.kind == pdfTokString && hi.kind == pdfTokString && len(lo.s) == len(hi.s) && len(lo.s) >= 1 && len(lo.s) <= 4 {
					m.spaces = append(m.spaces, pdfCodeRange{pdfBytesCode(lo.s), pdfBytesCode(hi.s), len(lo.s)})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(stack); i += 2 {
				src, dst := stack[i], stack[i+1]
				if src.kind == pdfTokString && dst.kind == pdfTokString {
					m.chars[pdfBytesCode(src.s)] = pdfUTF16(dst.s)
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(stack); i += 3 {
				lo, hi, dst := stack[i], stack[i+1], stack[i+2]
				if lo.kind != pdfTokString || hi.kind != pdfTokString {
					continue
				}
				r := pdfBFRange{lo: pdfBytesCode(lo.s), hi: pdfBytesCode(hi.s)}
				if r.hi < r.lo {
					continue
				}
				switch dst.kind {
				case pdfTokString:
					r.dst = dst.s
				case pdfTokArray:
					r.arr = make([]string, len(dst.arr))
					for j, a := range dst.arr {
						r.arr[j] = pdfUTF16(a)
					}
				default:
					continue
				}
				m.ranges = append(m.ranges, r)
			}
		}
		stack = stack[:0]
	}
	if len(m.chars) == 0 && len(m.ranges) == 0 {
		return nil
	}
	return m
}

// Token kinds of pdfLexer.
const (
	pdfTokKeyword = iota
	pdfTokString
	pdfTokNumber
	pdfTokName
	pdfTokArray
)

// pdfToken is one CMap token; arrays hold their strings only.
type pdfToken struct {
	kind int
	s    string
	arr  []string
}

// pdfLexer tokenizes the PostScript subset of CMap streams.
type pdfLexer struct {
	data []byte
	pos  int
}

// next returns the next token, false at the end.
func (l *pdfLexer) next() (pdfToken, bool) {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case c == '%':
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
		case c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0:
			l.pos++
		case c == '<':
			if l.pos+1 < len(l.data) && l.data[l.pos+1] == '<' {
				l.pos += 2
				return pdfToken{kind: pdfTokKeyword, s: "<<"}, true
			}
			return pdfToken{kind: pdfTokString, s: l.hexString()}, true
		case c == '(':
			return pdfToken{kind: pdfTokString, s: l.literalString()}, true
		case c == '[':
			l.pos++
			var arr []string
			for {
				t, ok := l.next()
				if !ok || (t.kind == pdfTokKeyword && t.s == "]") {
					break
				}
				if t.kind == pdfTokString && len(arr) < 1<<16 {
					arr = append(arr, t.s)
				}
			}
			return pdfToken{kind: pdfTokArray, arr: arr}, true
		case c == ']' || c == '{' || c == '}':
			l.pos++
			return pdfToken{kind: pdfTokKeyword, s: string(c)}, true
		case c == '>':
			l.pos++
			if l.pos < len(l.data) && l.data[l.pos] == '>' {
				l.pos++
			}
			return pdfToken{kind: pdfTokKeyword, s: ">>"}, true
		case c == '/':
			l.pos++
			return pdfToken{kind: pdfTokName, s: l.word()}, true
		default:
			w := l.word()
			if w == "" {
				l.pos++
				continue
			}
			if (w[0] >= '0' && w[0] <= '9') || w[0] == '-' || w[0] == '+' || w[0] == '.' {
				return pdfToken{kind: pdfTokNumber, s: w}, true
			}
			return pdfToken{kind: pdfTokKeyword, s: w}, true
		}
	}
	return pdfToken{}, false
}

// word reads a run of regular characters.
func (l *pdfLexer) word() string {
	start := l.pos
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if c <= ' ' || strings.IndexByte("()<>[]{}/%", c) >= 0 {
			break
		}
		l.pos++
	}
	return string(l.data[start:l.pos])
}

// hexString reads <hex digits>.
func (l *pdfLexer) hexString() string {
	l.pos++ // '<'
	var out []byte
	var hi byte
	half := false
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	return string(out)
}

// literalString reads (string) with escapes and nested parentheses.
func (l *pdfLexer) literalString() string {
	l.pos++ // '('
	var out []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return string(out)
			}
		case '\\':
			if l.pos >= len(l.data) {
				return string(out)
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := int(e - '0')
				for k := 0; k < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; k++ {
					v = v*8 + int(l.data[l.pos]-'0')
					l.pos++
				}
				c = byte(v)
			case '\r', '\n':
				continue
			default:
				c = e
			}
		}
		out = append(out, c)
	}
	return string(out)
}
