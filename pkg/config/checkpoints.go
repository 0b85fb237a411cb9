package config

import (
	"fmt"
	"strings"
)

// Checkpoints configures the checkpoints :Magenta rewind restores:
// { enabled = true, exclude = { "data/" } }.
type Checkpoints struct {
	// Enabled takes checkpoints of local threads' workspaces; nil: true.
	Enabled *bool `json:"enabled,omitempty"`
	// Exclude holds gitignore patterns never captured, on top of the
	// workspace's .gitignore files and checkpoint.DefaultExcludes.
	Exclude []string `json:"exclude,omitempty"`
}

// On reports whether checkpoints are taken.
func (c Checkpoints) On() bool { return c.Enabled == nil || *c.Enabled }

func (c Checkpoints) validate() error {
	for i, p := range c.Exclude {
		if strings.TrimSpace(p) == "" || strings.ContainsAny(p, "\n\r\x00") {
			return fmt.Errorf("magenta options: checkpoints.exclude[%d]: %q is not a gitignore pattern (one non-empty line)", i+1, p)
		}
	}
	return nil
}
