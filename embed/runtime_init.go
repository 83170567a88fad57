package embed

// InitRuntime loads the ONNX Runtime shared library at path once per
// process, for other packages that run ONNX models of their own (package
// rerank). An empty path reuses a library already loaded; a second,
// different path is ErrInvalidConfig.
func InitRuntime(path string) error { return initRuntime(path) }
