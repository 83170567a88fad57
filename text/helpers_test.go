package text

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// czechSentences returns the sentences of the UD Czech-CAC files.
func czechSentences(t testing.TB) []string { return testutil.CzechSentences(t) }

// czechFormLemmas returns (form, lemma) pairs of the UD Czech-CAC dev file.
func czechFormLemmas(t testing.TB) [][2]string {
	t.Helper()
	f, err := os.Open(filepath.Join(testutil.SharedData(t), "czech", "ud_czech_cac", "cs_cac-ud-dev.conllu"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 || cols[3] == "PUNCT" || cols[3] == "NUM" || strings.ContainsAny(cols[0], "-.") {
			continue
		}
		lemma, _, _ := strings.Cut(cols[2], "_")
		lemma, _, _ = strings.Cut(lemma, "-")
		out = append(out, [2]string{cols[1], lemma})
	}
	return out
}
