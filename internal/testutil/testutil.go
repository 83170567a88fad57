// Package testutil holds helpers shared by najdi's tests.
package testutil

import (
	"os"
	"path/filepath"
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
