// Package nvimtest runs a real headless Neovim with the real Lua plugin
// for tests: XDG directories in a temporary directory, the checkout first
// on 'runtimepath', and helpers to run commands, type into the input
// buffer, press keys, and wait for buffer contents with a deadline.
//
// StartHost serves the host's handlers in-process on the test's own RPC
// connection (registered as the "magenta" remote host), so a test can
// inject a scripted provider and still go through the real Lua code.
// Tests that need the built binary set the host.binary option instead.
//
// Which Neovim binaries run is set by MAGENTA_TEST_NVIMS (a space-separated
// list; `make test` fills it); without it, the `nvim` on PATH.
package nvimtest
