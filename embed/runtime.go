package embed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// The ONNX Runtime environment is process-wide: it is created once, from the
// first library path given, and lives until the process exits.
var runtimeState struct {
	sync.Mutex
	path string
}

// initRuntime loads the ONNX Runtime shared library at path and creates the
// environment, once per process. An empty path reuses the loaded library.
func initRuntime(path string) error {
	runtimeState.Lock()
	defer runtimeState.Unlock()
	if runtimeState.path != "" {
		if path != "" && path != runtimeState.path {
			return fmt.Errorf("onnx runtime already loaded from %s, not %s: %w",
				runtimeState.path, path, ErrInvalidConfig)
		}
		return nil
	}
	if path == "" {
		return fmt.Errorf("no onnx runtime library path: %w", ErrNotInstalled)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("onnx runtime %s: %w", path, ErrNotInstalled)
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("load %s: %w: %w", path, ErrRuntime, err)
	}
	runtimeState.path = path
	return nil
}

// RuntimeVersion returns the version string of the loaded ONNX Runtime, or ""
// before the first model is loaded.
func RuntimeVersion() string {
	runtimeState.Lock()
	defer runtimeState.Unlock()
	if runtimeState.path == "" {
		return ""
	}
	return ort.GetVersion()
}
