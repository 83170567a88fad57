package diacritics

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/najdi/najdi/internal/testutil"

	"golang.org/x/text/unicode/norm"
)

// sharedData returns the shared/data directory found by walking up from the
// package directory.
func sharedData(t testing.TB) string {
	t.Helper()
	return testutil.SharedData(t)
}

// cacSentences returns the "# text =" lines of UD Czech-CAC dev and test.
func cacSentences(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"cs_cac-ud-dev.conllu", "cs_cac-ud-test.conllu"} {
		f, err := os.Open(filepath.Join(sharedData(t), "czech", "ud_czech_cac", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "# text = "); ok {
				out = append(out, s)
			}
		}
		f.Close()
	}
	return out
}

// strip removes diacritics keeping case.
func strip(s string) string {
	var sb strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
