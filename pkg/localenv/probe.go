package localenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

// detectWait bounds how long a command waits for the sandbox detection
// started at attach (it takes ~5 ms; a command that arrives first should
// not ask just because it was early).
const detectWait = 2 * time.Second

// detectDelayMax bounds how long detection waits for its start signal
// (a host whose sidebar is never shown still detects).
const detectDelayMax = 500 * time.Millisecond

// Probe detects bubblewrap once, in the background, and answers whether
// commands can be confined, and the header's line about it. Safe for
// concurrent use.
type Probe struct {
	mode    config.SandboxMode
	network string
	done    chan struct{}
	status  sandbox.Status // set before done is closed
}

// StartProbe detects the sandbox once after (closed) or, at the latest,
// detectDelayMax later: detection forks bwrap, which on a small machine
// competes with drawing the first frame. A nil after starts at once.
// onDone (may be nil) is called when detection has ended.
func StartProbe(ctx context.Context, opts config.Sandbox, after <-chan struct{}, onDone func()) *Probe {
	p := &Probe{mode: opts.Mode(), network: opts.Network, done: make(chan struct{})}
	if p.network == "" {
		p.network = "deny"
	}
	if p.mode == config.SandboxOff {
		p.status = sandbox.Status{Reason: "sandbox.enabled is false"}
		close(p.done)
		return p
	}
	go func() {
		if after != nil {
			select {
			case <-after:
			case <-time.After(detectDelayMax):
			case <-ctx.Done():
			}
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		p.status = sandbox.Detect(ctx, "")
		close(p.done)
		if onDone != nil {
			onDone()
		}
	}()
	return p
}

// Available reports whether commands can run confined now, or why not.
func (p *Probe) Available() (bool, string) {
	select {
	case <-p.done:
	case <-time.After(detectWait):
		return false, "the sandbox is still being detected"
	}
	if !p.status.Available {
		return false, p.status.Reason
	}
	return true, ""
}

// Status is the detection's result (zero until it ends).
func (p *Probe) Status() (sandbox.Status, bool) {
	select {
	case <-p.done:
		return p.status, true
	default:
		return sandbox.Status{}, false
	}
}

// Banner is the header line of a local thread.
func (p *Probe) Banner() string {
	st, done := p.Status()
	switch {
	case !done:
		return "local · detecting the sandbox…"
	case st.Available:
		network := "network denied"
		if p.network == "allow" {
			network = "network allowed"
		}
		return fmt.Sprintf("local · sandbox on (bubblewrap %s, %s): workspace builds and tests run confined without asking", st.Version, network)
	default:
		return "local · sandbox off: " + st.Reason + " — commands that are not read-only ask"
	}
}

// ConfinerStatus is the probe's answer in the form
// localshell.BwrapConfiner takes.
func (p *Probe) ConfinerStatus() (sandbox.Status, error) {
	st, done := p.Status()
	if !done || !st.Available {
		_, why := p.Available()
		return sandbox.Status{}, errors.New(why)
	}
	return st, nil
}

// SandboxPolicy is the sandbox policy of a local workspace.
func SandboxPolicy(opts config.Sandbox, workspace string) sandbox.Policy {
	home, _ := os.UserHomeDir()
	network := sandbox.NetworkDeny
	if opts.Network == "allow" {
		network = sandbox.NetworkAllow
	}
	return sandbox.Policy{Workspace: workspace, Home: home, Hide: opts.Hide, AllowWrite: opts.AllowWrite,
		AllowRead: opts.AllowRead, Env: opts.Env, Network: network, ReadOnly: ownPrograms(workspace)}
}
