package ingest

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// odsMaxRowRepeat caps how many times a non-empty ODS row repeated with
// table:number-rows-repeated is emitted, against files that expand a row
// into millions of records.
const odsMaxRowRepeat = 1 << 16

// odsReader streams the sheets of an OpenDocument spreadsheet's content.xml.
//
// Cells are typed by office:value-type: float, percentage and currency give
// KindNumber with Num from office:value and Str the displayed text; date and
// time give KindString with the ISO value of office:date-value
// ("1960-01-01", "1960-01-01T00:00:01") or office:time-value turned into a
// time of day ("05:28:03"); boolean gives KindBool; anything else is the
// cell's text (paragraphs joined by "\n"), null when empty. Repeated cells
// and rows are expanded except for trailing empty runs; columns stop at
// MaxSheetColumns and a non-empty row repeats at most 65536 times. The
// archive and the cells it expands to are bounded by the limits of
// archive.go, repeats charged when read (then ErrTooLarge).
type odsReader struct {
	dec     *xmlReader
	row     []Value
	repeat  int // copies of row still to return
	inTable bool
	budget  sheetBudget
}

// newODSReader reads the whole ODS file (up to MaxSpreadsheetSize) and
// opens its content.xml.
func newODSReader(r io.Reader) (RecordReader, error) {
	z, err := openSpreadsheet(r, "ods")
	if err != nil {
		return nil, err
	}
	var content *zip.File
	for _, f := range z.files {
		if f.Name == "content.xml" {
			content = f
			break
		}
	}
	if content == nil {
		return nil, fmt.Errorf("ods: no content.xml: %w", ErrCorrupt)
	}
	dec, err := z.openXML(content)
	if err != nil {
		return nil, err
	}
	return &recTableReader{grid: &odsReader{dec: dec, budget: newSheetBudget("ods")}}, nil
}

// openSpreadsheet reads the spreadsheet file (format what) r, up to
// MaxSpreadsheetSize, and opens it as a zip archive.
func openSpreadsheet(r io.Reader, what string) (*zipFile, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSpreadsheetSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", what, err)
	}
	if len(data) > MaxSpreadsheetSize {
		return nil, fmt.Errorf("%s: over %d bytes: %w", what, MaxSpreadsheetSize, ErrTooLarge)
	}
	return openZip(what, data)
}

// odsCorrupt wraps an XML error; the limits' errors and the archive's
// come as they are.
func odsCorrupt(err error) error {
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("ods: content.xml: %w: %w", ErrCorrupt, err)
}

// nextSheet implements recGrid.
func (o *odsReader) nextSheet() (string, error) {
	for o.inTable {
		// Drain the rest of the current table.
		if _, err := o.nextRow(); err == io.EOF {
			break
		} else if err != nil {
			return "", err
		}
	}
	for {
		tok, err := o.dec.Token()
		if err == io.EOF {
			return "", io.EOF
		}
		if err != nil {
			return "", odsCorrupt(err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "table" {
			o.inTable, o.repeat = true, 0
			o.budget.newSheet()
			return odsAttr(se, "name"), nil
		}
	}
}

// odsAttr returns the attribute local of se, preferring the office and
// table namespaces over extensions such as calcext.
func odsAttr(se xml.StartElement, local string) string {
	val, found := "", false
	for _, a := range se.Attr {
		if a.Name.Local != local {
			continue
		}
		if strings.HasSuffix(a.Name.Space, ":office:1.0") || strings.HasSuffix(a.Name.Space, ":table:1.0") {
			return a.Value
		}
		if !found {
			val, found = a.Value, true
		}
	}
	return val
}

// odsRepeat parses a repeat count attribute (1 when absent or invalid).
func odsRepeat(se xml.StartElement, local string) int {
	s := odsAttr(se, local)
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// nextRow implements recGrid.
func (o *odsReader) nextRow() ([]Value, error) {
	if o.repeat > 0 {
		o.repeat--
		return o.row, nil
	}
	if !o.inTable {
		return nil, io.EOF
	}
	for {
		tok, err := o.dec.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, odsCorrupt(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "table-row" {
				continue // header rows, row groups: descend
			}
			rep := odsRepeat(t, "number-rows-repeated")
			if err := o.readRow(); err != nil {
				return nil, err
			}
			if recNonEmpty(o.row) == 0 {
				// Empty rows carry no data: one stands for the run.
				return o.row, nil
			}
			// The whole run is charged now, before its first copy.
			rep = min(rep, odsMaxRowRepeat)
			if err := o.budget.charge(o.row, rep); err != nil {
				return nil, err
			}
			o.repeat = rep - 1
			return o.row, nil
		case xml.EndElement:
			if t.Name.Local == "table" {
				o.inTable = false
				return nil, io.EOF
			}
		}
	}
}

// readRow reads the cells of a table-row whose start was consumed into o.row.
func (o *odsReader) readRow() error {
	o.row = o.row[:0]
	pendingEmpty := 0 // empty cells not yet appended: dropped if trailing
	for {
		tok, err := o.dec.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return odsCorrupt(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "table-cell" && t.Name.Local != "covered-table-cell" {
				if err := o.dec.Skip(); err != nil {
					return odsCorrupt(err)
				}
				continue
			}
			rep := odsRepeat(t, "number-columns-repeated")
			v, err := o.readCell(t)
			if err != nil {
				return err
			}
			if v.Kind == KindNull {
				pendingEmpty = min(pendingEmpty+rep, MaxSheetColumns)
				continue
			}
			for ; pendingEmpty > 0 && len(o.row) < MaxSheetColumns; pendingEmpty-- {
				o.row = append(o.row, Value{})
			}
			pendingEmpty = 0
			for i := 0; i < rep && len(o.row) < MaxSheetColumns; i++ {
				o.row = append(o.row, v)
			}
		case xml.EndElement:
			return nil
		}
	}
}

// readCell reads a cell whose start element is se, up to its end.
func (o *odsReader) readCell(se xml.StartElement) (Value, error) {
	text, err := o.cellText()
	if err != nil {
		return Value{}, err
	}
	switch odsAttr(se, "value-type") {
	case "float", "percentage", "currency":
		raw := odsAttr(se, "value")
		num, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			break
		}
		if text == "" {
			text = raw
		}
		return Value{Kind: KindNumber, Str: text, Num: num}, nil
	case "date":
		if d := odsAttr(se, "date-value"); d != "" {
			return Value{Kind: KindString, Str: d}, nil
		}
	case "time":
		if d := odsAttr(se, "time-value"); d != "" {
			return Value{Kind: KindString, Str: odsTimeOfDay(d)}, nil
		}
	case "boolean":
		b := odsAttr(se, "boolean-value") == "true"
		if text == "" {
			text = strconv.FormatBool(b)
		}
		return Value{Kind: KindBool, Str: text, Bool: b}, nil
	}
	if text == "" {
		return Value{}, nil
	}
	return Value{Kind: KindString, Str: text}, nil
}

// cellText collects the text of the current cell up to its end element:
// text:p paragraphs joined by "\n", text:s as spaces, text:tab as a tab,
// text:line-break as a newline; annotations are skipped.
func (o *odsReader) cellText() (string, error) {
	var b strings.Builder
	depth, paras := 0, 0
	for {
		tok, err := o.dec.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", odsCorrupt(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "annotation":
				if err := o.dec.Skip(); err != nil {
					return "", odsCorrupt(err)
				}
				continue
			case "p", "h":
				if paras > 0 {
					b.WriteByte('\n')
				}
				paras++
			case "s":
				n := min(odsRepeat(t, "c"), 1024)
				for range n {
					b.WriteByte(' ')
				}
			case "tab":
				b.WriteByte('\t')
			case "line-break":
				b.WriteByte('\n')
			}
			depth++
		case xml.EndElement:
			if depth == 0 {
				return b.String(), nil
			}
			depth--
		case xml.CharData:
			if depth > 0 {
				b.Write(t)
			}
		}
		if b.Len() > limits.cell {
			return "", cellTooLarge("ods")
		}
	}
}

// odsTimeOfDay turns an ISO 8601 duration such as PT05H28M03S or
// PT00H00M01.00224S into "05:28:03" or "00:00:01.00224"; other values are
// returned unchanged.
func odsTimeOfDay(d string) string {
	rest, ok := strings.CutPrefix(d, "PT")
	if !ok {
		return d
	}
	var parts [3]string
	for i, unit := range []byte{'H', 'M', 'S'} {
		j := strings.IndexByte(rest, unit)
		if j < 0 {
			if i == 2 && rest == "" {
				parts[i] = "0"
				break
			}
			return d
		}
		parts[i], rest = rest[:j], rest[j+1:]
	}
	if rest != "" {
		return d
	}
	for i, p := range parts {
		ip, frac, _ := strings.Cut(p, ".")
		if _, err := strconv.Atoi(ip); err != nil || ip == "" {
			return d
		}
		if len(ip) < 2 {
			ip = "0" + ip
		}
		if frac != "" {
			ip += "." + frac
		}
		parts[i] = ip
	}
	return parts[0] + ":" + parts[1] + ":" + parts[2]
}
