package gitctl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProtected(t *testing.T) {
	ws := "/w"
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/w/.git", true},
		{"/w/.git/commondir", true},
		{"/w/.git/objects/ab/cd", true},
		{"/w/api/.git/hooks/pre-commit", true},
		{"/w/api/.GIT/config", true},
		{"/w/lib/.git", true}, // a submodule's .git file
		{"/w/.husky/pre-commit", true},
		{"/w/.husky", true},
		{"/w/src/main.go", false},
		{"/w/.gitignore", false},
		{"/w/.github/workflows/ci.yml", false},
		{"/w", false},
		{"/elsewhere/.git/config", false},
	} {
		require.Equal(t, tc.want, Protected(ws, "/w/.husky", tc.path), tc.path)
	}
	require.False(t, Protected(ws, "", "/w/.husky/pre-commit"))
}

func TestHooksPath(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	write := func(cfg string) {
		require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte(cfg), 0o644))
	}
	require.Equal(t, "", HooksPath(ws))
	write("[core]\n\thooksPath = .husky\n")
	require.Equal(t, filepath.Join(ws, ".husky"), HooksPath(ws))
	write("[core] hooksPath = \"sub/hooks\" # comment\n")
	require.Equal(t, filepath.Join(ws, "sub/hooks"), HooksPath(ws))
	write("[core]\n\thooksPath = ~/hooks\n")
	require.Equal(t, "", HooksPath(ws))
	write("[core]\n\thooksPath = /etc/hooks\n")
	require.Equal(t, "", HooksPath(ws))
	write("[core]\n\thooksPath = ..\n")
	require.Equal(t, "", HooksPath(ws))
}
