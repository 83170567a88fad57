package embed

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// sharedData returns the shared/data directory found by walking up from the
// package directory.
func sharedData(t testing.TB) string {
	t.Helper()
	return testutil.SharedData(t)
}

// cacheDir returns NAJDI_CACHE or $HOME/.cache/najdi.
func cacheDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("NAJDI_CACHE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(home, ".cache", "najdi")
}

// modelDir returns the installed model directory, failing the test with
// install instructions when it is missing.
func modelDir(t testing.TB, name string) string {
	t.Helper()
	d := filepath.Join(cacheDir(t), "models", name)
	if _, err := os.Stat(filepath.Join(d, "manifest.json")); err != nil {
		t.Fatalf("model %s not installed in %s: run scripts/install-models.sh %s (%v)", name, d, name, err)
	}
	return d
}

// libPath returns the installed ONNX Runtime library path, failing the test
// with install instructions when it is missing.
func libPath(t testing.TB) string {
	t.Helper()
	p := filepath.Join(cacheDir(t), "onnxruntime", "libonnxruntime.so")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("ONNX Runtime not installed at %s: run scripts/install-models.sh (%v)", p, err)
	}
	return p
}
