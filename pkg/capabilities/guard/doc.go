// Package guard holds the permission-checking decorators: a capability
// wrapped so that whatever its rules cannot prove safe waits for the
// user's approval (package approval) before it reaches the real
// implementation.
//
// Decorators write out every method of the interface they guard rather
// than embedding it, so a method added to the interface later cannot
// slip through unchecked. Answers of ALWAYS are kept in a Remembered set
// shared by every thread for the life of the host (the Neovim session).
//
// Shell decides three ways from its CheckBash verdict: Allow runs the
// command unconfined; Sandbox runs it confined (ExecOptions.Sandbox)
// without asking when ShellOptions.Sandbox says a sandbox is available,
// and otherwise asks, saying the sandbox is off and why; anything else
// asks. What the user approves (now or by an earlier ALWAYS) runs
// unconfined, as approved. A confined run that comes back with
// ExecResult.Blocked set is offered again, as an approval of the same
// command with the same keys, to run outside the sandbox: yes returns the
// unconfined run, no the confined result.
package guard
