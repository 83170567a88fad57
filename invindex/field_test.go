package invindex

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/datadriven"
	"github.com/najdi/najdi/filter"
)

// fldTestDoc is one document of the reference data.
type fldTestDoc struct {
	strs map[string][]string
	nums map[string][]float64
}

// fldNaive is a brute-force filter.Index over fldTestDocs.
type fldNaive struct{ docs []fldTestDoc }

func (n *fldNaive) NumDocs() uint32 { return uint32(len(n.docs)) }

func (n *fldNaive) Term(field, value string) *roaring.Bitmap {
	bm := roaring.New()
	for d, doc := range n.docs {
		if slices.Contains(doc.strs[field], value) {
			bm.Add(uint32(d))
		}
	}
	if bm.IsEmpty() {
		return nil
	}
	return bm
}

func (n *fldNaive) Terms(field, from string, fn func(string, *roaring.Bitmap) bool) {
	var terms []string
	for _, doc := range n.docs {
		terms = append(terms, doc.strs[field]...)
	}
	slices.Sort(terms)
	for _, t := range slices.Compact(terms) {
		if t >= from && !fn(t, n.Term(field, t)) {
			return
		}
	}
}

func (n *fldNaive) NumberRange(field string, r filter.NumRange, _, dst *roaring.Bitmap) {
	for d, doc := range n.docs {
		if slices.ContainsFunc(doc.nums[field], r.Contains) {
			dst.Add(uint32(d))
		}
	}
}

func (n *fldNaive) NumberRangeCount(field string, r filter.NumRange) uint64 {
	var c uint64
	for _, doc := range n.docs {
		for _, v := range doc.nums[field] {
			if r.Contains(v) {
				c++
			}
		}
	}
	return c
}

func (n *fldNaive) Exists(field string) *roaring.Bitmap {
	bm := roaring.New()
	for d, doc := range n.docs {
		if len(doc.strs[field])+len(doc.nums[field]) > 0 {
			bm.Add(uint32(d))
		}
	}
	if bm.IsEmpty() {
		return nil
	}
	return bm
}

// fldRandomDocs returns n random docs with multi-valued string and number
// fields; values repeat so that ranges and terms hit exact edges.
func fldRandomDocs(r *rand.Rand, n int) []fldTestDoc {
	words := []string{"a", "ab", "abc", "b", "Ba", "ž", "žluť", "x y", ""}
	docs := make([]fldTestDoc, n)
	for d := range docs {
		doc := fldTestDoc{strs: map[string][]string{}, nums: map[string][]float64{}}
		for _, f := range []string{"s1", "s2"} {
			for range r.IntN(3) {
				w := words[r.IntN(len(words))]
				if !slices.Contains(doc.strs[f], w) {
					doc.strs[f] = append(doc.strs[f], w)
				}
			}
		}
		for _, f := range []string{"n1", "n2"} {
			for range r.IntN(3) {
				v := float64(r.IntN(40)-10) / 2
				if !slices.Contains(doc.nums[f], v) {
					doc.nums[f] = append(doc.nums[f], v)
				}
			}
		}
		docs[d] = doc
	}
	return docs
}

func fldBuild(docs []fldTestDoc) *FieldIndex {
	b := NewFieldBuilder()
	for d, doc := range docs {
		for f, vs := range doc.strs {
			for _, v := range vs {
				b.AddString(uint32(d), f, v)
			}
		}
		for f, vs := range doc.nums {
			for _, v := range vs {
				b.AddNumber(uint32(d), f, v)
			}
		}
	}
	return b.Build(uint32(len(docs)))
}

// fldFilters is a fixed set covering every clause over the random fields.
func fldFilters(r *rand.Rand) []filter.Query {
	srcs := []string{
		`{"term":{"s1":"ab"}}`, `{"term":{"s1":""}}`, `{"term":{"s2":{"value":"ŽLUŤ","case_insensitive":true}}}`,
		`{"terms":{"s2":["a","x y","nope"]}}`, `{"term":{"n1":2.5}}`, `{"terms":{"n2":[-5,0,"1"]}}`,
		`{"exists":{"field":"n2"}}`, `{"exists":{"field":"s1"}}`, `{"regexp":{"s1":"a.*"}}`,
		`{"regexp":{"s2":{"value":"[a-c]+|ž.*","case_insensitive":true}}}`, `{"regexp":{"s1":"~(a.*)"}}`,
		`{"prefix":{"s1":"a"}}`, `{"prefix":{"s2":{"value":"Ž","case_insensitive":true}}}`, `{"contains":{"s2":"b"}}`,
		`{"bool":{"must_not":{"exists":{"field":"n1"}}}}`, `{"match_all":{}}`,
	}
	for range 200 {
		lo, hi := float64(r.IntN(44)-12)/2, float64(r.IntN(44)-12)/2
		ops := [][2]string{{"gt", "lt"}, {"gte", "lte"}, {"gt", "lte"}, {"gte", "lt"}}[r.IntN(4)]
		f := []string{"n1", "n2"}[r.IntN(2)]
		rng := fmt.Sprintf(`{"range":{%q:{%q:%v,%q:%v}}}`, f, ops[0], lo, ops[1], hi)
		srcs = append(srcs, rng,
			fmt.Sprintf(`{"bool":{"filter":[{"term":{"s1":"a"}},%s],"should":[{"term":{"s2":"b"}},{"exists":{"field":"n2"}}],"minimum_should_match":1}}`, rng),
			fmt.Sprintf(`{"bool":{"should":[%s,{"regexp":{"s1":"ab?"}}],"must_not":{"term":{"s2":"Ba"}}}}`, rng))
	}
	qs := make([]filter.Query, len(srcs))
	for i, s := range srcs {
		q, err := filter.Parse([]byte(s))
		if err != nil {
			panic(fmt.Sprintf("BUG: %s: %v", s, err))
		}
		qs[i] = q
	}
	return qs
}

// fldSameResults checks that every filter gives the same docs on got and want.
func fldSameResults(t *testing.T, qs []filter.Query, got, want filter.Index) {
	t.Helper()
	g, w := roaring.New(), roaring.New()
	for _, q := range qs {
		if err := filter.Eval(q, got, g); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if err := filter.Eval(q, want, w); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !g.Equals(w) {
			t.Fatalf("%s:\ngot  %v\nwant %v", q, g.ToArray(), w.ToArray())
		}
	}
}

func TestFieldIndexMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	// 5000 docs so that number fields span several range buckets.
	for _, n := range []int{0, 1, 37, 5000} {
		docs := fldRandomDocs(r, n)
		idx := fldBuild(docs)
		fldSameResults(t, fldFilters(r), idx, &fldNaive{docs: docs})
	}
}

func TestFieldIndexRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	docs := fldRandomDocs(r, 3000)
	idx := fldBuild(docs)
	data := idx.AppendBinary([]byte("prefix"))
	dec, err := DecodeFieldIndex(data[len("prefix"):])
	if err != nil {
		t.Fatal(err)
	}
	if dec.NumDocs() != idx.NumDocs() || !slices.Equal(dec.Fields(), idx.Fields()) {
		t.Fatalf("decoded %d docs %v, want %d %v", dec.NumDocs(), dec.Fields(), idx.NumDocs(), idx.Fields())
	}
	if again := dec.AppendBinary(nil); !bytes.Equal(again, data[len("prefix"):]) {
		t.Fatal("re-encoding the decoded index differs")
	}
	fldSameResults(t, fldFilters(r), dec, &fldNaive{docs: docs})
	for d := range uint32(len(docs)) {
		want := slices.Clone(docs[d].nums["n1"])
		slices.Sort(want)
		if got := dec.NumberValues("n1", d); !slices.Equal(got, want) {
			t.Fatalf("doc %d: values %v, want %v", d, got, want)
		}
	}
}

func TestFieldIndexCorruption(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	data := fldBuild(fldRandomDocs(r, 200)).AppendBinary(nil)
	for i := range data {
		for _, bit := range []byte{0x01, 0x80} {
			bad := slices.Clone(data)
			bad[i] ^= bit
			_, err := DecodeFieldIndex(bad)
			if err == nil {
				t.Fatalf("flipping bit %#x of byte %d went unnoticed", bit, i)
			}
			if !errors.Is(err, ErrFieldCorrupt) && !errors.Is(err, ErrFieldVersion) {
				t.Fatalf("byte %d: error %v wraps neither sentinel", i, err)
			}
		}
	}
	for n := range len(data) {
		if _, err := DecodeFieldIndex(data[:n]); err == nil {
			t.Fatalf("truncation to %d bytes went unnoticed", n)
		}
	}
}

// fldReseal replaces the checksum so that corrupt bodies reach the parser.
func fldReseal(body []byte) []byte {
	return fldAppendCRC(slices.Clone(body))
}

// TestFieldIndexCorruptBodies corrupts the body under a valid checksum: the
// structural checks must reject or accept it without panicking.
func TestFieldIndexCorruptBodies(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	data := fldBuild(fldRandomDocs(r, 100)).AppendBinary(nil)
	body := data[:len(data)-4]
	rejected := 0
	for i := 5; i < len(body); i++ {
		bad := slices.Clone(body)
		bad[i] ^= byte(1 + r.IntN(255))
		if _, err := DecodeFieldIndex(fldReseal(bad)); err != nil {
			if !errors.Is(err, ErrFieldCorrupt) {
				t.Fatalf("byte %d: %v", i, err)
			}
			rejected++
		}
	}
	// Most single-byte changes break a structural invariant.
	if rejected < (len(body)-5)/2 {
		t.Fatalf("only %d of %d corrupt bodies rejected", rejected, len(body)-5)
	}
}

func FuzzDecodeFieldIndex(f *testing.F) {
	r := rand.New(rand.NewPCG(11, 12))
	f.Add(fldBuild(fldRandomDocs(r, 20)).AppendBinary(nil))
	f.Add(fldBuild(nil).AppendBinary(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range [][]byte{data, fldReseal(data)} {
			idx, err := DecodeFieldIndex(d)
			if err != nil {
				continue
			}
			_ = filter.Eval(&filter.Range{Field: "n1"}, idx, roaring.New())
		}
	})
}

func TestMergeFieldIndexes(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var parts []*FieldIndex
	var remap [][]int32
	var survivors []fldTestDoc
	next := int32(0)
	for _, n := range []int{300, 0, 2500, 41} {
		docs := fldRandomDocs(r, n)
		parts = append(parts, fldBuild(docs))
		m := make([]int32, n)
		for d := range m {
			if r.IntN(4) == 0 {
				m[d] = -1 // deleted
				continue
			}
			m[d] = next
			next++
			survivors = append(survivors, docs[d])
		}
		remap = append(remap, m)
	}
	merged := MergeFieldIndexes(parts, remap)
	scratch := fldBuild(survivors)
	if !bytes.Equal(merged.AppendBinary(nil), scratch.AppendBinary(nil)) {
		t.Fatal("merged index differs from the index built from the surviving docs")
	}
	fldSameResults(t, fldFilters(r), merged, &fldNaive{docs: survivors})
}

func TestFieldNumberRangeWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	docs := fldRandomDocs(r, 20000)
	idx := fldBuild(docs)
	naive := &fldNaive{docs: docs}
	for range 300 {
		within := roaring.New()
		for range r.IntN(50) {
			within.Add(uint32(r.IntN(len(docs))))
		}
		rg := filter.NumRange{Lo: float64(r.IntN(44)-12) / 2, Hi: float64(r.IntN(44)-12) / 2, LoIncl: r.IntN(2) == 0, HiIncl: r.IntN(2) == 0}
		if r.IntN(10) == 0 {
			rg.Lo = math.Inf(-1)
		}
		got, want := roaring.New(), roaring.New()
		idx.NumberRange("n1", rg, within, got)
		naive.NumberRange("n1", rg, nil, want)
		// The index may restrict to within; it must not add docs outside
		// the range, and must cover range ∩ within.
		if !roaring.And(want, within).Equals(roaring.And(got, within)) || !roaring.AndNot(got, want).IsEmpty() {
			t.Fatalf("range %+v within %v: got %v", rg, within.ToArray(), got.ToArray())
		}
		if c := idx.NumberRangeCount("n1", rg); c < want.GetCardinality() {
			t.Fatalf("range %+v: count %d below %d docs", rg, c, want.GetCardinality())
		}
		full := roaring.New()
		idx.NumberRange("n1", rg, nil, full)
		if !full.Equals(want) {
			t.Fatalf("range %+v: got %d docs, want %d", rg, full.GetCardinality(), want.GetCardinality())
		}
	}
}

// TestFieldDataDriven runs the filter package's scripts against FieldIndex.
func TestFieldDataDriven(t *testing.T) {
	for _, name := range []string{"eval", "regexp"} {
		var schema filter.SchemaMap
		var idx *FieldIndex
		datadriven.RunTest(t, "../filter/testdata/"+name, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "schema":
				schema = filter.SchemaMap{}
				for _, f := range strings.Fields(d.Input) {
					k, v, _ := strings.Cut(f, "=")
					schema[k] = filter.FieldType(v)
				}
				return ""
			case "docs":
				b := NewFieldBuilder()
				n := uint32(0)
				for _, line := range strings.Split(d.Input, "\n") {
					fs := strings.Fields(line)
					id, _ := strconv.Atoi(fs[0])
					n = max(n, uint32(id)+1)
					for _, kv := range fs[1:] {
						k, vals, _ := strings.Cut(kv, "=")
						for _, v := range strings.Split(vals, "|") {
							if schema[k] == filter.FieldNumber {
								x, err := strconv.ParseFloat(v, 64)
								if err != nil {
									t.Fatal(err)
								}
								b.AddNumber(uint32(id), k, x)
							} else {
								b.AddString(uint32(id), k, v)
							}
						}
					}
				}
				idx = b.Build(n)
				return ""
			case "parse":
				return d.Expected
			case "eval", "params":
				var q filter.Query
				var err error
				if d.Cmd == "eval" {
					q, err = filter.Parse([]byte(d.Input))
				} else {
					var ps [][2]string
					for _, line := range strings.Split(d.Input, "\n") {
						if k, v, ok := strings.Cut(line, "="); ok {
							ps = append(ps, [2]string{k, v})
						}
					}
					q, err = filter.ParseQueryParams(ps)
				}
				if err == nil {
					err = q.Validate(schema)
				}
				dst := roaring.New()
				if err == nil {
					err = filter.Eval(q, idx, dst)
				}
				if err != nil {
					return "error: " + err.Error()
				}
				if dst.IsEmpty() {
					return "none"
				}
				ids := make([]string, 0, dst.GetCardinality())
				for _, x := range dst.ToArray() {
					ids = append(ids, strconv.Itoa(int(x)))
				}
				return strings.Join(ids, " ")
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	}
}
