package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// xlsxMaxStyles caps the cell styles and the number formats read (Excel
// allows 64,000 styles); more are ignored. xlsxMaxRels caps the
// relationships of a .rels part (then ErrTooLarge).
const (
	xlsxMaxStyles = 1 << 16
	xlsxMaxRels   = 1 << 16
)

// xlsxReader streams the worksheets of an XLSX (Office Open XML) workbook
// in workbook order with encoding/xml: the shared strings and the cell
// styles are read first, then each sheet's rows one at a time.
//
// A cell is typed by its t attribute and its number format: shared, inline
// and formula strings are KindString (a text holding a canonical number,
// "42", is a number, as in CSV; "007" stays text); t="b" is KindBool
// (Str "TRUE"/"FALSE"); t="e" (an error such as "#DIV/0!") is KindString;
// a number is KindNumber with Num the stored value and Str the value as its
// number format shows it ("1,234.50", "25%", "$3"), except that a number
// formatted as a date or time is KindString with the ISO form of the date
// ("2024-03-01", "2024-03-01 12:30", "12:30:05"), as ODS dates are. Empty
// cells are null; columns stop at MaxSheetColumns. The archive and the
// cells it expands to are bounded by the limits of archive.go (then
// ErrTooLarge).
type xlsxReader struct {
	z        *zipFile
	files    map[string]*zip.File
	sheets   []xlsxSheet
	next     int
	shared   []string
	styles   []xlsxStyle // by cell style index (the s attribute)
	date1904 bool

	rc         io.Closer // the current sheet
	dec        *xmlReader
	row        []Value
	budget     sheetBudget
	sharedSize int64 // bytes of x.shared, against MaxSharedStringsSize
}

type xlsxSheet struct{ name, path string }

// newXLSXReader reads the whole XLSX file (up to MaxSpreadsheetSize) and
// its workbook, relationships, shared strings and styles.
func newXLSXReader(r io.Reader) (RecordReader, error) {
	z, err := openSpreadsheet(r, "xlsx")
	if err != nil {
		return nil, err
	}
	x := &xlsxReader{z: z, files: make(map[string]*zip.File, len(z.files)), budget: newSheetBudget("xlsx")}
	for _, f := range z.files {
		x.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	wb := x.workbookPath()
	if x.files[wb] == nil {
		return nil, fmt.Errorf("xlsx: no workbook (%s): %w", wb, ErrCorrupt)
	}
	rels, err := x.relationships(path.Join(path.Dir(wb), "_rels", path.Base(wb)+".rels"), path.Dir(wb))
	if err != nil {
		return nil, err
	}
	if err := x.readWorkbook(wb, rels); err != nil {
		return nil, err
	}
	if len(x.sheets) == 0 {
		return nil, fmt.Errorf("xlsx: no worksheets: %w", ErrCorrupt)
	}
	// Check the declared sizes of everything left to read before reading.
	var parts []*zip.File
	for _, t := range []string{"sharedStrings", "styles"} {
		if f := x.files[rels.byType(t)]; f != nil {
			parts = append(parts, f)
		}
	}
	for _, s := range x.sheets {
		parts = append(parts, x.files[s.path])
	}
	if err := z.reserve(parts...); err != nil {
		return nil, err
	}
	if p := rels.byType("sharedStrings"); p != "" && x.files[p] != nil {
		if err := x.readSharedStrings(p); err != nil {
			return nil, err
		}
	}
	if p := rels.byType("styles"); p != "" && x.files[p] != nil {
		if err := x.readStyles(p); err != nil {
			return nil, err
		}
	}
	return &recTableReader{grid: x}, nil
}

// xlsxCorrupt wraps an error reading part name; the limits' errors and
// the archive's come as they are.
func xlsxCorrupt(name string, err error) error {
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("xlsx: %s: %w: %w", name, ErrCorrupt, err)
}

// open returns a decoder over part name, under the archive limits.
func (x *xlsxReader) open(name string) (io.Closer, *xmlReader, error) {
	f := x.files[name]
	if f == nil {
		return nil, nil, fmt.Errorf("xlsx: missing part %s: %w", name, ErrCorrupt)
	}
	dec, err := x.z.openXML(f)
	if err != nil {
		return nil, nil, xlsxCorrupt(name, err)
	}
	dec.Strict = false
	return dec, dec, nil
}

// walk calls fn for every start element of part name, with the decoder to
// read the element's content if fn wants it.
func (x *xlsxReader) walk(name string, fn func(dec *xmlReader, se xml.StartElement) error) error {
	rc, dec, err := x.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return xlsxCorrupt(name, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if err := fn(dec, se); err != nil {
				return err
			}
		}
	}
}

func attr(se xml.StartElement, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// workbookPath returns the workbook part named by the package
// relationships, or the usual xl/workbook.xml.
func (x *xlsxReader) workbookPath() string {
	if rels, err := x.relationships("_rels/.rels", ""); err == nil {
		if p := rels.byType("officeDocument"); p != "" {
			return p
		}
	}
	return "xl/workbook.xml"
}

// xlsxRels maps relationship ids to resolved part paths and types.
type xlsxRels struct {
	target map[string]string
	types  map[string]string // id → type's last path element
}

func (r xlsxRels) byType(t string) string {
	for id, tt := range r.types {
		if tt == t {
			return r.target[id]
		}
	}
	return ""
}

// relationships reads a .rels part; targets are resolved against dir.
func (x *xlsxReader) relationships(name, dir string) (xlsxRels, error) {
	rels := xlsxRels{target: map[string]string{}, types: map[string]string{}}
	if x.files[name] == nil {
		return rels, fmt.Errorf("xlsx: missing part %s: %w", name, ErrCorrupt)
	}
	err := x.walk(name, func(_ *xmlReader, se xml.StartElement) error {
		if se.Name.Local != "Relationship" {
			return nil
		}
		if len(rels.target) >= xlsxMaxRels {
			return fmt.Errorf("xlsx: %s: more than %d relationships: %w", name, xlsxMaxRels, ErrTooLarge)
		}
		id, _ := attr(se, "Id")
		t, _ := attr(se, "Target")
		typ, _ := attr(se, "Type")
		if mode, _ := attr(se, "TargetMode"); mode == "External" || id == "" || t == "" {
			return nil
		}
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(path.Clean(t), "/")
		} else {
			t = path.Clean(path.Join(dir, t))
		}
		rels.target[id] = t
		rels.types[id] = path.Base(typ)
		return nil
	})
	return rels, err
}

// readWorkbook reads the sheet list and the date system.
func (x *xlsxReader) readWorkbook(name string, rels xlsxRels) error {
	listed := map[string]bool{}
	return x.walk(name, func(_ *xmlReader, se xml.StartElement) error {
		switch se.Name.Local {
		case "workbookPr":
			if v, _ := attr(se, "date1904"); v == "1" || v == "true" {
				x.date1904 = true
			}
		case "sheet":
			sheetName, _ := attr(se, "name")
			var id string
			for _, a := range se.Attr {
				if a.Name.Local == "id" && a.Name.Space != "" {
					id = a.Value
				}
			}
			// A part listed twice is read once: each listing would
			// parse it again.
			if p, ok := rels.target[id]; ok && rels.types[id] == "worksheet" && x.files[p] != nil && !listed[p] {
				x.sheets = append(x.sheets, xlsxSheet{name: sheetName, path: p})
				listed[p] = true
			}
		}
		return nil
	})
}

// readSharedStrings reads the shared string table: the text of each si,
// rich-text runs joined, phonetic runs (rPh) left out.
func (x *xlsxReader) readSharedStrings(name string) error {
	return x.walk(name, func(dec *xmlReader, se xml.StartElement) error {
		if se.Name.Local != "si" {
			return nil
		}
		s, err := xlsxText(dec, "si")
		if err != nil {
			return xlsxCorrupt(name, err)
		}
		if x.sharedSize += int64(len(s)) + 16; x.sharedSize > x.z.lim.sharedStrings {
			return fmt.Errorf("xlsx: shared strings over %d bytes (the limit on the shared strings table): %w", x.z.lim.sharedStrings, ErrTooLarge)
		}
		x.shared = append(x.shared, s)
		return nil
	})
}

// xlsxText returns the text of the t elements inside the element that
// ends with end (already started), skipping phonetic runs.
func xlsxText(dec *xmlReader, end string) (string, error) {
	var sb strings.Builder
	inT, skip := false, 0
	for {
		tok, err := xlsxInner(dec)
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "rPh":
				skip++
			case "t":
				inT = skip == 0
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "rPh":
				skip--
			case "t":
				inT = false
			case end:
				return xlsxUnescape(sb.String()), nil
			}
		case xml.CharData:
			if inT {
				sb.Write(t)
				if sb.Len() > limits.cell {
					return "", cellTooLarge("xlsx")
				}
			}
		}
	}
}

// xlsxUnescape decodes the _xHHHH_ escapes OOXML uses for characters XML
// cannot hold ("_x000D_" is a carriage return); "_x005F_" escapes a literal
// underscore.
func xlsxUnescape(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+6 < len(s) && s[i+1] == 'x' && s[i+6] == '_' {
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				b.WriteRune(rune(v))
				i += 6
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// xlsxCharData returns the character data up to the end of the element
// end (already started).
func xlsxCharData(dec *xmlReader, end string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := xlsxInner(dec)
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
			if sb.Len() > limits.cell {
				return "", cellTooLarge("xlsx")
			}
		case xml.EndElement:
			if t.Name.Local == end {
				return sb.String(), nil
			}
		}
	}
}

// xlsxInner returns the next raw token inside an element already started:
// the end of the input there is io.ErrUnexpectedEOF.
func xlsxInner(dec *xmlReader) (xml.Token, error) {
	tok, err := dec.RawToken()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// sheetCorrupt wraps an error reading the current sheet.
func (x *xlsxReader) sheetCorrupt(err error) error {
	return xlsxCorrupt(x.sheets[x.next-1].path, err)
}

// xlsxSkip skips the rest of an element already started, reading raw
// tokens like the rest of the sheet reader.
func xlsxSkip(dec *xmlReader) error {
	return skipElement(func() (xml.Token, error) { return xlsxInner(dec) })
}

// xlsxStyle is how a cell style shows numbers.
type xlsxStyle struct {
	kind      byte // 0 general, 'f' fixed, '%' percent, 'e' scientific, 'd' date/time, '@' text
	decimals  int
	thousands bool
	prefix    string
	suffix    string
	date      bool // 'd': has a date part
	clock     bool // 'd': has a time part
	seconds   bool // 'd': shows seconds
}

// readStyles reads the number format of every cell style (cellXfs/xf).
func (x *xlsxReader) readStyles(name string) error {
	custom := map[int]string{}
	inXfs := false
	return x.walk(name, func(dec *xmlReader, se xml.StartElement) error {
		switch se.Name.Local {
		case "numFmt":
			id, _ := attr(se, "numFmtId")
			code, _ := attr(se, "formatCode")
			if n, err := strconv.Atoi(id); err == nil && len(custom) < xlsxMaxStyles {
				custom[n] = code
			}
		case "cellXfs":
			inXfs = true
		case "cellStyleXfs", "dxfs":
			inXfs = false
		case "xf":
			if !inXfs {
				return nil
			}
			id, _ := attr(se, "numFmtId")
			n, _ := strconv.Atoi(id)
			code, ok := custom[n]
			if !ok {
				code = xlsxBuiltinFormat(n)
			}
			if len(x.styles) < xlsxMaxStyles {
				x.styles = append(x.styles, parseNumFmt(code))
			}
		}
		return nil
	})
}

// xlsxBuiltinFormat returns the format code of a built-in number format
// id (ECMA-376 18.8.30; currency and locale-specific ids as their closest
// generic form).
func xlsxBuiltinFormat(id int) string {
	switch id {
	case 1:
		return "0"
	case 2:
		return "0.00"
	case 3, 5, 6, 37, 38, 41, 42:
		return "#,##0"
	case 4, 7, 8, 39, 40, 43, 44:
		return "#,##0.00"
	case 9:
		return "0%"
	case 10:
		return "0.00%"
	case 11:
		return "0.00E+00"
	case 14, 15, 16, 17, 27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58:
		return "yyyy-mm-dd"
	case 18, 20, 32, 33, 45, 55, 56:
		return "hh:mm"
	case 19, 21, 46, 47:
		return "hh:mm:ss"
	case 22:
		return "yyyy-mm-dd hh:mm"
	case 48:
		return "##0.0E+0"
	case 49:
		return "@"
	}
	return "General"
}

// parseNumFmt classifies a number format code by its first section.
func parseNumFmt(code string) xlsxStyle {
	if strings.EqualFold(strings.TrimSpace(code), "general") {
		return xlsxStyle{}
	}
	return scanNumFmt(code).style()
}

// numFmtScan is what scanNumFmt saw in the first section of a format code.
type numFmtScan struct {
	st         xlsxStyle       // prefix, decimals, thousands and kind so far
	lit        strings.Builder // literal text seen since the prefix
	digits     bool            // a digit placeholder (0 # ?) was seen
	afterPoint bool            // the decimal point was seen after one
	letters    []byte          // date and time codes, lower case
}

// scanNumFmt reads the first section of a number format code: literal
// text, digit placeholders, and date and time codes.
func scanNumFmt(code string) *numFmtScan {
	f := &numFmtScan{}
	inQuote := false
	for i := 0; i < len(code); i++ {
		c := code[i]
		if inQuote {
			if c == '"' {
				inQuote = false
			} else {
				f.lit.WriteByte(c)
			}
			continue
		}
		if c >= utf8.RuneSelf {
			// Any other script's letter or symbol is literal text ("Kč").
			r, n := utf8.DecodeRuneInString(code[i:])
			f.lit.WriteRune(r)
			i += n - 1
			continue
		}
		switch {
		case c == '"':
			inQuote = true
		case c == ';':
			i = len(code) // first section only
		case c == '\\' && i+1 < len(code):
			i++
			f.lit.WriteByte(code[i])
		case c == '_' || c == '*':
			i++ // padding: skip the next character
		case c == '[':
			i = f.bracket(code, i)
		case c == '0' || c == '#' || c == '?':
			if !f.digits && f.lit.Len() > 0 {
				f.st.prefix = f.lit.String()
				f.lit.Reset()
			}
			f.digits = true
			if f.afterPoint {
				f.st.decimals++
			}
		case c == '.':
			if f.digits {
				f.afterPoint = true
			}
		case c == ',':
			if f.digits && !f.afterPoint {
				f.st.thousands = true
			}
		case c == '%':
			f.st.kind = '%'
		case c == 'E' || c == 'e':
			if f.digits && i+1 < len(code) && (code[i+1] == '+' || code[i+1] == '-') {
				f.st.kind = 'e'
				i++
			} else {
				f.letters = append(f.letters, 'e')
			}
		case c == '@':
			if f.st.kind == 0 && !f.digits {
				f.st.kind = '@'
			}
		case strings.IndexByte("yYmMdDhHsSaApP", c) >= 0:
			f.letters = append(f.letters, byte(unicode.ToLower(rune(c))))
		case unicode.IsLetter(rune(c)):
			f.lit.WriteByte(c) // not a date or time code: literal text
		default:
			if c != ' ' || f.digits {
				f.lit.WriteByte(c)
			}
		}
	}
	return f
}

// bracket reads the bracketed part of code starting at code[i] == '[' and
// returns the index of its ']' (len(code) when there is none): a currency
// or locale shows its symbol ([$€-407] shows "€"), an elapsed-time code
// counts as a time letter, anything else (a colour, a condition) is
// ignored.
func (f *numFmtScan) bracket(code string, i int) int {
	j := strings.IndexByte(code[i:], ']')
	if j < 0 {
		return len(code)
	}
	b := code[i+1 : i+j]
	if strings.HasPrefix(b, "$") {
		sym, _, _ := strings.Cut(b[1:], "-")
		f.lit.WriteString(sym)
	} else if l := strings.ToLower(b); l == "h" || l == "hh" || l == "m" || l == "mm" || l == "s" || l == "ss" {
		f.letters = append(f.letters, l[0])
	}
	return i + j
}

// style classifies what the scan saw: a date or time, text, or a number
// with its prefix, suffix, decimals and thousands separator.
func (f *numFmtScan) style() xlsxStyle {
	st := f.st
	for _, l := range f.letters {
		switch l {
		case 'y', 'd':
			st.date = true
		case 'h':
			st.clock = true
		case 's':
			st.clock, st.seconds = true, true
		}
	}
	if !st.date && !st.clock && bytes.IndexByte(f.letters, 'm') >= 0 && !f.digits {
		st.date = true // "mmm" alone: a month
	}
	if st.date || st.clock {
		return xlsxStyle{kind: 'd', date: st.date, clock: st.clock, seconds: st.seconds}
	}
	if st.kind == '@' {
		return xlsxStyle{kind: '@'}
	}
	if !f.digits {
		return xlsxStyle{}
	}
	if st.kind == 0 {
		st.kind = 'f'
	}
	st.suffix = strings.TrimSpace(strings.ReplaceAll(f.lit.String(), "%", ""))
	st.prefix = strings.TrimLeft(st.prefix, " ")
	return st
}

// show returns a stored number as style st displays it; ok is false for a
// date or time.
func (x *xlsxReader) show(raw string, v float64, st xlsxStyle) (shown string, date bool) {
	switch st.kind {
	case 0, '@':
		return xlsxGeneral(raw, v), false
	case 'd':
		if s, ok := xlsxDate(v, st, x.date1904); ok {
			return s, true
		}
		return xlsxGeneral(raw, v), false
	case 'e':
		return st.prefix + strconv.FormatFloat(v, 'E', st.decimals, 64) + spaced(st.suffix), false
	}
	n := v
	if st.kind == '%' {
		n *= 100
	}
	s := strconv.FormatFloat(roundHalfUp(math.Abs(n), st.decimals), 'f', st.decimals, 64)
	if st.thousands {
		s = groupThousands(s)
	}
	if st.kind == '%' {
		s += "%"
	}
	sign := ""
	if n < 0 && strings.Trim(s, "0.,%") != "" {
		sign = "-"
	}
	if st.prefix != "" {
		return sign + st.prefix + s + spaced(st.suffix), false
	}
	return sign + s + spaced(st.suffix), false
}

// roundHalfUp rounds v ≥ 0 to d decimals with halves away from zero, as
// Excel shows them (1234.5 in format "0" is 1235); strconv rounds halves
// to even.
func roundHalfUp(v float64, d int) float64 {
	if d > 15 || v >= 1e15 {
		return v
	}
	p := math.Pow(10, float64(d))
	r := math.Floor(v*p+0.5) / p
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return v
	}
	return r
}

func spaced(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// groupThousands inserts "," between groups of three integer digits.
func groupThousands(s string) string {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	lead := len(intPart) % 3
	if lead > 0 {
		b.WriteString(intPart[:lead])
	}
	for i := lead; i < len(intPart); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// xlsxGeneral shows a number in the General format: a whole number without
// decimals, else the stored text when it is short, else at most 15
// significant digits.
func xlsxGeneral(raw string, v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64) // "2469.0" shows 2469
	}
	if len(raw) <= 12 && !strings.ContainsAny(raw, "eE") {
		return raw
	}
	s := strconv.FormatFloat(v, 'g', 15, 64)
	if strings.ContainsAny(s, "e") {
		return s
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// xlsxDate shows a date serial number in ISO form; false when v is no
// date Excel could show.
func xlsxDate(v float64, st xlsxStyle, date1904 bool) (string, bool) {
	if v < 0 || v > 2958465 || math.IsNaN(v) {
		return "", false
	}
	days := math.Floor(v)
	secs := int64(math.Round((v - days) * 86400))
	var base time.Time
	switch {
	case date1904:
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	case days >= 61:
		base = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	default:
		base = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC) // before Excel's 1900-02-29
	}
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	layout := ""
	if st.date {
		layout = "2006-01-02"
	}
	if st.clock {
		if layout != "" {
			layout += " "
		}
		layout += "15:04"
		if st.seconds {
			layout += ":05"
		}
	}
	return t.Format(layout), true
}

// nextSheet implements recGrid.
func (x *xlsxReader) nextSheet() (string, error) {
	x.closeSheet()
	if x.next >= len(x.sheets) {
		return "", io.EOF
	}
	s := x.sheets[x.next]
	x.next++
	x.budget.newSheet()
	rc, dec, err := x.open(s.path)
	if err != nil {
		return "", err
	}
	x.rc, x.dec = rc, dec
	return s.name, nil
}

func (x *xlsxReader) closeSheet() {
	if x.rc != nil {
		x.rc.Close()
		x.rc, x.dec = nil, nil
	}
}

// nextRow implements recGrid.
func (x *xlsxReader) nextRow() ([]Value, error) {
	if x.dec == nil {
		return nil, io.EOF
	}
	for {
		tok, err := x.dec.RawToken()
		if err == io.EOF {
			x.closeSheet()
			return nil, io.EOF
		}
		if err != nil {
			x.closeSheet()
			return nil, x.sheetCorrupt(err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "row" {
			err := x.readRow()
			if err == nil {
				err = x.budget.charge(x.row, 1)
			}
			if err != nil {
				x.closeSheet()
				return nil, err
			}
			return x.row, nil
		}
	}
}

// readRow reads the cells of a row element (already started) into x.row.
func (x *xlsxReader) readRow() error {
	x.row = x.row[:0]
	col := -1
	for {
		tok, err := xlsxInner(x.dec)
		if err != nil {
			return x.sheetCorrupt(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "c" {
				continue
			}
			col++
			if ref, ok := attr(t, "r"); ok {
				if c, ok := xlsxColumn(ref); ok {
					col = c
				}
			}
			v, err := x.readCell(t)
			if err != nil {
				return err
			}
			if col >= MaxSheetColumns || v.Kind == KindNull {
				continue
			}
			for len(x.row) < col {
				x.row = append(x.row, Value{})
			}
			x.row = append(x.row, v)
		case xml.EndElement:
			if t.Name.Local == "row" {
				return nil
			}
		}
	}
}

// xlsxColumn returns the 0-based column of a cell reference ("B12" → 1).
func xlsxColumn(ref string) (int, bool) {
	c, n := 0, 0
	for ; n < len(ref); n++ {
		b := ref[n] | 0x20
		if b < 'a' || b > 'z' {
			break
		}
		c = c*26 + int(b-'a'+1)
		if c > MaxSheetColumns*26 {
			return 0, false
		}
	}
	if n == 0 {
		return 0, false
	}
	return c - 1, true
}

// readCell reads a c element (already started) and types its value.
func (x *xlsxReader) readCell(se xml.StartElement) (Value, error) {
	typ, _ := attr(se, "t")
	styleIdx := -1
	if s, ok := attr(se, "s"); ok {
		styleIdx, _ = strconv.Atoi(s)
	}
	var raw string
	var inline string
	hasInline := false
	for {
		tok, err := xlsxInner(x.dec)
		if err != nil {
			return Value{}, x.sheetCorrupt(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "v":
				s, err := xlsxCharData(x.dec, "v")
				if err != nil {
					return Value{}, x.sheetCorrupt(err)
				}
				raw = s
			case "is":
				s, err := xlsxText(x.dec, "is")
				if err != nil {
					return Value{}, x.sheetCorrupt(err)
				}
				inline, hasInline = s, true
			default:
				if err := xlsxSkip(x.dec); err != nil {
					return Value{}, x.sheetCorrupt(err)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "c" {
				return x.cellValue(typ, raw, inline, hasInline, styleIdx), nil
			}
		}
	}
}

// cellValue types a cell from its type attribute, stored value and style.
func (x *xlsxReader) cellValue(typ, raw, inline string, hasInline bool, styleIdx int) Value {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || i < 0 || i >= len(x.shared) {
			return Value{}
		}
		return xlsxValue(x.shared[i], x.shared[i])
	case "inlineStr":
		if !hasInline {
			inline = raw
		}
		return xlsxValue(inline, inline)
	case "str", "e", "d":
		if raw == "" {
			return Value{}
		}
		if typ == "str" {
			return xlsxValue(raw, raw)
		}
		return Value{Kind: KindString, Str: raw}
	case "b":
		switch strings.TrimSpace(raw) {
		case "1", "true":
			return Value{Kind: KindBool, Str: "TRUE", Bool: true}
		case "0", "false":
			return Value{Kind: KindBool, Str: "FALSE"}
		}
		return xlsxValue(raw, raw)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return Value{}
	}
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return Value{Kind: KindString, Str: raw}
	}
	var st xlsxStyle
	if styleIdx >= 0 && styleIdx < len(x.styles) {
		st = x.styles[styleIdx]
	}
	shown, date := x.show(raw, v, st)
	if date {
		return Value{Kind: KindString, Str: shown}
	}
	return Value{Kind: KindNumber, Str: shown, Num: v}
}

// xlsxValue types a text cell: a canonical number ("42", not "007") is a
// number, as in CSV; anything else is a string.
func xlsxValue(raw, shown string) Value {
	if shown == "" {
		return Value{}
	}
	if num, ok := recParseNumber(raw); ok {
		return Value{Kind: KindNumber, Str: shown, Num: num}
	}
	return Value{Kind: KindString, Str: shown}
}
