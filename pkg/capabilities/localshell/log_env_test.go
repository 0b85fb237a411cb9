package localshell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/toolfiles"
)

func TestLogFile(t *testing.T) {
	root := t.TempDir()
	sh := New(Options{LogRoot: root})
	res := run(t, sh, "echo out\necho err >&2", capabilities.ExecOptions{ThreadID: "th1", RequestID: "rq1"})
	want := filepath.Join(root, "threads", "th1", "tools", "rq1", "bashCommand.log")
	assert.Equal(t, want, res.LogPath)
	b, err := os.ReadFile(want)
	require.NoError(t, err)
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, got, 5)
	assert.Equal(t, []string{"$ echo out", "> echo err >&2"}, got[:2])
	assert.ElementsMatch(t, []string{"stdout: out", "stderr: err"}, got[2:4])
	assert.Regexp(t, `^exit 0 after \d+\.\d{3}s$`, got[4])

	fi, err := os.Stat(want)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	for _, d := range []string{"threads", "threads/th1", "threads/th1/tools", "threads/th1/tools/rq1"} {
		fi, err := os.Stat(filepath.Join(root, d))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), d)
	}
}

func TestLogPathSanitised(t *testing.T) {
	root := t.TempDir()
	sh := New(Options{LogRoot: root})
	for _, ids := range [][2]string{
		{"../../etc", "../../etc"}, {"", ""}, {".", ".."}, {"a/b", "-rf"}, {"x\x00y", "/abs"},
	} {
		res := run(t, sh, "true", capabilities.ExecOptions{ThreadID: ids[0], RequestID: ids[1]})
		rel, err := filepath.Rel(root, res.LogPath)
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(rel, ".."), rel)
		parts := strings.Split(rel, string(filepath.Separator))
		require.Len(t, parts, 5, rel)
		assert.Equal(t, []string{"threads", "tools", "bashCommand.log"}, []string{parts[0], parts[2], parts[4]})
		_, err = os.Stat(res.LogPath)
		assert.NoError(t, err)
	}
	assert.Equal(t, "unknown", toolfiles.SafeSegment(""))
	assert.Equal(t, "unknown", toolfiles.SafeSegment(".."))
	assert.Equal(t, "_._.._etc", toolfiles.SafeSegment("../../etc"))
	assert.Equal(t, "_rf", toolfiles.SafeSegment("-rf"))
	assert.Equal(t, "toolu_01-AB.c", toolfiles.SafeSegment("toolu_01-AB.c"))
	assert.Len(t, toolfiles.SafeSegment(strings.Repeat("a", 1000)), 128)
}

func TestUnwritableLogRootIsAnError(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	// The per-user fallback is unusable too.
	require.NoError(t, os.WriteFile(file+"-"+strconv.Itoa(os.Getuid()), nil, 0o600))
	sh := New(Options{LogRoot: file})
	assert.Contains(t, sh.Warning(), "no usable log directory")
	_, err := sh.Execute(t.Context(), "true", capabilities.ExecOptions{RequestID: "r"})
	assert.ErrorContains(t, err, "is not a directory")
}

func TestHardenedEnvVisible(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	init := exec.Command("git", "init", "-q", repo)
	require.NoError(t, init.Run())
	// The repository asks for an fsmonitor hook; the override must win.
	require.NoError(t, exec.Command("git", "-C", repo, "config", "core.fsmonitor", "/bin/false-monitor").Run())

	env := append(os.Environ(), "GIT_PAGER=less", "EDITOR=vim",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=Inherited",
		"GIT_CONFIG_KEY_5=core.pager", "GIT_CONFIG_VALUE_5=less")
	sh := New(Options{LogRoot: t.TempDir(), Cwd: repo, Env: env})
	cmd := `echo "$GIT_PAGER|$PAGER|$EDITOR|$GIT_TERMINAL_PROMPT|${GIT_ASKPASS-unset}|$TERM|$NO_COLOR"
git config core.fsmonitor; git config core.hooksPath; git config core.pager; git config user.name`
	res := run(t, sh, cmd, capabilities.ExecOptions{})
	assert.Equal(t, []string{
		"stdout: cat|cat|true|0||dumb|1",
		"stdout: false", "stdout: /dev/null", "stdout: cat", "stdout: Inherited",
	}, lines(res))
}

func TestHardenEnv(t *testing.T) {
	env := hardenEnv([]string{"HOME=/h", "PAGER=less", "GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_1=a.b", "GIT_CONFIG_VALUE_1=c", "GIT_CONFIG_KEY_70=x.y", "GIT_CONFIG_VALUE_70=z",
		"GIT_CONFIG_PARAMETERS='core.pager'='less'", "GIT_CONFIG_GLOBAL=/g"})
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		_, dup := m[k]
		assert.False(t, dup, k)
		m[k] = v
	}
	assert.Equal(t, "/h", m["HOME"])
	assert.Equal(t, "cat", m["PAGER"])
	assert.Equal(t, "/g", m["GIT_CONFIG_GLOBAL"])
	assert.NotContains(t, m, "GIT_CONFIG_PARAMETERS")
	assert.NotContains(t, m, "GIT_CONFIG_KEY_70")
	assert.Equal(t, "a.b", m["GIT_CONFIG_KEY_0"])
	assert.Equal(t, "c", m["GIT_CONFIG_VALUE_0"])
	assert.Equal(t, strconv.Itoa(1+len(gitOverrides)), m["GIT_CONFIG_COUNT"])
	assert.Equal(t, "credential.helper", m["GIT_CONFIG_KEY_6"])
	assert.Equal(t, "", m["GIT_CONFIG_VALUE_6"])
	assert.Equal(t, "ssh -oBatchMode=yes", m["GIT_CONFIG_VALUE_4"])
}

// Variables that would change what the checked command means never
// reach bash: a BASH_ENV file is not sourced and an exported function
// does not replace ls.
func TestEnvCannotRedefineTheCommand(t *testing.T) {
	dir := t.TempDir()
	rc := filepath.Join(dir, "rc")
	require.NoError(t, os.WriteFile(rc, []byte("echo sourced\n"), 0o600))
	env := append(os.Environ(), "BASH_ENV="+rc, "ENV="+rc, "CDPATH=/", "GLOBIGNORE=*",
		"BASH_FUNC_ls%%=() {  echo hijacked; }", "RIPGREP_CONFIG_PATH="+rc)
	sh := New(Options{LogRoot: t.TempDir(), Cwd: dir, Env: env})
	res, err := sh.Execute(context.Background(), "ls rc; echo ${CDPATH:-unset} ${RIPGREP_CONFIG_PATH:-unset}", capabilities.ExecOptions{ThreadID: "t", RequestID: "r"})
	require.NoError(t, err)
	var got []string
	for _, l := range append(res.Head, res.Tail...) {
		got = append(got, l.Text)
	}
	assert.Equal(t, []string{"rc", "unset unset"}, got)
}
