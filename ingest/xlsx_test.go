package ingest

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
	"github.com/xuri/excelize/v2"
)

func TestXLSXTestExcel(t *testing.T) {
	recs, rerrs := recAll(t, FormatXLSX, testutil.ReadDoc(t, "testEXCEL.xlsx"), RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors: %v", rerrs)
	}
	// Title row "Sample Excel Worksheet..." is a caption; the header is
	// (blank), Number, Square; rows 1..15 follow, then a footnote row.
	if len(recs) != 16 {
		t.Fatalf("got %d records, want 16", len(recs))
	}
	for i, r := range recs[:15] {
		if r.Sheet != "Feuil1" || r.Index != i {
			t.Fatalf("record %d: sheet %q index %d", i, r.Sheet, r.Index)
		}
		if got := recNames(r); !reflect.DeepEqual(got, []string{"column_1", "Number", "Square"}) {
			t.Fatalf("record %d names %q", i, got)
		}
		n, _ := recProp(r, "Number")
		sq, _ := recProp(r, "Square")
		if n[0].Kind != KindNumber || sq[0].Kind != KindNumber || n[0].Num != float64(i+1) || sq[0].Num != n[0].Num*n[0].Num {
			t.Fatalf("record %d: Number %+v Square %+v", i, n, sq)
		}
		if c, _ := recProp(r, "column_1"); c[0].Kind != KindNull {
			t.Fatalf("record %d: blank column = %+v", i, c)
		}
	}
}

func TestXLSXKYC(t *testing.T) {
	recs, rerrs := recAll(t, FormatXLSX, testutil.ReadDoc(t, "kyc-file-structure.xlsx"), RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors: %v", rerrs)
	}
	// Sheet names in workbook order (read from xl/workbook.xml with Python).
	wantSheets := []string{"KYC HEADER", "KYC", "ADDL INFO", "KYC TRAILER", "KYC Update Type", "Addtl KYC Update Type", "Entity Type", "Document & EXEMPTED &  PAN COPY", "IPV Status", "Identity Proof", "Address Proof", "Gender", "Marital Status", "Exempt Category", "Company Type", "Nationality", "Residential Status", "NRI Residential Status Proof", "Occupation", "Income Slab", "PEP Status", "KYC Status", "Rejection Reasons", "Relationship Status", "Document submission Details", "State Master", "Country Master", "Country Master (2)", "Dump Type", "KYC_MODE"}
	var sheets []string
	first := map[string]Record{}
	count := map[string]int{}
	for _, r := range recs {
		if len(sheets) == 0 || sheets[len(sheets)-1] != r.Sheet {
			sheets = append(sheets, r.Sheet)
			first[r.Sheet] = r
			if r.Index != 0 {
				t.Errorf("sheet %q starts at index %d", r.Sheet, r.Index)
			}
		}
		count[r.Sheet]++
	}
	if !reflect.DeepEqual(sheets, wantSheets) {
		t.Fatalf("sheets = %q\nwant %q", sheets, wantSheets)
	}
	headers := map[string][]string{
		"KYC HEADER":     {"S.No", "Field", "Field Type", "Field Length", "Mandatory / Optional for Individual KYC", "Mandatory / Optional for Non-Individual KYC", "Remarks / Details", "XML TAG - EOD Download", "XML TAG - API"},
		"Gender":         {"Code", "Description", "Gender"},
		"Country Master": {"Code", "Description", "Country Master"},
		"KYC_MODE":       {"Code", "Description"},
	}
	for sheet, want := range headers {
		if got := recNames(first[sheet]); !reflect.DeepEqual(got, want) {
			t.Errorf("sheet %q names %q, want %q", sheet, got, want)
		}
	}
	// Gender: M Male, F Female; "01" style codes stay text.
	if got := recFlat(first["Gender"]); got != "Code=M; Description=Male; Gender=<null>" {
		t.Errorf("Gender first record = %q", got)
	}
	if got := recFlat(first["Country Master"]); got != "Code=001; Description=Afghanistan; Country Master=<null>" {
		t.Errorf("Country Master first record = %q", got)
	}
	if count["Gender"] != 2 || count["Country Master"] != 244 {
		t.Errorf("Gender %d records, Country Master %d; want 2, 244", count["Gender"], count["Country Master"])
	}
	// KYC_MODE has remarks beyond its two header cells.
	found := false
	for _, r := range recs {
		if r.Sheet == "KYC_MODE" {
			if v, ok := recProp(r, "column_3"); ok && v[0].Str == "Applicable for Individual only with UID No Madatory" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("KYC_MODE remarks beyond the header are missing")
	}
}

// xlsxBuild writes a workbook with excelize: sheet name → rows of cells.
func xlsxBuild(t *testing.T, build func(f *excelize.File)) []byte {
	t.Helper()
	f := excelize.NewFile()
	build(f)
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestXLSXTypes(t *testing.T) {
	data := xlsxBuild(t, func(f *excelize.File) {
		set := func(sheet, cell string, v any) {
			if err := f.SetCellValue(sheet, cell, v); err != nil {
				t.Fatal(err)
			}
		}
		f.SetSheetName("Sheet1", "Typy")
		for i, h := range []string{"text", "int", "float", "bool", "date", "pct", "code", "name"} {
			cell, _ := excelize.CoordinatesToCellName(i+1, 1)
			set("Typy", cell, h)
		}
		set("Typy", "A2", "Žluťoučký kůň")
		set("Typy", "B2", 42)
		set("Typy", "C2", 1.5)
		set("Typy", "D2", true)
		set("Typy", "E2", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC))
		set("Typy", "F2", 0.25)
		set("Typy", "G2", "007")
		set("Typy", "H2", "name")
		set("Typy", "A3", "druhý")
		set("Typy", "D3", false)
		pct, err := f.NewStyle(&excelize.Style{NumFmt: 9})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.SetCellStyle("Typy", "F2", "F2", pct); err != nil {
			t.Fatal(err)
		}
		if _, err := f.NewSheet("Empty"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.NewSheet("Second"); err != nil {
			t.Fatal(err)
		}
		set("Second", "B2", "Caption of the sheet")
		set("Second", "B4", "k")
		set("Second", "C4", "v")
		set("Second", "B5", "a")
		set("Second", "C5", 1)
	})
	recs, rerrs := recAll(t, FormatXLSX, data, RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors: %v", rerrs)
	}
	var got []string
	for _, r := range recs {
		// The date is displayed by its number format; check its kind and
		// the year, not excelize's exact rendering.
		if v, ok := recProp(r, "date"); ok && v[0].Kind != KindNull {
			if v[0].Kind != KindString || !strings.Contains(v[0].Str, "24") {
				t.Errorf("date = %+v, want a date string", v[0])
			}
			v[0].Str = "DATE"
		}
		got = append(got, r.Sheet+"/"+strconv.Itoa(r.Index)+": "+recFlat(r))
	}
	want := []string{
		"Typy/0: text=Žluťoučký kůň; int=#42; float=#1.5; bool=?TRUE; date=DATE; pct=#25%; code=007; name=name",
		"Typy/1: text=druhý; int=<null>; float=<null>; bool=?FALSE; date=<null>; pct=<null>; code=<null>; name=<null>",
		"Second/0: column_1=<null>; k=a; v=#1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records:\n got %q\nwant %q", got, want)
	}
	if v, _ := recProp(recs[0], "pct"); v[0].Num != 0.25 {
		t.Errorf("pct Num = %v, want 0.25", v[0].Num)
	}
}

func TestXLSXCorrupt(t *testing.T) {
	good := testutil.ReadDoc(t, "testEXCEL.xlsx")
	for name, in := range map[string][]byte{
		"not a zip": []byte("hello, world"),
		"truncated": good[:len(good)/2],
		"empty":     nil,
		"docx":      testutil.ReadDoc(t, "testWORD.docx"),
		"ods":       testutil.ReadDoc(t, "test-columnar.ods"),
	} {
		if _, _, err := recAllErr(FormatXLSX, in, RecordOptions{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error = %v, want ErrCorrupt", name, err)
		}
	}
}

func BenchmarkXLSX(b *testing.B) {
	b.Run("kyc", func(b *testing.B) { recBench(b, FormatXLSX, testutil.ReadDoc(b, "kyc-file-structure.xlsx")) })
	b.Run("testEXCEL", func(b *testing.B) { recBench(b, FormatXLSX, testutil.ReadDoc(b, "testEXCEL.xlsx")) })
}

// TestXLSXNumberFormats checks how numbers are shown through built-in and
// custom number formats, in a workbook written by excelize.
func TestXLSXNumberFormats(t *testing.T) {
	type cell struct {
		v      any
		numFmt int
		custom string
		want   string // recFlat form of the value
		num    float64
	}
	cells := []cell{
		{1234.5, 4, "", "#1,234.50", 1234.5},
		{0.125, 10, "", "#12.50%", 0.125},
		{-5, 3, "", "#-5", -5},
		{1234.5, 0, `"$"#,##0.00`, "#$1,234.50", 1234.5},
		{1234.5, 0, `#,##0.00\ "Kč"`, "#1,234.50 Kč", 1234.5},
		{2.5, 0, `[$€-407]\ #,##0.0`, "#€ 2.5", 2.5},
		{time.Date(2024, 3, 1, 13, 45, 0, 0, time.UTC), 22, "", "2024-03-01 13:45", 0},
		{time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), 0, "dd.mm.yyyy", "2024-03-01", 0},
		{0.5, 20, "", "12:00", 0},
		{0.75, 0, "[h]:mm:ss", "18:00:00", 0},
		{45000, 0, "mmm", "2023-03-15", 0},
		{0.30000000000000004, 0, "", "#0.3", 0.30000000000000004},
		{12345678901234567890.0, 0, "", "#1.23456789012346e+19", 12345678901234567890.0},
		{7, 49, "", "#7", 7},
		{2469.0, 0, "", "#2469", 2469},
		{1500, 0, `#,##0 Kč`, "#1,500 Kč", 1500},
		{3.5, 0, `0.0 "ks"`, "#3.5 ks", 3.5},
		{1234.5, 1, "", "#1235", 1234.5}, // half away from zero, as Excel
		{-0.125, 2, "", "#-0.13", -0.125},
	}
	data := xlsxBuild(t, func(f *excelize.File) {
		for i, c := range cells {
			col, _ := excelize.CoordinatesToCellName(i+1, 1)
			if err := f.SetCellValue("Sheet1", col, fmt.Sprintf("c%d", i)); err != nil {
				t.Fatal(err)
			}
			at, _ := excelize.CoordinatesToCellName(i+1, 2)
			if err := f.SetCellValue("Sheet1", at, c.v); err != nil {
				t.Fatal(err)
			}
			st := &excelize.Style{NumFmt: c.numFmt}
			if c.custom != "" {
				st.CustomNumFmt = &c.custom
			}
			if c.numFmt != 0 || c.custom != "" {
				id, err := f.NewStyle(st)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.SetCellStyle("Sheet1", at, at, id); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	recs, rerrs := recAll(t, FormatXLSX, data, RecordOptions{})
	if len(rerrs) != 0 || len(recs) != 1 {
		t.Fatalf("%d records, errors %v", len(recs), rerrs)
	}
	for i, c := range cells {
		v, ok := recProp(recs[0], fmt.Sprintf("c%d", i))
		if !ok {
			t.Fatalf("c%d missing", i)
		}
		got := recFlat(Record{Props: []Property{{Name: "x", Values: v}}})[2:]
		if got != c.want {
			t.Errorf("c%d (%v, format %d %q) = %q, want %q", i, c.v, c.numFmt, c.custom, got, c.want)
		}
		if v[0].Kind == KindNumber && v[0].Num != c.num {
			t.Errorf("c%d Num = %v, want %v", i, v[0].Num, c.num)
		}
	}
}

// xlsxZip builds an XLSX package from its parts, for shapes excelize does
// not write (1904 dates, rich and phonetic text, inline strings, errors,
// chart sheets, absolute targets).
func xlsxZip(t *testing.T, parts map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestXLSXHandMade(t *testing.T) {
	const rel = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
	parts := map[string]string{
		"_rels/.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="` + rel + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml": `<workbook xmlns:r="` + rel + `"><workbookPr date1904="1"/><sheets>
<sheet name="Chart" sheetId="2" r:id="rId9"/><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="` + rel + `/worksheet" Target="/xl/worksheets/data.xml"/>
<Relationship Id="rId9" Type="` + rel + `/chartsheet" Target="chartsheets/sheet1.xml"/>
<Relationship Id="rId2" Type="` + rel + `/sharedStrings" Target="sharedStrings.xml"/>
<Relationship Id="rId3" Type="` + rel + `/styles" Target="styles.xml"/></Relationships>`,
		"xl/chartsheets/sheet1.xml": `<chartsheet/>`,
		"xl/sharedStrings.xml": `<sst><si><t>name</t></si><si><t>when</t></si><si><t>note</t></si>
<si><r><t>Žluťoučký </t></r><r><rPr><b/></rPr><t xml:space="preserve">kůň</t></r><rPh><t>PHONETIC</t></rPh></si></sst>`,
		"xl/styles.xml": `<styleSheet><numFmts count="1"><numFmt numFmtId="164" formatCode="d/m/yyyy"/></numFmts>
<cellStyleXfs><xf numFmtId="10"/></cellStyleXfs><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>`,
		"xl/worksheets/data.xml": `<worksheet><sheetData>
<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="D1" t="s"><v>2</v></c></row>
<row r="3"><c r="A3" t="s"><v>3</v></c><c r="B3" s="1"><v>0</v></c><c r="D3" t="e"><f>1/0</f><v>#DIV/0!</v></c></row>
<row r="4"><c r="A4" t="inlineStr"><is><t>in_x000D_line_x005F_x0041_</t></is></c><c r="B4" s="1"><v>45000.5</v></c><c r="C4"><v>2469.0</v></c><c r="D4" t="str"><f>"4"&amp;"2"</f><v>42</v></c></row>
</sheetData></worksheet>`,
	}
	recs, rerrs := recAll(t, FormatXLSX, xlsxZip(t, parts), RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors %v", rerrs)
	}
	got := recSheetLines(recs)
	want := []string{
		"Data/0: name=Žluťoučký kůň; when=1904-01-01; column_3=<null>; note=#DIV/0!",
		"Data/1: name=in\rline_x0041_; when=2027-03-16; column_3=#2469; note=#42",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records:\n got %q\nwant %q", got, want)
	}
	// A workbook whose only sheet is a chart has no worksheets.
	delete(parts, "xl/worksheets/data.xml")
	if _, _, err := recAllErr(FormatXLSX, xlsxZip(t, parts), RecordOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("no worksheets: error %v, want ErrCorrupt", err)
	}
}

// TestXLSXLimits checks the cell cap and truncated sheets.
func TestXLSXLimits(t *testing.T) {
	old := limits
	limits.cells = 10
	defer func() { limits = old }()
	var rows strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d"><v>%d</v></c></row>`, i, i, i)
	}
	parts := map[string]string{
		"xl/workbook.xml":            `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   `<worksheet><sheetData>` + rows.String() + `</sheetData></worksheet>`,
	}
	if _, _, err := recAllErr(FormatXLSX, xlsxZip(t, parts), RecordOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("20 cells over a cap of 10: error %v, want ErrTooLarge", err)
	}
	limits = old
	parts["xl/worksheets/sheet1.xml"] = `<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>2`
	if _, _, err := recAllErr(FormatXLSX, xlsxZip(t, parts), RecordOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated sheet XML: error %v, want ErrCorrupt", err)
	}
}

// FuzzXLSXSheet mutates the XML of a worksheet and of the shared strings
// inside a minimal workbook: any input gives records or an error wrapping
// ErrCorrupt or ErrTooLarge, never a panic.
func FuzzXLSXSheet(f *testing.F) {
	f.Add(`<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" s="1"><v>45000.25</v></c></row><row><c t="inlineStr"><is><r><t>x</t></r></is></c><c t="b"><v>1</v></c></row></sheetData></worksheet>`,
		`<sst><si><t>a</t></si><si><r><t>b</t></r><rPh><t>c</t></rPh></si></sst>`)
	f.Add(`<worksheet><sheetData><row><c r="XFD1"><v>1e308</v></c><c r="ZZZZ9"><v>-1</v></c></row></sheetData></worksheet>`, `<sst/>`)
	f.Fuzz(func(t *testing.T, sheet, shared string) {
		data := xlsxZip(t, map[string]string{
			"xl/workbook.xml":            `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>`,
			"xl/_rels/workbook.xml.rels": `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="x/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="x/styles" Target="styles.xml"/></Relationships>`,
			"xl/styles.xml":              `<styleSheet><cellXfs><xf numFmtId="0"/><xf numFmtId="22"/></cellXfs></styleSheet>`,
			"xl/worksheets/sheet1.xml":   sheet,
			"xl/sharedStrings.xml":       shared,
		})
		_, _, err := recAllErr(FormatXLSX, data, RecordOptions{})
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("error %v wraps neither ErrCorrupt nor ErrTooLarge", err)
		}
	})
}

// TestXLSXOtherWriters reads workbooks written by XlsxWriter (1904 date
// system, custom formats, rich text, a cached formula value) and openpyxl
// (testdata/gen-xlsx.py); the values match what openpyxl reads back.
func TestXLSXOtherWriters(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"xlsxwriter-1904.xlsx", []string{
			"Data/0: name=Žluťoučký kůň; when=2024-03-01; amount=#1,234.50 Kč; pct=#12.5%; flag=?TRUE; time=13:45:30; big=#12345678901; formula=#2469",
			"Data/1: name=druhý; when=1999-12-31; amount=#-7.00 Kč; pct=#100.0%; flag=?FALSE; time=00:00:01; big=#1e-07; formula=#-14",
			"Rich/0: text=plain bold end",
		}},
		{"openpyxl.xlsx", []string{
			"List 1/0: id=#1; datum=2023-07-14 08:30; cena=#99.90 €; kod=007",
			"List 1/1: id=#2; datum=1900-02-28; cena=#1e+20; kod=A-1",
			"List 1/2: id=<null>; datum=<null>; cena=<null>; kod=<null>; column_6=far cell",
		}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		recs, rerrs := recAll(t, FormatXLSX, data, RecordOptions{})
		if len(rerrs) != 0 {
			t.Fatalf("%s: record errors %v", tc.file, rerrs)
		}
		got := recSheetLines(recs)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.file, got, tc.want)
		}
	}
}

// FuzzXLSXNumFmt shows numbers through arbitrary format codes: never a
// panic, and a number format (not a date) shows text that still reads as a
// number once its literal prefix and suffix are removed.
func FuzzXLSXNumFmt(f *testing.F) {
	for _, c := range []string{"General", "#,##0.00", `"$"#,##0.00;[Red]-"$"#,##0.00`, "0.0%", "yyyy-mm-dd hh:mm", "[h]:mm:ss", `_-* #,##0\ "Kč"_-`, "0.00E+00", "@", "[$€-407] #,##0", "mmm", "# ?/?"} {
		f.Add(c, 1234.5)
	}
	f.Fuzz(func(t *testing.T, code string, v float64) {
		st := parseNumFmt(code)
		x := &xlsxReader{}
		raw := strconv.FormatFloat(v, 'g', -1, 64)
		shown, date := x.show(raw, v, st)
		if date || st.kind == 'd' || math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		core := shown
		if v < 0 {
			core = strings.TrimPrefix(core, "-")
		}
		core = strings.TrimSuffix(strings.TrimPrefix(core, st.prefix), spaced(st.suffix))
		core = strings.TrimSuffix(strings.ReplaceAll(core, ",", ""), "%")
		if _, err := strconv.ParseFloat(core, 64); err != nil {
			t.Fatalf("format %q shows %v as %q (prefix %q suffix %q): not a number", code, v, shown, st.prefix, st.suffix)
		}
	})
}
