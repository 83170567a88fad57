package diacritics

import (
	"os"
	"strings"
	"testing"

	"github.com/najdi/najdi/text"
)

func TestTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		return
	}
	r, _ := Default()
	for _, mu := range []float64{200} {
		for _, kp := range []float64{0.5} {
			pairPrior, classWeight = mu, kp
			sents := cacSentences(t)[603:]
			oov, notCand, wrong, total := 0, 0, 0, 0
			for _, o := range sents {
				s := strip(o)
				g, _ := r.Restore(s)
				ow, sw, gw := text.Words(o), text.Words(s), text.Words(g)
				if len(ow) != len(gw) {
					continue
				}
				for i := range ow {
					total++
					ox, sx, gx := o[ow[i].Start:ow[i].End], s[sw[i].Start:sw[i].End], g[gw[i].Start:gw[i].End]
					if ox == gx {
						continue
					}
					cs := r.candidates(text.Fold(sx))
					if len(cs) == 0 {
						oov++
						if oov < 0 {
							t.Log(sx, gx, ox)
						}
						continue
					}
					found := false
					for _, c := range cs {
						if c.form == strings.ToLower(ox) {
							found = true
						}
					}
					if !found {
						notCand++
					} else {
						wrong++
						if wrong < 0 {
							t.Log("W", sx, gx, ox)
						}
					}
				}
			}
			t.Logf("w %v prior %v total %d oov %d notCand %d wrongChoice %d", mu, kp, total, oov, notCand, wrong)
			oov, notCand, wrong, total = 0, 0, 0, 0
		}
	}
}
