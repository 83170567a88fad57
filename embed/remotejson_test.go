package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// viaEncodingJSON decodes b as the slow path does.
func viaEncodingJSON(b []byte) ([]remoteItem, error) {
	var rr remoteResponse
	if err := json.Unmarshal(b, &rr); err != nil {
		return nil, err
	}
	items := make([]remoteItem, len(rr.Data))
	for i, d := range rr.Data {
		items[i].vec = d.Embedding
		if d.Index != nil {
			items[i].index, items[i].hasIndex = *d.Index, true
		}
	}
	return items, nil
}

// sameItems compares decoded answers bit for bit (float32 bits, so that
// -0 and 0 differ).
func sameItems(a, b []remoteItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].index != b[i].index || a[i].hasIndex != b[i].hasIndex || len(a[i].vec) != len(b[i].vec) || (a[i].vec == nil) != (b[i].vec == nil) {
			return false
		}
		for j := range a[i].vec {
			if math.Float32bits(a[i].vec[j]) != math.Float32bits(b[i].vec[j]) {
				return false
			}
		}
	}
	return true
}

// checkAgrees fails unless parseEmbeddings either declines b or decodes
// it exactly as encoding/json does; want tells whether it must take the
// fast path.
func checkAgrees(t *testing.T, b []byte, want bool) {
	t.Helper()
	got, ok := parseEmbeddings(b)
	ref, err := viaEncodingJSON(b)
	if ok && err != nil {
		t.Fatalf("%.200s: fast path accepted what encoding/json rejects (%v)", b, err)
	}
	if ok && !sameItems(got, ref) {
		t.Fatalf("%.200s: fast path %+v, encoding/json %+v", b, got, ref)
	}
	if ok != want {
		t.Fatalf("%.200s: fast path taken %v, want %v", b, ok, want)
	}
}

func TestParseEmbeddingsAgrees(t *testing.T) {
	tests := []struct {
		body string
		fast bool
	}{
		{`{"data":[{"index":0,"embedding":[1,2]}]}`, true},
		{`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.5,-0.25e-3,1E2]},{"object":"embedding","index":0,"embedding":[-0,0.0,3]}],"model":"m","usage":{"prompt_tokens":3,"total_tokens":3,"x":[true,false,null,"a\"\\\u00e9"]}}`, true},
		{" \n{ \"data\" : [ { \"embedding\" : [ 1 , 2 ] } ] } \t", true},
		{`{"data":[]}`, true},
		{`{}`, true},
		{`{"data":[{"index":0,"embedding":[]}]}`, true},
		{`{"data":[{"index":-3,"embedding":[1]}]}`, true},
		{`{"data":[{"index":0,"embedding":[1.00000000000000000000000001,123456789012345678901234567890,1e-40,1e-46,3.4028235e38]}]}`, true},
		{`{"data":[{"index":0,"embedding":[0.000000000000000000000000000000000000000000000000001]}]}`, true},
		// Declined: encoding/json decides (an error, or a meaning the fast
		// path does not reproduce).
		{`{"data":[{"index":0,"embedding":[1e39]}]}`, false},
		{`{"Data":[{"index":0,"embedding":[1]}]}`, false},
		{`{"data":[{"INDEX":0,"embedding":[1]}]}`, false},
		{`{"data":[{"index":0,"Embedding":[1]}]}`, false},
		{`{"data":[{"index":0,"embedding":[1]}],"data":[]}`, false},
		{`{"data":[{"index":0,"index":1,"embedding":[1]}]}`, false},
		{`{"data":[{"index":0,"embedding":[1],"embedding":[2]}]}`, false},
		{`{"data":null}`, false},
		{`{"data":[{"index":null,"embedding":[1]}]}`, false},
		{`{"data":[{"index":0,"embedding":null}]}`, false},
		{`{"data":[{"index":0,"embedding":[null]}]}`, false},
		{`{"data":[{"index":0}]}`, false},
		{`{"data":[{}]}`, false},
		{`{"data":[{"index":1.5,"embedding":[1]}]}`, false},
		{`{"data":[{"index":1e0,"embedding":[1]}]}`, false},
		{`{"data":[{"index":01,"embedding":[1]}]}`, false},
		{`{"data":[{"index":0,"embedding":[01]}]}`, false},
		{`{"data":[{"index":0,"embedding":[1.]}]}`, false},
		{`{"data":[{"index":0,"embedding":[.5]}]}`, false},
		{`{"data":[{"index":0,"embedding":[+1]}]}`, false},
		{`{"data":[{"index":0,"embedding":[1e]}]}`, false},
		{`{"data":[{"index":0,"embedding":[1,]}]}`, false},
		{`{"data":[{"index":0,"embedding":["1"]}]}`, false},
		{`{"data":[{"index":0,"embedding":[1]},]}`, false},
		{`{"data":[{"index":0,"embedding":[1]}]} x`, false},
		{`{"data":[{"index":0,"embedding":[1]}]}{}`, false},
		{`{"da\u0074a":[{"index":0,"embedding":[1]}]}`, false},
		{`{"x":"a` + "\x01" + `","data":[]}`, false},
		{`{"x":"\q","data":[]}`, false},
		{`{"x":"\u12","data":[]}`, false},
		{`{"x":tru,"data":[]}`, false},
		{`{"x":-,"data":[]}`, false},
		{`{"x":[1 2],"data":[]}`, false},
		{`{"x":{"a" 1},"data":[]}`, false},
		{`{"x":{1:1},"data":[]}`, false},
		{`[]`, false},
		{`null`, false},
		{`{"data":`, false},
		{`<html>page</html>`, false},
		{``, false},
		{"\ufeff{}", false},
		{`{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"data":[]}`, false},
	}
	for _, tt := range tests {
		checkAgrees(t, []byte(tt.body), tt.fast)
	}
}

// TestParseEmbeddingsFloats checks the fast float path against
// strconv.ParseFloat(s, 32) on numbers written the ways embedding servers
// write them: shortest float32 and float64 forms, fixed precision,
// exponents, and values near float32 rounding midpoints.
func TestParseEmbeddingsFloats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var nums []string
	for range 200000 {
		x := float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(12)-9)))
		d := float64(x)
		switch r.IntN(6) {
		case 0:
			nums = append(nums, strconv.FormatFloat(d, 'g', -1, 32))
		case 1:
			nums = append(nums, strconv.FormatFloat(r.NormFloat64(), 'g', -1, 64))
		case 2:
			nums = append(nums, strconv.FormatFloat(d, 'f', r.IntN(12), 64))
		case 3:
			nums = append(nums, strconv.FormatFloat(d, 'e', r.IntN(10), 64))
		case 4:
			// Halfway between x and the next float32 up, and near it.
			mid := (d + float64(math.Nextafter32(x, float32(math.Inf(1))))) / 2
			nums = append(nums, strconv.FormatFloat(mid, 'g', -1, 64), strconv.FormatFloat(math.Nextafter(mid, 0), 'g', -1, 64),
				strconv.FormatFloat(math.Nextafter(mid, math.Inf(1)), 'g', 17, 64))
		case 5:
			nums = append(nums, strconv.FormatFloat(d, 'g', 9, 64))
		}
	}
	for lo := 0; lo < len(nums); lo += 1000 {
		part := nums[lo:min(lo+1000, len(nums))]
		body := []byte(`{"data":[{"index":0,"embedding":[` + strings.Join(part, ",") + `]}]}`)
		items, ok := parseEmbeddings(body)
		if !ok {
			t.Fatalf("declined numbers %v", part)
		}
		for i, s := range part {
			want, err := strconv.ParseFloat(s, 32)
			if err != nil {
				t.Fatal(err)
			}
			if got := items[0].vec[i]; math.Float32bits(got) != math.Float32bits(float32(want)) {
				t.Errorf("%s: %g (%#x), strconv %g (%#x)", s, got, math.Float32bits(got), want, math.Float32bits(float32(want)))
			}
		}
	}
}

// FuzzParseEmbeddings checks that the fast path never accepts what
// encoding/json rejects and never decodes differently.
func FuzzParseEmbeddings(f *testing.F) {
	f.Add([]byte(`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.5,-0.25e-3]},{"index":0,"embedding":[-0,3]}],"usage":{"n":[true,null,"\u00e9"]}}`))
	f.Add([]byte(`{"data":[{"embedding":[1e-40,3.4028235e38,123456789012345678901]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parseEmbeddings(b)
		if !ok {
			return
		}
		ref, err := viaEncodingJSON(b)
		if err != nil {
			t.Fatalf("%q: fast path accepted what encoding/json rejects (%v)", b, err)
		}
		if !sameItems(got, ref) {
			t.Fatalf("%q: fast path %+v, encoding/json %+v", b, got, ref)
		}
	})
}

// TestRemoteDecodesLargeAnswer embeds a batch whose answer the fast path
// decodes (a backing array that grows mid-vector) and one only
// encoding/json takes (a key in upper case), and checks both against the
// vectors served.
func TestRemoteDecodesLargeAnswer(t *testing.T) {
	const n, dims = 300, 384
	r := rand.New(rand.NewPCG(3, 4))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dims)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
		normalize(vecs[i])
	}
	for _, key := range []string{"embedding", "EMBEDDING"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			var b strings.Builder
			b.WriteString(`{"data":[`)
			for i := n - 1; i >= 0; i-- {
				fmt.Fprintf(&b, `{"index":%d,%q:[`, i, key)
				for j, x := range vecs[i] {
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
				}
				b.WriteString("]}")
				if i > 0 {
					b.WriteString(",\n")
				}
			}
			b.WriteString(`]}`)
			w.Write([]byte(b.String()))
		}))
		rem, err := NewRemote(RemoteConfig{URL: srv.URL, Model: "m", Dims: dims, BatchSize: n})
		if err != nil {
			t.Fatal(err)
		}
		texts := make([]string, n)
		got, err := rem.EmbedPassages(context.Background(), texts)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i := range vecs {
			if !reflect.DeepEqual(got[i], vecs[i]) {
				// normalize of a unit vector may move the last bit: compare
				// within a float32 rounding.
				for j := range vecs[i] {
					if math.Abs(float64(got[i][j]-vecs[i][j])) > 1e-6 {
						t.Fatalf("%s: vector %d[%d] = %g, want %g", key, i, j, got[i][j], vecs[i][j])
					}
				}
			}
		}
	}
}
