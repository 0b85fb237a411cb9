package config

import (
	"fmt"
	"time"
)

// MaxLSPVerifyTimeout bounds lsp.verifyTimeout: the check holds the
// edit's result (and, for a file no buffer has, the edit) that long.
const MaxLSPVerifyTimeout = 60

// LSP configures what magenta does with the editor's language servers:
// { verifyEdits = true, verifyTimeout = seconds }.
type LSP struct {
	// VerifyEdits appends to edit_file's and write_file's results the
	// diagnostics the change introduced or fixed; nil means true.
	VerifyEdits *bool `json:"verifyEdits,omitempty"`
	// VerifyTimeout is how many seconds each wait of that check (for the
	// report before the edit, and after it) may last; 0 or unset: the
	// default (capabilities.LSPVerifyWait).
	VerifyTimeout float64 `json:"verifyTimeout,omitempty"`
}

// Verifying reports whether edits are checked.
func (l LSP) Verifying() bool { return l.VerifyEdits == nil || *l.VerifyEdits }

// VerifyWait is VerifyTimeout as a duration (0 when unset).
func (l LSP) VerifyWait() time.Duration {
	return time.Duration(l.VerifyTimeout * float64(time.Second))
}

func (l LSP) validate() error {
	if !(l.VerifyTimeout >= 0 && l.VerifyTimeout <= MaxLSPVerifyTimeout) {
		return fmt.Errorf("magenta options: lsp.verifyTimeout: must be a number of seconds from 0 to %d, got %v", MaxLSPVerifyTimeout, l.VerifyTimeout)
	}
	return nil
}
