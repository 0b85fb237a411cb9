package lsp

import (
	"fmt"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// ModeWait bounds the question what mode Neovim is in, asked when a
// request got no answer.
const ModeWait = 2 * time.Second

// NoAnswerError is a request Neovim did not answer within the request
// timeout. The usual cause is a prompt: Neovim holds RPC requests and
// timers while a "Press ENTER" (hit-enter) or "-- More --" prompt waits —
// another plugin's long message printed as a tool loads a file is
// enough (lspconfig's deprecation warnings) — or while a script waits
// for a key. The request is not sent again: once the prompt is
// answered, Neovim finishes the old one, whose answer nobody awaits.
type NoAnswerError struct {
	What  string        // "textDocument/hover on /w/main.go", "diagnostics"
	After time.Duration // how long the request waited
	// Mode is nvim_get_mode's answer afterwards, Blocked its "blocking"
	// (Neovim waits for input); ModeKnown is false when that went
	// unanswered too.
	Mode      string
	Blocked   bool
	ModeKnown bool
}

func (e *NoAnswerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: Neovim did not answer within %s", e.What, e.After)
	switch {
	case !e.ModeKnown:
		b.WriteString(": it does not answer at all now (busy, or held by a prompt such as \"Press ENTER\" or a pending \":\" command, which the user has to answer in Neovim)")
	case e.Blocked || waitsForUser(e.Mode):
		fmt.Fprintf(&b, ": it is waiting for the user at %s. The user has to answer it in Neovim (Enter, or Esc)", prompt(e.Mode))
	default:
		b.WriteString(", most likely held by a prompt such as \"Press ENTER\" or a pending \":\" command that has been answered since")
	}
	b.WriteString(". The request is not retried: call the tool again once Neovim answers.")
	return b.String()
}

// Unwrap makes the error match capabilities.ErrEditorNotAnswering.
func (e *NoAnswerError) Unwrap() error { return capabilities.ErrEditorNotAnswering }

// waitsForUser reports whether mode is one where Neovim holds requests
// until the user answers: the hit-enter and more prompts, confirm().
func waitsForUser(mode string) bool { return strings.HasPrefix(mode, "r") }

// prompt names what Neovim waits at in mode (see :help mode()).
func prompt(mode string) string {
	switch {
	case mode == "r":
		return "a \"Press ENTER\" prompt (hit-enter)"
	case mode == "rm":
		return "a \"-- More --\" prompt"
	case mode == "r?":
		return "a confirm question"
	case strings.HasPrefix(mode, "c"):
		return "a command line (an input() question or a pending \":\" command)"
	}
	return fmt.Sprintf("a prompt or a wait for a key (mode %q)", mode)
}
