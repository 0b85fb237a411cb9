package config

import (
	"fmt"
	"path"
)

// Environment is where a thread works: { type = "local" } (the default:
// this machine, the editor's working directory) or { type = "docker",
// container = …, cwd = … } (files and commands inside a running
// container; cwd defaults to the container's working directory).
type Environment struct {
	Type      string `json:"type,omitempty"`
	Container string `json:"container,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
}

func (e Environment) validate() error {
	switch e.Type {
	case "", "local":
		if e.Container != "" || e.Cwd != "" {
			return fmt.Errorf("magenta options: environment: container and cwd are for type = \"docker\"")
		}
	case "docker":
		if e.Container == "" {
			return fmt.Errorf("magenta options: environment: type = \"docker\" needs a container")
		}
		if e.Cwd != "" && !path.IsAbs(e.Cwd) {
			return fmt.Errorf("magenta options: environment.cwd: %q must be an absolute path", e.Cwd)
		}
	default:
		return fmt.Errorf("magenta options: environment.type must be \"local\" or \"docker\", got %q", e.Type)
	}
	return nil
}
