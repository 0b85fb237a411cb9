//go:build race

package remoteagent

func init() { raceEnabled = true }
