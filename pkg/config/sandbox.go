package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

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
	return nil
}
