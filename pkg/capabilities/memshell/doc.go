// Package memshell is an in-memory capabilities.Shell for tests of tools
// and decorators.
//
// A Shell is built from Scripts, tried in order: the first whose Match
// (or, without one, exact Command) accepts the command answers it. Its
// Lines are streamed to ExecOptions.OnOutput and summarised into Head,
// Tail and TotalLines with the same retention constants a real shell
// uses (capabilities.ShellHeadLines / ShellTailLines); its Err is
// returned as is; Block makes the call wait for cancellation or the
// call's timeout, so tests can exercise abort paths without processes.
// Every call is recorded (Calls) whether or not it was scripted, and an
// unscripted command is an error, so a test notices an unexpected
// command instead of silently getting an empty result. ExecOptions.OnStart
// gets the call's timeout, or capabilities.ShellDefaultTimeout.
// ExecOptions.Sandbox is recorded with the call and honoured like a real
// sandbox would: the result is Confined, and a Script's Blocked is
// reported only for a confined run.
//
// A Script's Terminal plays an interactive command (ExecOptions.Interactive)
// without a pseudo-terminal: the test drives the command's side of a
// scripted Terminal (output, screen, waiting for input, exit) and reads
// what the user's side wrote and how it resized it.
package memshell
