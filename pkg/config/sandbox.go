package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// envName is what sandbox.env accepts: a POSIX environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// SandboxMode says whether bash_command confines commands with the
// sandbox: SandboxAuto when it is available, SandboxOn (an unavailable
// sandbox is reported as an error in the header and :checkhealth, and
// commands ask as without it), SandboxOff.
type SandboxMode string

const (
	SandboxAuto SandboxMode = "auto"
	SandboxOn   SandboxMode = "on"
	SandboxOff  SandboxMode = "off"
)

// UnmarshalJSON takes what setup() allows: "auto", true or false.
func (m *SandboxMode) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v {
	case "auto", nil:
		*m = SandboxAuto
	case true:
		*m = SandboxOn
	case false:
		*m = SandboxOff
	default:
		return fmt.Errorf("sandbox.enabled must be \"auto\", true or false, got %s", data)
	}
	return nil
}

// Sandbox configures the bubblewrap sandbox of bash_command.
type Sandbox struct {
	Enabled SandboxMode `json:"enabled,omitempty"`
	// Network is "deny" (default) or "allow".
	Network string `json:"network,omitempty"`
	// AllowWrite lists extra writable paths (absolute).
	AllowWrite []string `json:"allowWrite,omitempty"`
	// Hide lists extra hidden paths (absolute, or relative to home).
	Hide []string `json:"hide,omitempty"`
	// AllowRead lists extra paths confined commands read (absolute, or
	// relative to home): the rest of home and of the file system outside
	// the system directories is hidden.
	AllowRead []string `json:"allowRead,omitempty"`
	// Env names extra environment variables confined commands keep.
	Env []string `json:"env,omitempty"`
	// RequireApproval lists commands that always ask, even when the
	// sandbox could run them (in addition to the defaults).
	RequireApproval []string `json:"requireApproval,omitempty"`
}

// Mode is the sandbox mode, auto when unset.
func (s Sandbox) Mode() SandboxMode {
	if s.Enabled == "" {
		return SandboxAuto
	}
	return s.Enabled
}

func (s Sandbox) validate() error {
	switch s.Network {
	case "", "deny", "allow":
	default:
		return fmt.Errorf("magenta options: sandbox.network must be \"deny\" or \"allow\", got %q", s.Network)
	}
	for i, p := range s.AllowWrite {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("magenta options: sandbox.allowWrite[%d]: %q must be an absolute path", i+1, p)
		}
	}
	for i, p := range s.AllowRead {
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") {
			return fmt.Errorf("magenta options: sandbox.allowRead[%d]: %q must be an absolute path or start with ~/", i+1, p)
		}
	}
	for i, name := range s.Env {
		if !envName.MatchString(name) {
			return fmt.Errorf("magenta options: sandbox.env[%d]: %q is not an environment variable name", i+1, name)
		}
	}
	return nil
}
