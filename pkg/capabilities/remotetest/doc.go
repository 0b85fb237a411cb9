// Package remotetest serves the tests of environments that act on
// another machine through a CLI — package docker (`docker exec`) and
// package sshenv (ssh to an sshd in a container): the docker CLI for
// tests (Docker, Run, containers removed at cleanup), test images built
// by their script once per test binary when the engine lacks them
// (Image), the rule for a missing engine (Unavailable: a skip, a failure
// under CI=true), and the suites both run: Shell (output, the remote
// process tree ended on cancel and timeout, interactive commands) and
// FileIO (the capabilitytest contract plus what the sh scripts of
// package posixremote must get right). WaitGone looks into the container
// to see what a command left running there.
//
// The package imports testing and testify, so only test code imports
// it.
package remotetest
