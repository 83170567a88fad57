// Package testutil holds helpers shared by najdi's tests.
package testutil

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SharedData returns the absolute path of the shared evaluation data
// (shared/data beside the repository), found by walking up from the
// current directory. It fails the test when there is none.
func SharedData(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("shared/data not found in any parent directory of the package")
		}
		dir = parent
	}
}

// CzechSentences returns the "# text = " lines (the sentences) of the UD
// Czech-CAC dev and test files in shared/data, in order.
func CzechSentences(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, name := range []string{"cs_cac-ud-dev.conllu", "cs_cac-ud-test.conllu"} {
		f, err := os.Open(filepath.Join(SharedData(tb), "czech", "ud_czech_cac", name))
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "# text = "); ok {
				out = append(out, s)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// ReadDoc returns the file name of shared/data/docs (the sample
// documents), failing the test when it cannot be read.
func ReadDoc(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(SharedData(tb), "docs", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
