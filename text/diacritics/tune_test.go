package diacritics

import (
	"os"
	"testing"

	"github.com/najdi/najdi/text"
)

func TestTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		return
	}
	r, _ := Default()
	sents := cacSentences(t)[:603]
	for _, uw := range []float64{0.7, 0.85, 1, 1.15} {
		unigramWeight = uw
		wrong, total := 0, 0
		for _, o := range sents {
			s := strip(o)
			g, _ := r.Restore(s)
			ow, gw := text.Words(o), text.Words(g)
			for i := range ow {
				total++
				if o[ow[i].Start:ow[i].End] != g[gw[i].Start:gw[i].End] {
					wrong++
				}
			}
		}
		t.Logf("uw %v acc %.4f", uw, 1-float64(wrong)/float64(total))
	}
}
