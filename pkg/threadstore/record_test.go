package threadstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An ssh thread and a docker thread on a named context keep where they
// work through the log and the summary; the list labels them as their
// environments name themselves.
func TestEnvRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		env   Env
		label string
	}{
		{Env{Type: "ssh", Host: "devbox", Cwd: "/srv/app"}, "ssh:devbox"},
		{Env{Type: "docker", Context: "remote", Container: "dev", Cwd: "/work"}, "docker:remote/dev"},
		{Env{Type: "docker", Container: "dev"}, "docker:dev"},
		{Env{Type: "local"}, ""},
	} {
		s, warnings := openStore(t)
		w, err := s.Create(Header{ID: threadA, Env: tt.env})
		require.NoError(t, err)
		require.NoError(t, w.Message(sampleMessages()[0], Display{}))
		require.NoError(t, w.Close())

		got, err := s.Load(threadA)
		require.NoError(t, err)
		assert.Equal(t, tt.env, got.Header.Env)
		list := s.List()
		require.Len(t, list, 1)
		assert.Equal(t, tt.env, list[0].Env)
		assert.Equal(t, tt.label, list[0].Env.Label())
		assert.Empty(t, *warnings)
	}
}

// Fields a type does not use are not written: a docker thread's header
// is byte for byte what versions before Context and Host wrote, and such
// a header loads as before.
func TestEnvOldHeaderLoads(t *testing.T) {
	s, warnings := openStore(t)
	w, err := s.Create(Header{ID: threadA, Env: Env{Type: "docker", Container: "dev", Cwd: "/work"}})
	require.NoError(t, err)
	require.NoError(t, w.Message(sampleMessages()[0], Display{}))
	require.NoError(t, w.Close())
	data, err := os.ReadFile(filepath.Join(s.Path(), threadA+logExt))
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(data), "\n")
	var line struct {
		H struct {
			Env json.RawMessage `json:"env"`
		} `json:"h"`
	}
	require.NoError(t, json.Unmarshal([]byte(first), &line))
	assert.Equal(t, `{"type":"docker","container":"dev","cwd":"/work"}`, string(line.H.Env))

	got, err := s.Load(threadA)
	require.NoError(t, err)
	assert.Equal(t, Env{Type: "docker", Container: "dev", Cwd: "/work"}, got.Header.Env)
	assert.Equal(t, "docker:dev", got.Header.Env.Label())
	assert.Empty(t, *warnings)
}
