package capabilities

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Environment is what one thread's tools may use. A value is built once
// per thread and not changed afterwards, so it is safe to share between
// that thread's tool goroutines.
//
// Tools must treat a nil capability as "not available in this
// environment" and say so in their result.
type Environment struct {
	// Name identifies the kind of environment in the UI and logs
	// ("local", "docker:<container>", "memory").
	Name string
	// Cwd is the directory relative paths are resolved against and the
	// root of the workspace the permission rules protect.
	Cwd string
	// Home is the user's home directory where the tools run (the host
	// user's, or $HOME inside a container); "" when unknown.
	Home string
	// Files reads and writes files; nil when the environment has none.
	Files FileIO
	// LSP asks the editor's language servers; Diagnostics lists their
	// diagnostics. NoLSP when there are none.
	LSP         LspClient
	Diagnostics DiagnosticsProvider
	// LSPAvailable reports whether language servers can answer now: one
	// runs, or the user's configuration starts one for the workspace's
	// files when a tool loads such a file. LSP and Diagnostics count as
	// provided only then (nil: never).
	LSPAvailable func() bool
	// Ask asks the user to approve what a tool call is about to do
	// (subject, and reason: why it asks), in the call's block; nil when
	// the environment cannot ask. NO, or an aborted wait, is a
	// *DeniedError.
	Ask func(ctx context.Context, subject, reason string) error
	// Threads is set when the thread may spawn sub-agents.
	Threads bool
	// Banner, when set, is the line the thread's header shows about the
	// environment: where commands run and whether they are confined
	// ("local · sandbox on, network denied"). It may change (the sandbox
	// is detected in the background), so it is asked for every frame.
	Banner func() string
	// Shell runs commands; nil when the environment has none.
	Shell Shell
	// Searcher searches file contents; nil when there is none.
	Searcher Searcher
	// Fetcher fetches web pages; nil when there is none.
	Fetcher Fetcher
	// WebSearcher searches the web (the web_search tool); nil when no
	// search back end is configured.
	WebSearcher WebSearcher
	// Artifacts keeps files tools write for the model to read later
	// (the full text of a long web page); nil when there is none.
	Artifacts Artifacts
	// Skills are the skills the model may load (the skill tool); nil
	// when there are none (a container cannot read the host's).
	Skills Skills
	// Close, when set, releases what the environment holds open (an ssh
	// environment's connection and remote agent) once nothing uses it:
	// a sub-agent's environment when the sub-agent ends. An environment
	// without it holds nothing, or is released by the host when it closes.
	Close func() error
}

// Artifacts stores files a tool call produced, under a root the model
// may read (<root>/threads/<thread>/tools/<request>/<name>).
type Artifacts interface {
	Save(threadID, requestID, name string, data []byte) (path string, err error)
}

// NewLocal returns the environment of the machine the host runs on,
// rooted at cwd (made absolute and cleaned).
func NewLocal(cwd string) (*Environment, error) {
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("local environment: %w", err)
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("local environment: %w", err)
	}
	home, _ := os.UserHomeDir() // unknown stays ""
	return &Environment{Name: "local", Cwd: filepath.Clean(abs), Home: home}, nil
}
