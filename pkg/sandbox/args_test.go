package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
	"github.com/magenta-nvim/magenta/pkg/sandbox/sandboxtest"
)

// bwrapArity is how many operands each option Args emits takes.
var bwrapArity = map[string]int{
	"--ro-bind": 2, "--bind": 2, "--symlink": 2, "--dev": 1, "--proc": 1, "--tmpfs": 1, "--remount-ro": 1,
	"--chdir": 1, "--cap-drop": 1, "--unshare-pid": 0, "--unshare-net": 0, "--die-with-parent": 0, "--new-session": 0,
}

// checkWellFormed parses prefix the way bwrap does: known options with
// their operand counts, every operand an absolute path (but a link's
// target), ending in "--".
func checkWellFormed(t *testing.T, st sandbox.Status, prefix []string) {
	t.Helper()
	require.NotEmpty(t, prefix)
	require.Equal(t, st.Path, prefix[0])
	i := 1
	for i < len(prefix) && prefix[i] != "--" {
		n, ok := bwrapArity[prefix[i]]
		require.True(t, ok, "unknown option %q at %d in %q", prefix[i], i, prefix)
		require.LessOrEqual(t, i+n, len(prefix)-1, "option %q lacks operands", prefix[i])
		if prefix[i] == "--cap-drop" {
			assert.Equal(t, "ALL", prefix[i+1])
			i += 2
			continue
		}
		for j, operand := range prefix[i+1 : i+1+n] {
			if prefix[i] == "--symlink" && j == 0 {
				assert.NotEmpty(t, operand, "a link's target may be relative (/bin → usr/bin)")
				continue
			}
			assert.True(t, filepath.IsAbs(operand), "operand %q of %s is not absolute", operand, prefix[i])
			assert.NotContains(t, operand, "\x00")
		}
		i += 1 + n
	}
	require.Equal(t, len(prefix)-1, i, "prefix must end with a lone --: %q", prefix)
}

func TestArgsOddPaths(t *testing.T) {
	st := sandboxtest.Require(t)
	for _, name := range []string{
		"with space", "new\nline", "--chdir", "-", "--", "'quote\"", "$(touch pwned)", "ünïcödé", "a\tb", "*",
	} {
		t.Run(strings.ReplaceAll(name, "\n", `\n`), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), name)
			ws := filepath.Join(root, name)
			home := filepath.Join(root, "home")
			plant(t, ws, map[string]string{name + "/.env": "SECRET", "f": "FILE", ".git/config": "[core]"})
			plant(t, home, map[string]string{".ssh/id_rsa": "SECRET"})
			cwd := filepath.Join(ws, name)
			p := sandbox.Policy{Workspace: ws, Home: home, AllowWrite: []string{filepath.Join(root, "missing", name)}}
			launch, err := p.Args(st, cwd)
			require.NoError(t, err)
			checkWellFormed(t, st, launch.Prefix)

			w := &world{home: home, ws: ws, st: st, policy: p}
			r := w.run(t, p, cwd, `pwd; cat .env; echo written > out`)
			assert.True(t, strings.HasPrefix(r.out, cwd+"\n"), r.out)
			assert.NotContains(t, r.out, "SECRET")
			assert.Equal(t, "written\n", readHost(t, filepath.Join(cwd, "out")))
			assert.NoFileExists(t, filepath.Join(cwd, "pwned"))
		})
	}
}

func TestArgsRejectsBadInput(t *testing.T) {
	st := sandboxtest.Require(t)
	ws := t.TempDir()
	good := sandbox.Policy{Workspace: ws, Home: ws}
	for _, tc := range []struct {
		name string
		p    sandbox.Policy
		cwd  string
		want string
	}{
		{"relative workspace", sandbox.Policy{Workspace: "proj", Home: ws}, ws, "not an absolute path"},
		{"empty home", sandbox.Policy{Workspace: ws}, ws, "not an absolute path"},
		{"relative allowWrite", sandbox.Policy{Workspace: ws, Home: ws, AllowWrite: []string{"--tmp"}}, ws, "not an absolute path"},
		{"NUL in hide", sandbox.Policy{Workspace: ws, Home: ws, Hide: []string{"a\x00b"}}, ws, "NUL"},
		{"hide covers workspace", sandbox.Policy{Workspace: ws, Home: ws, Hide: []string{"/"}}, ws, "covers the workspace"},
		{"writable root", sandbox.Policy{Workspace: ws, Home: ws, AllowWrite: []string{"/"}}, ws, "writable /"},
		{"bad network", sandbox.Policy{Workspace: ws, Home: ws, Network: 7}, ws, "network"},
		{"missing workspace", sandbox.Policy{Workspace: filepath.Join(ws, "gone"), Home: ws}, ws, "not an existing directory"},
		{"relative cwd", good, "--chdir", "not an absolute path"},
		{"missing cwd", good, filepath.Join(ws, "gone"), "not an existing directory"},
		{"NUL in cwd", good, ws + "/\x00", "not an absolute path"},
		{"cwd in the host's /tmp", sandbox.Policy{Workspace: ws, Home: ws}, hostTmpDir(t), "hidden inside the sandbox"},
	} {
		_, err := tc.p.Args(st, tc.cwd)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
	_, err := good.Args(sandbox.Status{Reason: "bwrap not found on PATH"}, ws)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bwrap not found on PATH")
}

// FuzzArgs plants a workspace whose names come from the fuzzer and
// checks that the argv stays well-formed.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{"a", "--", "-x y", "new\nline", ".env", ".git", "~", "..."} {
		f.Add(seed, seed)
	}
	f.Fuzz(func(t *testing.T, dirName, hide string) {
		if dirName == "" || dirName == "." || dirName == ".." || strings.ContainsAny(dirName, "/\x00") || len(dirName) > 200 {
			t.Skip("not a single directory name")
		}
		st := sandboxtest.Require(t)
		root := t.TempDir()
		ws := filepath.Join(root, dirName)
		if err := os.MkdirAll(filepath.Join(ws, dirName), 0o755); err != nil {
			t.Skip(err)
		}
		p := sandbox.Policy{Workspace: ws, Home: root, Hide: []string{hide}}
		launch, err := p.Args(st, filepath.Join(ws, dirName))
		hidden := filepath.Clean(filepath.Join(root, strings.TrimPrefix(hide, "~/")))
		if filepath.IsAbs(hide) {
			hidden = filepath.Clean(hide)
		}
		if strings.Contains(hide, "\x00") || hide == "" || ws == hidden || strings.HasPrefix(ws, hidden+"/") || hidden == "/" {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		checkWellFormed(t, st, launch.Prefix)
	})
}
