package zygote

import (
	"fmt"
	"path/filepath"
	"strings"
)

// op is one mount of a command's, from the bwrap options the sandbox
// policy writes (sandbox.Policy.CommandOps): --tmpfs DST, --bind SRC DST,
// --ro-bind SRC DST, --remount-ro DST. Anything else is refused: the
// init makes exactly the mounts it understands, or none.
type op struct {
	kind     string
	src, dst string
}

const (
	opTmpfs     = "--tmpfs"
	opBind      = "--bind"
	opROBind    = "--ro-bind"
	opRemountRO = "--remount-ro"
)

// parseOps reads a command's mounts; every path must be absolute and
// free of NUL bytes.
func parseOps(args []string) ([]op, error) {
	var ops []op
	for i := 0; i < len(args); {
		kind := args[i]
		var n int
		switch kind {
		case opTmpfs, opRemountRO:
			n = 1
		case opBind, opROBind:
			n = 2
		default:
			return nil, fmt.Errorf("sandbox mount %q is not one the confinement parent makes", kind)
		}
		if i+n >= len(args) {
			return nil, fmt.Errorf("sandbox mount %s lacks its paths", kind)
		}
		paths := args[i+1 : i+1+n]
		for _, p := range paths {
			if !filepath.IsAbs(p) || strings.IndexByte(p, 0) >= 0 {
				return nil, fmt.Errorf("sandbox mount %s: %q is not an absolute path", kind, p)
			}
		}
		o := op{kind: kind, dst: paths[n-1]}
		if n == 2 {
			o.src = paths[0]
		}
		ops = append(ops, o)
		i += 1 + n
	}
	return ops, nil
}
