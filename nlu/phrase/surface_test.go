package phrase_test

import (
	"testing"

	"github.com/najdi/najdi/internal/evaldata"
	"github.com/najdi/najdi/internal/testutil"
)

// TestSurfaceFormsQuality is the cs_restaurant closed-list evaluation:
// each slot's values (with their lemmas as synonyms) are one phrase set,
// each inflected form a text that must match exactly its value.
func TestSurfaceFormsQuality(t *testing.T) {
	sets, err := evaldata.ReadSurfaceForms(testutil.SharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	tp, fp, fn := 0, 0, 0
	for _, s := range sets {
		m, err := s.Matcher()
		if err != nil {
			t.Fatal(err)
		}
		a, b, c := s.FormCounts(m)
		tp, fp, fn = tp+a, fp+b, fn+c
	}
	p := float64(tp) / float64(tp+fp)
	r := float64(tp) / float64(tp+fn)
	t.Logf("surface forms: n=%d precision=%.3f recall=%.3f", tp+fn, p, r)
	if p < 0.95 || r < 0.95 {
		t.Errorf("precision %.3f recall %.3f, want both >= 0.95", p, r)
	}
}
