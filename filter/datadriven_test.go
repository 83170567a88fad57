package filter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/datadriven"
)

// TestDataDriven runs the scripts in testdata/. Commands:
//
//	schema            input: "field=type ..." lines
//	docs              input: one doc per line, "id field=v1|v2 field=v ..."
//	eval              input: a filter object; output: matching ids or the error
//	parse             input: a filter object; output: canonical form or the error
//	params            input: "field=value" lines (query endpoint filters)
//
// Values of number fields are parsed as float64, others kept as strings.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var schema SchemaMap
		idx := newMemIndex(0)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "schema":
				schema = parseTestSchema(d.Input)
				return ""
			case "docs":
				idx = newMemIndex(0)
				err := parseTestDocs(d.Input, schema, func(n uint32) { idx.n = n }, idx.addString, idx.addNumber)
				if err != nil {
					t.Fatal(err)
				}
				return ""
			case "parse":
				q, err := Parse([]byte(d.Input))
				if err != nil {
					return "error: " + err.Error()
				}
				s := q.String()
				q2, err := Parse([]byte(s))
				if err != nil {
					t.Fatalf("canonical form %s does not parse: %v", s, err)
				}
				if q2.String() != s {
					t.Fatalf("round trip: %s != %s", q2.String(), s)
				}
				return s
			case "eval", "params":
				var q Query
				var err error
				if d.Cmd == "eval" {
					q, err = Parse([]byte(d.Input))
				} else {
					q, err = ParseQueryParams(parseTestParams(d.Input))
				}
				if err == nil {
					err = q.Validate(schema)
				}
				dst := roaring.New()
				if err == nil {
					err = Eval(q, idx, dst)
				}
				if err != nil {
					return "error: " + err.Error()
				}
				return formatIDs(dst)
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func parseTestSchema(input string) SchemaMap {
	s := SchemaMap{}
	for _, f := range strings.Fields(input) {
		name, typ, _ := strings.Cut(f, "=")
		s[name] = FieldType(typ)
	}
	return s
}

func parseTestParams(input string) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		if line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		out = append(out, [2]string{k, v})
	}
	return out
}

// parseTestDocs reads "id field=v1|v2 ..." lines; setN receives max id + 1.
func parseTestDocs(input string, schema SchemaMap, setN func(uint32),
	addString func(uint32, string, string), addNumber func(uint32, string, float64)) error {
	n := uint32(0)
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		id, err := strconv.ParseUint(fs[0], 10, 32)
		if err != nil {
			return fmt.Errorf("doc id %q: %w", fs[0], err)
		}
		n = max(n, uint32(id)+1)
		for _, kv := range fs[1:] {
			field, vals, ok := strings.Cut(kv, "=")
			if !ok {
				return errors.New("bad field " + kv)
			}
			for _, v := range strings.Split(vals, "|") {
				if schema[field] == FieldNumber {
					f, err := strconv.ParseFloat(v, 64)
					if err != nil {
						return err
					}
					addNumber(uint32(id), field, f)
				} else {
					addString(uint32(id), field, v)
				}
			}
		}
	}
	setN(n)
	return nil
}
