package host

import (
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/hooks"
)

// AcceptOptions does to the options JSON setup() sends what attach and
// configure do before they use it: decode and validate it with
// pkg/config, then build the permission checker from shell.rules and
// read the hooks, which pkg/config passes through unparsed. An error is what the user would
// see as rejected options.
func AcceptOptions(data []byte) error {
	opts, err := config.Decode(data)
	if err != nil {
		return err
	}
	if _, err = bashChecker(opts); err != nil {
		return err
	}
	_, _, err = hooks.ParseOption(opts.Hooks)
	return err
}
