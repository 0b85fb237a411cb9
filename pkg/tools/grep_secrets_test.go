package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/ripgrep"
)

// grep in a planted workspace returns only the ordinary file: no secret's
// name or content reaches the model, which is told how many files were
// left out and how the user can let it read one.
func TestGrepNeverShowsSecrets(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg is not installed")
	}
	ws := t.TempDir()
	for name, body := range map[string]string{
		".env":                 "PASSWORD=hunter2\n",
		"server.key":           "hunter2 in a key\n",
		"id_rsa":               "hunter2 in a private key\n",
		"notes.txt":            "remember hunter2\n",
		"app/config/prod.pem":  "hunter2 in a certificate\n",
		"app/credentials/db":   "hunter2 in credentials\n",
		"app/.ssh/known_hosts": "hunter2 in ssh\n",
	} {
		p := filepath.Join(ws, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	env := &capabilities.Environment{Cwd: ws, Searcher: ripgrep.New(ripgrep.Options{})}
	res := Default().Run(context.Background(), "grep", Call{ID: "tu", ThreadID: "th", Input: json.RawMessage(`{"pattern":"hunter2"}`), Env: env})
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "notes.txt\n1: remember hunter2")
	for _, leak := range []string{"PASSWORD", "in a key", "private key", "certificate", "credentials/db", "in ssh", "server.key", "id_rsa\n"} {
		assert.NotContains(t, res.Text, leak)
	}
	assert.Contains(t, res.Text, "6 files that may hold secrets")
	assert.Contains(t, res.Text, "read it with get_file: the user is asked to approve it")
	assert.Contains(t, res.Summary, "1 match in 1 file (6 secret files not searched)")

	for _, dir := range []string{"app/credentials", "app/.ssh", "id_rsa"} {
		res = Default().Run(context.Background(), "grep", Call{ID: "tu", ThreadID: "th", Input: json.RawMessage(`{"pattern":"hunter2","path":"` + dir + `"}`), Env: env})
		assert.NotContains(t, res.Text, "in ", dir)
		assert.Contains(t, res.Text, dir+" was not searched: it may hold secrets", dir)
	}
}
