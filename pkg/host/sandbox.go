package host

import (
	"github.com/magenta-nvim/magenta/pkg/localenv"
)

// The sandbox detection and policy live in pkg/localenv, shared with the
// headless front end; the host starts detection after the first frame
// (environment.go) and answers :checkhealth from it (host.go).
type sandboxProbe = localenv.Probe

var (
	startSandboxProbe = localenv.StartProbe
	sandboxPolicy     = localenv.SandboxPolicy
)
