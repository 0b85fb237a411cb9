// Package guard holds the permission-checking decorators: a capability
// wrapped so that whatever its rules cannot prove safe waits for the
// user's approval (package approval) before it reaches the real
// implementation.
//
// Decorators write out every method of the interface they guard rather
// than embedding it, so a method added to the interface later cannot
// slip through unchecked. Answers of ALWAYS are kept in a Remembered set
// shared by every thread for the life of the host (the Neovim session).
package guard
