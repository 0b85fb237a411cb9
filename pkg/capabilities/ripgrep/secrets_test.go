package ripgrep

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// secretTree plants hunter2 in secrets at the top and in nested
// directories, and once in an ordinary file.
func secretTree(t *testing.T) string {
	return tree(t, map[string]string{
		".env":                     "PASSWORD=hunter2\n",
		"server.key":               "hunter2\n",
		"id_rsa":                   "hunter2\n",
		"notes.txt":                "the password was hunter2\n",
		"sub/deep/prod.PEM":        "hunter2\n",
		"sub/credentials/aws.txt":  "hunter2\n",
		"sub/.ssh/config":          "hunter2\n",
		"sub/deep/readme.md":       "nothing here\n",
		"sub/deep/.env.production": "hunter2\n",
	})
}

// A search opens no secret file anywhere in the tree and says how many
// secret files it left out.
func TestSearchSkipsSecrets(t *testing.T) {
	dir := secretTree(t)
	res := search(t, req(dir, "hunter2"))
	assert.Equal(t, map[string][]string{"notes.txt": {"1:the password was hunter2"}}, lines(res))
	assert.Equal(t, 1, res.Matches)
	// Every secret but the readme and notes: hidden ones (.env, .ssh/)
	// count too, though hidden files are not searched in any case.
	assert.Equal(t, 7, res.SecretsSkipped)

	res = search(t, capabilities.SearchRequest{Path: dir, Pattern: "hunter2", Include: "*.key"})
	assert.Empty(t, res.Files)
	assert.Equal(t, 1, res.SecretsSkipped, "only the secrets the include glob covers")

	res = search(t, req(filepath.Join(dir, "server.key"), "hunter2"))
	assert.Empty(t, res.Files, "a secret named as the path is not searched either")
	assert.Equal(t, 1, res.SecretsSkipped)
}

// A tree below a directory with a secret's name is searched: only what is
// inside the searched tree counts.
func TestSearchBelowASecretNamedDirectory(t *testing.T) {
	root := filepath.Join(tree(t, map[string]string{"credentials/ws/notes.txt": "hunter2\n"}), "credentials", "ws")
	res := search(t, req(root, "hunter2"))
	assert.Equal(t, map[string][]string{"notes.txt": {"1:hunter2"}}, lines(res))
	assert.Zero(t, res.SecretsSkipped)
}

// Files the exclusion globs let through are still dropped when
// pkg/secrets calls them secret.
func TestDropSecretFiles(t *testing.T) {
	res := &capabilities.SearchResult{Matches: 3, Files: []capabilities.SearchFile{
		{Path: "a.txt", Matches: 1}, {Path: "x/.aws/config", Matches: 2},
	}}
	dropSecretFiles(res)
	require.Len(t, res.Files, 1)
	assert.Equal(t, "a.txt", res.Files[0].Path)
	assert.Equal(t, 1, res.Matches)
	assert.Equal(t, 1, res.SecretsSkipped)
}
