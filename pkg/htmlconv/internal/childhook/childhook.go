// Package childhook lets package childtest point package child at a test
// binary instead of magenta-provider. Being internal to pkg/htmlconv, it
// cannot be set from anywhere else: the host always runs the real
// converter.
package childhook

import "sync/atomic"

// Command replaces the converter executable.
type Command struct {
	Path string   // the executable
	Env  []string // "NAME=value" entries added to the host's environment
}

var current atomic.Pointer[Command]

// Set makes package child run c (nil: the real converter). Safe for
// concurrent use.
func Set(c *Command) { current.Store(c) }

// Get returns what Set set last, or nil.
func Get() *Command { return current.Load() }
