package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every entry of environments passes the environment option's check, and
// a message names the entry that failed it.
func TestDecodeEnvironments(t *testing.T) {
	const profiles = `"profiles":[{"name":"a","provider":"anthropic","model":"m"}]`
	tests := []struct{ envs, wantErr string }{
		{`{}`, ""},
		{`{"box":{"type":"docker","container":"dev","cwd":"/work"},"here":{"type":"local"},"plain":{}}`, ""},
		{`{"box":{"type":"vm"}}`, `magenta options: environments.box.type must be`},
		{`{"box":{"type":"docker"}}`, `magenta options: environments.box: type = "docker" needs a container`},
		{`{"box":{"type":"docker","container":"dev","cwd":"work"}}`, `magenta options: environments.box.cwd: "work" must be an absolute path`},
		{`{"here":{"type":"local","container":"dev"}}`, `magenta options: environments.here: `},
		{`{"remote":{"type":"ssh","host":"me@devbox","cwd":"/srv/app"},"far":{"type":"docker","container":"dev","context":"remote"}}`, ""},
		{`{"remote":{"type":"ssh"}}`, `magenta options: environments.remote: type = "ssh" needs a host`},
		{`{"remote":{"type":"ssh","host":"devbox","cwd":"srv"}}`, `magenta options: environments.remote.cwd: "srv" must be an absolute path`},
		{`{"remote":{"type":"ssh","host":"-oProxyCommand=x"}}`, `magenta options: environments.remote.host: "-oProxyCommand=x" is not a host ssh accepts`},
		{`{"a b":{"type":"local"}}`, `magenta options: environments: the name "a b" must be 1-40 letters, digits, _ or -`},
		{`{"ssh:x":{"type":"local"}}`, `the name "ssh:x"`},
		{`{"":{"type":"local"}}`, `the name ""`},
		{`{"box":"dev"}`, "magenta options: json"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(`{` + profiles + `,"environments":` + tt.envs + `}`))
		if tt.wantErr == "" {
			assert.NoError(t, err, tt.envs)
		} else {
			assert.ErrorContains(t, err, tt.wantErr, tt.envs)
		}
	}
}

func TestEnvironmentNamesAreSorted(t *testing.T) {
	o, err := Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],
		"environments":{"zeta":{"type":"local"},"alpha":{"type":"docker","container":"c"}}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha", "zeta"}, o.EnvironmentNames())
	e, ok := o.NamedEnvironment("alpha")
	assert.True(t, ok)
	assert.Equal(t, Environment{Type: "docker", Container: "c"}, e)
	_, ok = o.NamedEnvironment("beta")
	assert.False(t, ok)
}

// An error that does not start as the environment option's still names
// the entry.
func TestRenameEnvironmentError(t *testing.T) {
	assert.EqualError(t, renameEnvironmentError(assert.AnError, "environments.x"), "magenta options: environments.x: "+assert.AnError.Error())
	assert.EqualError(t, renameEnvironmentError(errorString("magenta options: environmental"), "environments.x"),
		"magenta options: environments.x: magenta options: environmental")
}

type errorString string

func (e errorString) Error() string { return string(e) }
