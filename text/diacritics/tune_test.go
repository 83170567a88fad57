package diacritics

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/najdi/najdi/text"
)

func devSents(t *testing.T, name string) []string {
	f, _ := os.Open("/work/shared/data/czech/ud_czech_cac/" + name)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "# text = "); ok {
			out = append(out, s)
		}
	}
	return out
}

func evalAcc(r *Restorer, sents []string) float64 {
	words, correct := 0, 0
	for _, o := range sents {
		s := strip(o)
		g, _ := r.Restore(s)
		ow, gw := text.Words(o), text.Words(g)
		for i := range ow {
			words++
			if o[ow[i].Start:ow[i].End] == g[gw[i].Start:gw[i].End] {
				correct++
			}
		}
	}
	return float64(correct) / float64(words)
}

func TestTune(t *testing.T) {
	r := restorer(t)
	dev := devSents(t, "cs_cac-ud-dev.conllu")
	test := devSents(t, "cs_cac-ud-test.conllu")
	grid := os.Getenv("TUNE")
	for _, g := range strings.Split(grid, ";") {
		f := strings.Split(g, ",")
		v := make([]float64, len(f))
		for i := range f {
			v[i], _ = strconv.ParseFloat(f[i], 64)
		}
		pairPrior, classWeight, classPrior, classFloor, classWordPrior, nextClassWeight = v[0], v[1], v[2], v[3], v[4], v[5]
		fmt.Printf("%s dev %.4f test %.4f\n", g, evalAcc(r, dev), evalAcc(r, test))
	}
}
