package ingest

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

func TestXLSXTestExcel(t *testing.T) {
	recs, rerrs := recAll(t, FormatXLSX, recReadDoc(t, "testEXCEL.xlsx"), RecordOptions{})
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
	recs, rerrs := recAll(t, FormatXLSX, recReadDoc(t, "kyc-file-structure.xlsx"), RecordOptions{})
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
	good := recReadDoc(t, "testEXCEL.xlsx")
	for name, in := range map[string][]byte{
		"not a zip": []byte("hello, world"),
		"truncated": good[:len(good)/2],
		"empty":     nil,
		"docx":      recReadDoc(t, "testWORD.docx"),
		"ods":       recReadDoc(t, "test-columnar.ods"),
	} {
		if _, _, err := recAllErr(FormatXLSX, in, RecordOptions{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error = %v, want ErrCorrupt", name, err)
		}
	}
}

func BenchmarkXLSX(b *testing.B) {
	b.Run("kyc", func(b *testing.B) { recBench(b, FormatXLSX, recReadDoc(b, "kyc-file-structure.xlsx")) })
	b.Run("testEXCEL", func(b *testing.B) { recBench(b, FormatXLSX, recReadDoc(b, "testEXCEL.xlsx")) })
}
