//go:build !linux

package remoteagent

// MainIfAgent returns: the agent runs on Linux only (it finds a
// command's processes in /proc).
func MainIfAgent() {}
