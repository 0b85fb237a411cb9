// Package capabilities holds the interfaces through which tools reach the
// outside world, their value types and sentinel errors, and the
// Environment that bundles one implementation of each for a thread.
//
// Tools never touch the OS directly: they use the Environment of the
// thread that called them, so the same tool runs against the local
// machine, a Docker container or an in-memory fake. Implementations and
// decorators (permission checks) live in sub-packages, one concept each.
//
// This package imports nothing of the project's: it is the bottom of the
// import graph (capabilities ← tools ← chat ← host ← cmd).
package capabilities
