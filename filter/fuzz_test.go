package filter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// FuzzParse checks that Parse never panics, that whatever parses has a
// canonical form that parses back to the same form, and that evaluation
// never panics either.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "{") {
				f.Add([]byte(line))
			}
		}
	}
	idx := newMemIndex(3)
	idx.addString(0, "v", "abc")
	idx.addString(1, "v", "x")
	idx.addNumber(2, "n", 5)
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := Parse(data)
		if err != nil {
			return
		}
		s := q.String()
		q2, err := Parse([]byte(s))
		if err != nil {
			t.Fatalf("canonical form %s does not parse: %v", s, err)
		}
		if s2 := q2.String(); s2 != s {
			t.Fatalf("round trip: %s != %s", s2, s)
		}
		_ = Eval(q, idx, roaring.New())
	})
}
