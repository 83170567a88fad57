//go:build !amd64

package vector

var (
	kernelName       = "generic"
	dotInt8Rows      = dotInt8RowsGeneric
	dotNibbleRows    = dotNibbleRowsGeneric
	nibbleKernelName = "generic"
)
