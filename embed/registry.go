package embed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// DefaultModel is the model that the name "default" (or "") selects.
const DefaultModel = "bge-small-en-v1.5"

// DefaultCacheDir returns $NAJDI_CACHE, or $HOME/.cache/najdi when it is
// unset: the directory scripts/install-models.sh installs into.
func DefaultCacheDir() string {
	if d := os.Getenv("NAJDI_CACHE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".cache", "najdi")
	}
	return filepath.Join(home, ".cache", "najdi")
}

// CachePaths returns the models directory and the ONNX Runtime library path
// inside a cache directory laid out by scripts/install-models.sh.
func CachePaths(cacheDir string) (modelsDir, libPath string) {
	return filepath.Join(cacheDir, "models"), filepath.Join(cacheDir, "onnxruntime", "libonnxruntime.so")
}

// Registry resolves model names to shared, lazily loaded Local embedders.
// It is safe for concurrent use; each model is loaded at most once.
type Registry struct {
	modelsDir string
	opts      LocalOptions

	mu     sync.Mutex
	loaded map[string]*registryEntry
}

type registryEntry struct {
	once  sync.Once
	local *Local
	err   error
}

// NewRegistry returns a Registry over the model directories in modelsDir,
// loading ONNX Runtime from libPath.
func NewRegistry(modelsDir, libPath string) *Registry {
	return NewRegistryOptions(modelsDir, LocalOptions{LibraryPath: libPath})
}

// NewRegistryOptions is NewRegistry with the options every model is loaded
// with.
func NewRegistryOptions(modelsDir string, opts LocalOptions) *Registry {
	return &Registry{modelsDir: modelsDir, opts: opts, loaded: map[string]*registryEntry{}}
}

// Get returns the embedder for an installed model name; "default" and ""
// select DefaultModel. The first Get of a name loads the model.
func (r *Registry) Get(name string) (Embedder, error) {
	l, err := r.Local(name)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Local is Get returning the concrete type, which also counts tokens.
func (r *Registry) Local(name string) (*Local, error) {
	if name == "" || name == "default" {
		name = DefaultModel
	}
	if name == "none" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("model %q: %w", name, ErrUnknownModel)
	}
	r.mu.Lock()
	e, ok := r.loaded[name]
	if !ok {
		e = &registryEntry{}
		r.loaded[name] = e
	}
	r.mu.Unlock()
	e.once.Do(func() {
		dir := filepath.Join(r.modelsDir, name)
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
			e.err = fmt.Errorf("model %q not in %s (installed: %s): %w: %w",
				name, r.modelsDir, strings.Join(r.Installed(), ", "), ErrUnknownModel, ErrNotInstalled)
			return
		}
		e.local, e.err = LoadLocal(dir, r.opts)
	})
	if e.err != nil {
		// A failed load is retried on the next Get (e.g. after installing).
		r.mu.Lock()
		if r.loaded[name] == e {
			delete(r.loaded, name)
		}
		r.mu.Unlock()
	}
	return e.local, e.err
}

// Installed returns the sorted names of the model directories that hold a
// manifest.json.
func (r *Registry) Installed() []string {
	entries, err := os.ReadDir(r.modelsDir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(r.modelsDir, e.Name(), "manifest.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// Close closes every loaded model.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for name, e := range r.loaded {
		if e.local != nil {
			errs = append(errs, e.local.Close())
		}
		delete(r.loaded, name)
	}
	return errors.Join(errs...)
}
