package config

import (
	"fmt"
	"sort"
	"strings"
)

// MaxEnvironmentName bounds the name of an entry of environments: the
// model writes it in spawn_subagents' environment field.
const MaxEnvironmentName = 40

// EnvironmentNames returns the names of the environments option, sorted:
// the places spawn_subagents may send a sub-agent without asking.
func (o Options) EnvironmentNames() []string {
	names := make([]string, 0, len(o.Environments))
	for name := range o.Environments {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// NamedEnvironment returns the entry of environments called name.
func (o Options) NamedEnvironment(name string) (Environment, bool) {
	e, ok := o.Environments[name]
	return e, ok
}

// validateEnvironments checks every entry of environments with the
// environment option's own check, naming the entry in the message.
func (o Options) validateEnvironments() error {
	for _, name := range o.EnvironmentNames() {
		if !NameChars(name, MaxEnvironmentName) {
			return fmt.Errorf("magenta options: environments: the name %q must be 1-%d letters, digits, _ or -", name, MaxEnvironmentName)
		}
		if err := CheckEnvironment(o.Environments[name], "environments."+name); err != nil {
			return err
		}
	}
	return nil
}

// CheckEnvironment checks e as the environment option is checked, the
// message naming it as where ("environments.box"): for the entries of
// environments and for the environments spawn_subagents' model names.
func CheckEnvironment(e Environment, where string) error {
	if err := e.validate(); err != nil {
		return renameEnvironmentError(err, where)
	}
	return nil
}

// renameEnvironmentError turns the environment option's message into one
// about the entry at where: "magenta options: environment.cwd: …" becomes
// "magenta options: environments.box.cwd: …".
func renameEnvironmentError(err error, where string) error {
	const prefix = "magenta options: environment"
	if rest, ok := strings.CutPrefix(err.Error(), prefix); ok && (rest == "" || rest[0] == '.' || rest[0] == ':' || rest[0] == ' ') {
		return fmt.Errorf("magenta options: %s%s", where, rest)
	}
	return fmt.Errorf("magenta options: %s: %w", where, err)
}
