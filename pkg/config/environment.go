package config

import (
	"fmt"
	"path"
	"strings"
)

// Environment types (the environment option's type).
const (
	EnvLocal  = "local"
	EnvDocker = "docker"
	EnvSSH    = "ssh"
)

// Environment is where a thread works: { type = "local" } (the default:
// this machine, the editor's working directory), { type = "docker",
// container = …, context = …, cwd = … } (files and commands inside a
// running container, on the engine of a Docker context when one is
// named; cwd defaults to the container's working directory) or
// { type = "ssh", host = …, cwd = … } (files and commands on another
// machine through the user's OpenSSH client; host as given to ssh, an
// alias of ~/.ssh/config or [user@]host; cwd defaults to the remote
// home).
type Environment struct {
	Type      string `json:"type,omitempty"`
	Container string `json:"container,omitempty"`
	// Context is the Docker context whose engine runs the container
	// ("" the CLI's current one, DOCKER_HOST included).
	Context string `json:"context,omitempty"`
	Host    string `json:"host,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
}

// validate checks what the type needs; a field another type uses is
// ignored (one table can be switched between docker and ssh by its type
// alone), except that local takes none.
func (e Environment) validate() error {
	switch e.Type {
	case "", EnvLocal:
		if e.Container != "" || e.Context != "" || e.Host != "" || e.Cwd != "" {
			return fmt.Errorf("magenta options: environment: container, context, host and cwd are for type = \"docker\" or \"ssh\"")
		}
		return nil
	case EnvDocker:
		if e.Container == "" {
			return fmt.Errorf("magenta options: environment: type = \"docker\" needs a container")
		}
		if strings.HasPrefix(e.Context, "-") || strings.ContainsAny(e.Context, " \t\n/") {
			return fmt.Errorf("magenta options: environment.context: %q is not a Docker context name", e.Context)
		}
	case EnvSSH:
		if e.Host == "" {
			return fmt.Errorf("magenta options: environment: type = \"ssh\" needs a host (an alias of ~/.ssh/config, or [user@]host)")
		}
		if strings.HasPrefix(e.Host, "-") || strings.ContainsAny(e.Host, " \t\n") {
			return fmt.Errorf("magenta options: environment.host: %q is not a host ssh accepts", e.Host)
		}
	default:
		return fmt.Errorf("magenta options: environment.type must be \"local\", \"docker\" or \"ssh\", got %q", e.Type)
	}
	if e.Cwd != "" && !path.IsAbs(e.Cwd) {
		return fmt.Errorf("magenta options: environment.cwd: %q must be an absolute path", e.Cwd)
	}
	return nil
}
