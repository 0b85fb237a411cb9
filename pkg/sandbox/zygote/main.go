package zygote

import (
	"os"
	"sync/atomic"
	"syscall"
)

// The first argument that selects each of this package's programs in
// an executable that calls MainIfZygote. They are not options a person
// types: magenta-supervisor and magenta-host carry them.
const (
	argServe = "__magenta_confinement_parent"
	argInit  = "__magenta_confinement_init"
)

var available atomic.Bool

// MainIfZygote runs the confinement parent or a command's init when the
// executable was started as one, and exits; otherwise it notes
// that this executable can be started as one (Available) and returns.
// Call it first in main, before anything else starts.
func MainIfZygote() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case argServe:
			syscall.Exit(serve())
		case argInit:
			syscall.Exit(runInit())
		}
	}
	available.Store(supported)
}

// Available reports whether this executable called MainIfZygote and the
// platform supports a confinement parent.
func Available() bool { return available.Load() }
