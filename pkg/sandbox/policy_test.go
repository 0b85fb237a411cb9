package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rules alone, without bwrap: hidden paths, workspace secrets,
// protected git files, private roots, symlinks.
func TestReadableWritableRules(t *testing.T) {
	root := t.TempDir()
	home, ws, store := filepath.Join(root, "home"), filepath.Join(root, "home", "proj"), filepath.Join(root, "store")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "node_modules", "pkg"), filepath.Join(store, "ssh-real"), filepath.Join(home, "cache"), filepath.Join(home, "go", "pkg", "mod")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.Symlink(filepath.Join(store, "ssh-real"), filepath.Join(home, ".gnupg")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("SECRET"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(ws, ".env"), filepath.Join(store, "innocent")))
	require.NoError(t, os.Symlink(filepath.Join(ws, ".env.production"), filepath.Join(ws, "dangling")))
	require.NoError(t, os.Symlink("loop-b", filepath.Join(ws, "loop-a")))
	require.NoError(t, os.Symlink("loop-a", filepath.Join(ws, "loop-b")))
	p := Policy{Workspace: ws, Home: home, Hide: []string{"~/private", "/srv/secrets"}, AllowWrite: []string{filepath.Join(home, "cache")}}

	for _, tc := range []struct {
		path        string
		read, write bool
	}{
		{filepath.Join(ws, "src", "main.go"), true, true},
		{ws, true, true},
		{filepath.Join(ws, ".env.local"), false, false},
		{filepath.Join(ws, "certs", "tls.key"), false, false},
		{filepath.Join(ws, "deploy", ".aws", "config"), false, false},
		{filepath.Join(ws, "node_modules", "pkg", ".env"), true, true}, // not scanned, not masked
		{filepath.Join(ws, ".git", "HEAD"), true, false},               // every .git is read-only as a whole
		{filepath.Join(ws, "api", ".git", "config"), true, false},
		{filepath.Join(ws, ".git", "config"), true, false},
		{filepath.Join(ws, ".git", "hooks"), true, false},
		{filepath.Join(ws, ".git", "hooks", "pre-push"), true, false},
		{filepath.Join(home, "notes.txt"), false, false},            // the home directory is hidden…
		{filepath.Join(home, "go", "pkg", "mod", "x"), true, false}, // …but for the toolchains, read-only
		{filepath.Join(home, ".ssh"), false, false},
		{filepath.Join(home, ".ssh", "known_hosts"), false, false},
		{filepath.Join(home, ".config", "gh", "hosts.yml"), false, false},
		{filepath.Join(home, ".docker", "config.json"), false, false},
		{filepath.Join(home, ".docker", "cli-plugins"), false, false},
		{filepath.Join(home, "private", "diary"), false, false},
		{filepath.Join(home, "cache", "x"), true, true},
		{filepath.Join(store, "ssh-real", "id_ed25519"), false, false}, // the target of ~/.gnupg
		{filepath.Join(store, "innocent"), false, false},               // a link to the workspace's .env
		{filepath.Join(ws, "dangling"), false, false},                  // writing it would create .env.production
		{filepath.Join(ws, "loop-a"), true, true},                      // a loop ends; the sandbox would say ELOOP
		{"/srv/secrets/db", false, false},
		{"/etc/hostname", true, false},
		{"/usr/bin/env", true, false},
		{"/run/user/1000/bus", false, false},
		{"/var/tmp/x", false, false},
		{"/srv/data", false, false}, // not a system directory
		{"/home/someone-else/notes", false, false},
		{"/tmp/other/file", false, false},
		{"/proc/1/environ", false, false},
		{"/proc", false, false},
		{"relative/path", false, false},
		{"", false, false},
		{ws + "/src/../.env", false, false},
	} {
		assert.Equal(t, tc.read, p.Readable(tc.path), "Readable(%q)", tc.path)
		assert.Equal(t, tc.write, p.Writable(tc.path), "Writable(%q)", tc.path)
	}
}

func TestScanIsBoundedAndSkipsDependencies(t *testing.T) {
	ws := t.TempDir()
	for i := range 60 {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, "deep", fmt.Sprint(i)), 0o755))
	}
	for _, f := range []string{".env", "deep/0/server.pem", "node_modules/x/.env", ".git/secret.key", ".ssh/id_rsa"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, f), nil, 0o644))
	}

	full := scanWorkspace(ws, MaxScanEntries)
	assert.True(t, full.complete)
	assert.ElementsMatch(t, []string{filepath.Join(ws, ".env"), filepath.Join(ws, ".ssh"), filepath.Join(ws, "deep", "0", "server.pem")}, full.secrets)

	partial := scanWorkspace(ws, 10)
	assert.False(t, partial.complete)
	assert.Contains(t, partial.secrets, filepath.Join(ws, ".env"), "breadth first: the top level is seen first")
	assert.NotContains(t, partial.secrets, filepath.Join(ws, "deep", "0", "server.pem"))
}

func TestVersionCompare(t *testing.T) {
	for _, tc := range []struct {
		v    string
		ok   bool
		text string
	}{
		{"0.4.0", true, "bubblewrap 0.4.0"},
		{"0.8.0", true, "bubblewrap 0.8.0\n"},
		{"0.10.0", true, "bubblewrap 0.10.0"},
		{"1.0", true, "bubblewrap 1.0"},
		{"0.3.3", false, "bubblewrap 0.3.3"},
		{"0.3.99rc1", false, "bubblewrap 0.3.99rc1"},
	} {
		assert.Equal(t, tc.v, parseVersion([]byte(tc.text)))
		assert.Equal(t, tc.ok, atLeast(tc.v, MinVersion), tc.v)
	}
	assert.Equal(t, "", parseVersion([]byte("usage: bwrap [OPTIONS...]")))
}

// The git control paths (gitctl) are not writable: every .git directory
// or file, wherever it is, and wherever core.hooksPath puts the hooks.
func TestGitProtectedPaths(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{".git/hooks", ".git/modules/lib/hooks", ".husky/_", "src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\thooksPath = .husky/_\n"), 0o644))
	p := Policy{Workspace: ws, Home: "/home/nobody"}
	for path, writable := range map[string]bool{
		".git/hooks/pre-commit":             false,
		".git/config":                       false,
		".git/config.worktree":              false,
		".git/modules/lib/hooks/post-merge": false,
		".git/modules/lib/config":           false,
		".git/modules/lib/HEAD":             false,
		".git/commondir":                    false,
		"api/.git/hooks/post-checkout":      false,
		"api/.git":                          false,
		".husky/_/pre-commit":               false,
		".husky/pre-commit":                 true, // a versioned file, like the Makefile: it shows in git diff
		".git/index":                        false,
		"src/main.go":                       true,
	} {
		assert.Equal(t, writable, p.Writable(filepath.Join(ws, path)), path)
	}
}

// The scan reads a directory again when it changed: a secret or a .git
// created, moved or removed since the last scan is seen at the next.
func TestScanCacheSeesChanges(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0 // trust every stamp: only a changed stamp makes a read
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755))
	names := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			rel, _ := filepath.Rel(ws, p)
			out = append(out, rel)
		}
		return out
	}
	assert.Empty(t, scanWorkspace(ws, MaxScanEntries).secrets)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a", "b", ".env"), nil, 0o644))
	assert.Equal(t, []string{"a/b/.env"}, names(scanWorkspace(ws, MaxScanEntries).secrets))
	require.NoError(t, os.Rename(filepath.Join(ws, "a", "b"), filepath.Join(ws, "a", "c")))
	assert.Equal(t, []string{"a/c/.env"}, names(scanWorkspace(ws, MaxScanEntries).secrets))
	require.NoError(t, os.Mkdir(filepath.Join(ws, "a", "c", ".git"), 0o755))
	assert.Equal(t, []string{"a/c/.git"}, names(scanWorkspace(ws, MaxScanEntries).gitPaths))
	require.NoError(t, os.Remove(filepath.Join(ws, "a", "c", ".env")))
	assert.Empty(t, scanWorkspace(ws, MaxScanEntries).secrets)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "deploy", ".kube"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "deploy", ".kube", "config"), nil, 0o644))
	assert.Equal(t, []string{"deploy/.kube/config"}, names(scanWorkspace(ws, MaxScanEntries).secrets), "a name secret only in its directory")
}
