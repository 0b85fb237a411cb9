package host

import (
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// interceptors are what wraps every tool call of every thread
// (tools.Interceptor), outermost first: what must happen before a call
// that may change files comes before what looks at its result.
func (h *Host) interceptors(opts config.Options, env *capabilities.Environment) []tools.Interceptor {
	var out []tools.Interceptor
	return out
}
