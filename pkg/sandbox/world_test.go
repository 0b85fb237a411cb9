package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// world is a planted home and workspace: secrets where agents must not
// look, ordinary files where they work.
type world struct {
	home, ws, outside string
	policy            sandbox.Policy
	st                sandbox.Status
}

const (
	sshSecret = "SSH-PRIVATE-KEY-SECRET"
	awsSecret = "AWS-SECRET-ACCESS-KEY"
	envSecret = "ENV-FILE-SECRET"
	keySecret = "TLS-KEY-SECRET"
	hookText  = "#!/bin/sh\nexit 0\n"
	gitConfig = "[core]\n\tbare = false\n\thooksPath = .husky/_\n"
)

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldIn(t, t.TempDir())
}

// newWorldIn plants the world under root.
func newWorldIn(t *testing.T, root string) *world {
	t.Helper()
	st := sandboxtest.Require(t)
	w := &world{home: filepath.Join(root, "home"), ws: filepath.Join(root, "home", "proj"), outside: hostTmpDir(t), st: st}
	plant(t, w.home, map[string]string{
		".ssh/id_rsa":      sshSecret,
		".aws/credentials": awsSecret,
		"notes.txt":        "HOME-NOTES",
		"cache/keep.txt":   "CACHE",
		"go/pkg/mod/m.go":  "package m\n",
	})
	plant(t, w.ws, map[string]string{
		".env":                    envSecret,
		"server.key":              keySecret,
		"src/app.go":              "package app\n",
		".git/hooks/pre-commit":   hookText,
		".git/config":             gitConfig,
		"Makefile":                "all:\n\ttrue\n",
		".husky/_/h":              hookText,
		".git/modules/lib/config": gitConfig,
		".git/HEAD":               "ref: refs/heads/main\n",
	})
	plant(t, w.outside, map[string]string{"file.txt": "OUTSIDE"})
	require.NoError(t, os.Symlink(filepath.Join(w.home, ".ssh", "id_rsa"), filepath.Join(w.ws, "notes-link")))
	w.policy = sandbox.Policy{
		Workspace:  w.ws,
		Home:       w.home,
		AllowWrite: []string{filepath.Join(w.home, "cache")},
	}
	return w
}

// hostTmpDir makes a directory in the host's /tmp itself, which the
// sandbox replaces, whatever $TMPDIR (and so t.TempDir) says.
func hostTmpDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "magenta-sandbox-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func plant(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

// result is what one confined command did.
type result struct {
	out  string
	code int
}

// run runs script confined by p, in cwd, with HOME set to the world's.
func (w *world) run(t *testing.T, p sandbox.Policy, cwd, script string) result {
	t.Helper()
	cmd := w.command(t, p, cwd, script)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		t.Fatalf("confined command did not end within 30 s: %q", script)
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), code}
}

// command builds the confined command without starting it.
func (w *world) command(t *testing.T, p sandbox.Policy, cwd, script string) *exec.Cmd {
	t.Helper()
	launch, err := p.Args(w.st, cwd)
	require.NoError(t, err)
	require.True(t, launch.Complete)
	argv := append(append([]string(nil), launch.Prefix...), "bash", "--noprofile", "--norc", "-c", script)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "HOME="+w.home, "LC_ALL=C"), launch.Env...)
	return cmd
}

func readHost(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

var execLookPath = exec.LookPath
