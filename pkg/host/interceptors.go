package host

import (
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/lspverify"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// interceptors are what wraps every tool call of every thread
// (tools.Interceptor), outermost first: what must happen before a call
// that may change files comes before what looks at its result.
func (h *Host) interceptors(opts config.Options, env *capabilities.Environment) []tools.Interceptor {
	var out []tools.Interceptor
	// First: the checkpoint before a call must hold the files as they
	// were before anything of the call ran.
	if h.checkpoints != nil {
		out = append(out, h.checkpoints.Interceptor())
	}
	// Then hooks (pkg/hooks): a PreToolUse veto comes after the
	// checkpoint, and a PostToolUse hook sees the result with what
	// follows added.
	if h.hooks != nil {
		out = append(out, h.hooks)
	}
	// Last: it looks at the edit's result (and at the servers' view of
	// the file before the edit, once what must come first has run).
	if opts.LSP.Verifying() {
		out = append(out, lspverify.New(opts.LSP.VerifyWait()))
	}
	return out
}
