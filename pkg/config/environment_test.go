package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The environment option: local, docker (with or without a context) and
// ssh are accepted; a missing host or container, a relative cwd, any
// field with local and an unknown type are refused, naming the field;
// the fields of the other remote type are ignored.
func TestDecodeEnvironment(t *testing.T) {
	const profiles = `"profiles":[{"name":"a","provider":"anthropic","model":"m"}]`
	tests := []struct{ env, wantErr string }{
		{`{}`, ""},
		{`{"type":"local"}`, ""},
		{`{"type":"docker","container":"dev"}`, ""},
		{`{"type":"docker","container":"dev","context":"remote","cwd":"/work"}`, ""},
		{`{"type":"ssh","host":"devbox"}`, ""},
		{`{"type":"ssh","host":"me@devbox.example","cwd":"/home/me/src"}`, ""},
		{`{"type":"ssh"}`, `magenta options: environment: type = "ssh" needs a host`},
		{`{"type":"ssh","host":"devbox","cwd":"src"}`, `magenta options: environment.cwd: "src" must be an absolute path`},
		{`{"type":"ssh","host":"-oProxyCommand=x"}`, `magenta options: environment.host: "-oProxyCommand=x" is not a host ssh accepts`},
		{`{"type":"ssh","host":"a b"}`, `environment.host: "a b"`},
		{`{"type":"ssh","host":"devbox","container":"dev","context":"remote"}`, ""},
		{`{"type":"docker"}`, `type = "docker" needs a container`},
		{`{"type":"docker","container":"dev","host":"devbox"}`, ""},
		{`{"type":"docker","container":"dev","context":"-H"}`, `environment.context: "-H" is not a Docker context name`},
		{`{"type":"docker","container":"dev","cwd":"work"}`, `environment.cwd: "work" must be an absolute path`},
		{`{"type":"local","host":"devbox"}`, `container, context, host and cwd are for type = "docker" or "ssh"`},
		{`{"type":"local","cwd":"/x"}`, `container, context, host and cwd are for type = "docker" or "ssh"`},
		{`{"type":"vm"}`, `environment.type must be "local", "docker" or "ssh", got "vm"`},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(`{` + profiles + `,"environment":` + tt.env + `}`))
		if tt.wantErr == "" {
			assert.NoError(t, err, tt.env)
		} else {
			assert.ErrorContains(t, err, tt.wantErr, tt.env)
		}
	}
}

// The decoded option keeps every field the host reads.
func TestDecodeEnvironmentFields(t *testing.T) {
	o, err := Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],
		"environment":{"type":"ssh","host":"devbox","cwd":"/srv/app"}}`))
	require.NoError(t, err)
	assert.Equal(t, Environment{Type: EnvSSH, Host: "devbox", Cwd: "/srv/app"}, o.Environment)
	o, err = Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],
		"environment":{"type":"docker","context":"remote","container":"dev"}}`))
	require.NoError(t, err)
	assert.Equal(t, Environment{Type: EnvDocker, Context: "remote", Container: "dev"}, o.Environment)
}
