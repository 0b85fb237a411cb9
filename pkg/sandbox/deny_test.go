package sandbox_test

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

// A masked secret cannot be moved out from under its mask: the
// directories between the workspace and it are mount points, which
// rename(2) and rmdir(2) refuse. Moving it into a directory the scan
// skips (node_modules) was how the first red team read it.
func TestMaskedSecretCannotBeMovedAway(t *testing.T) {
	w := newWorld(t)
	plant(t, w.ws, map[string]string{"config/secrets.yml": "YML-SECRET", "deep/a/b/.env.local": "DEEP-SECRET"})
	for _, script := range []string{
		"mv config node_modules && cat node_modules/secrets.yml",
		"mv config/secrets.yml node_modules.yml && cat node_modules.yml",
		"mv deep node_modules && cat node_modules/a/b/.env.local",
		"mv deep/a .venv && cat .venv/b/.env.local",
		"rm -rf config && echo gone",
		"cp -r config node_modules && cat node_modules/secrets.yml",
		"ln config/secrets.yml hard && cat hard",
	} {
		r := w.run(t, w.policy, w.ws, script)
		assert.NotContains(t, r.out, "YML-SECRET", script)
		assert.NotContains(t, r.out, "DEEP-SECRET", script)
		assert.NotContains(t, r.out, "gone", script)
	}
	assert.Equal(t, "YML-SECRET", readHost(t, filepath.Join(w.ws, "config", "secrets.yml")))
	assert.Equal(t, "DEEP-SECRET", readHost(t, filepath.Join(w.ws, "deep", "a", "b", ".env.local")))
}

// The home directory is hidden but for the toolchains; the user's git
// configuration shows redacted when it holds a credential.
func TestHomeShowsToolchainsAndCleanGitConfig(t *testing.T) {
	w := newWorld(t)
	plant(t, w.home, map[string]string{
		".gitconfig":                  "[user]\n\tname = Dev\n[core]\n\texcludesFile = ~/.config/git/ignore\n",
		".config/git/config":          "[sendemail]\n\tsmtpPass = GITCONFIG-SECRET\n",
		".cargo/bin/cargo-x":          "CARGO-BIN",
		".cargo/credentials.toml":     "CARGO-SECRET",
		".cache/go-build/README":      "GO-CACHE",
		".local/share/nvim/threads.x": "THREAD-STORE",
		".bash_history":               "HISTORY-SECRET",
	})
	r := w.run(t, w.policy, w.ws, `cat "$HOME/.gitconfig" "$HOME/.cargo/bin/cargo-x" "$HOME/.cache/go-build/README"; `+
		`cat "$HOME/.config/git/config" "$HOME/.cargo/credentials.toml" "$HOME/.local/share/nvim/threads.x" "$HOME/.bash_history"; `+
		`echo "x" > "$HOME/.cache/go-build/planted"; echo ran`)
	assert.Contains(t, r.out, "name = Dev")
	assert.Contains(t, r.out, "CARGO-BIN")
	assert.Contains(t, r.out, "GO-CACHE")
	assert.Contains(t, r.out, "ran")
	assert.Contains(t, r.out, "smtpPass = ***", "a redacted copy")
	for _, secret := range []string{"GITCONFIG-SECRET", "CARGO-SECRET", "THREAD-STORE", "HISTORY-SECRET"} {
		assert.NotContains(t, r.out, secret)
	}
	assert.NoFileExists(t, filepath.Join(w.home, ".cache", "go-build", "planted"), "caches are read-only: no poisoned build entries")
	assert.True(t, w.policy.Readable(filepath.Join(w.home, ".gitconfig")))
	assert.False(t, w.policy.Readable(filepath.Join(w.home, ".config", "git", "config")))
	assert.False(t, w.policy.Readable(filepath.Join(w.home, ".local", "share", "nvim", "threads.x")))

	p := w.policy
	p.AllowRead = []string{"~/.local/share/nvim"}
	r = w.run(t, p, w.ws, `cat "$HOME/.local/share/nvim/threads.x"`)
	assert.Contains(t, r.out, "THREAD-STORE", "sandbox.allowRead shows more")
}

// A directory beside the workspace — a sibling project — is not there.
func TestSiblingProjectsAreHidden(t *testing.T) {
	w := newWorld(t)
	sibling := filepath.Join(filepath.Dir(w.home), "other")
	plant(t, sibling, map[string]string{".env": "SIBLING-SECRET", "tls.key": "SIBLING-KEY", "README": "SIBLING"})
	r := w.run(t, w.policy, w.ws, "cat ../../other/README ../../other/.env ../../other/tls.key "+shellQuote(filepath.Join(sibling, "README")))
	assert.NotEqual(t, 0, r.code)
	assert.NotContains(t, r.out, "SIBLING")
	assert.False(t, w.policy.Readable(filepath.Join(sibling, "README")))
}

// A daemon's socket under /run (nscd, D-Bus, a GNU screen session) is
// out of reach: the sandbox's /run is its own. Creating one needs root.
func TestRunSocketsAreOutOfReach(t *testing.T) {
	dir := fmt.Sprintf("/run/magenta-test-%d", rand.Uint64())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a socket under /run: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	path := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })

	w := newWorldIn(t, hostTmpDir(t))
	self, err := os.Executable()
	require.NoError(t, err)
	dialer := filepath.Join(w.ws, "dialer")
	b, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dialer, b, 0o755))
	for _, network := range []sandbox.Network{sandbox.NetworkDeny, sandbox.NetworkAllow} {
		p := w.policy
		p.Network = network
		r := w.run(t, p, w.ws, fmt.Sprintf("%s=%s ./dialer", dialEnv, shellQuote(path)))
		assert.NotEqual(t, 0, r.code, r.out)
		assert.NotContains(t, r.out, "connected")
	}
	assert.False(t, w.policy.Readable(path))
}

// Only the allowlisted environment reaches a confined command.
func TestEnvironKeepsAnAllowlist(t *testing.T) {
	p := sandbox.Policy{Env: []string{"MY_TOOL_HOME"}}
	got := p.Environ([]string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/u/go",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
		"MY_TOOL_HOME=/opt/t",
		"ANTHROPIC_API_KEY=sk", "LLM_APIKEY=k", "GITHUB_PAT=p", "DATABASE_URL=postgres://u:pw@h/db",
		"REDIS_URL=redis://:pw@h", "MYSQL_PWD=pw", "SENTRY_DSN=https://k@s/1", "SLACK_WEBHOOK_URL=https://hooks/x",
		"AWS_ACCESS_KEY_ID=AKIA", "NVIM=/run/user/1/nvim.sock", "SSH_AUTH_SOCK=/tmp/agent", "XDG_RUNTIME_DIR=/run/user/1",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1/bus", "NOEQUALS",
	})
	assert.Equal(t, []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/u/go",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
		"MY_TOOL_HOME=/opt/t",
	}, got)
}

// A repository a confined command creates is its own; one that would
// run a program at the user's next git command there is renamed aside
// afterwards, a plain `git init` is left alone.
func TestNewRepositoriesThatRunProgramsAreDisarmed(t *testing.T) {
	w := newWorld(t)
	launch, err := w.policy.Args(w.st, w.ws)
	require.NoError(t, err)
	r := w.run(t, w.policy, w.ws, `set -e
git init -q plain
git init -q filtered && printf '[filter "x"]\n\tclean = touch /tmp/pwned\n' >> filtered/.git/config
git init -q hooked && printf '#!/bin/sh\ntouch /tmp/pwned\n' > hooked/.git/hooks/post-checkout
mkdir -p redirect evil && git init -q evil && printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' >> evil/.git/config
echo "gitdir: ../evil/.git" > redirect/.git
mkdir -p away && echo "gitdir: /tmp/elsewhere" > away/.git`)
	require.Equal(t, 0, r.code, r.out)
	notes := w.policy.DisarmNewRepositories(launch.GitPaths)
	text := strings.Join(notes, "\n")
	assert.Len(t, notes, 5, text)
	assert.DirExists(t, filepath.Join(w.ws, "plain", ".git"))
	for _, repo := range []string{"filtered", "hooked", "evil"} {
		assert.NoDirExists(t, filepath.Join(w.ws, repo, ".git"), repo)
		assert.DirExists(t, filepath.Join(w.ws, repo, ".git.disarmed-by-magenta"), repo)
	}
	assert.Contains(t, text, "filtered whose config setting filter.x.clean")
	assert.Contains(t, text, "hooked whose hook post-checkout")
	assert.Contains(t, text, "leads outside the workspace")
	assert.NoFileExists(t, filepath.Join(w.ws, "redirect", ".git"))
	assert.Empty(t, w.policy.DisarmNewRepositories(launch.GitPaths), "once disarmed, nothing more to do")
}

// A repository config holding a credential is shown redacted: `cat` and
// git itself see the remote without its token; git still works.
func TestRepositoryConfigIsRedacted(t *testing.T) {
	w := newWorld(t)
	cfg := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://user:TOKEN-abc123@example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
		"[sendemail]\n\tsmtpPass = SMTP-SECRET\n[url \"https://ghp_0123456789abcdef0123456789abcdef@github.com/\"]\n\tinsteadOf = https://github.com/\n"
	require.NoError(t, os.RemoveAll(filepath.Join(w.ws, ".git")))
	out, err := exec.Command("git", "init", "-q", w.ws).CombinedOutput()
	require.NoError(t, err, string(out))
	plant(t, w.ws, map[string]string{".git/config": cfg, "api/.git/config": cfg, "api/.git/HEAD": "ref: refs/heads/main\n", ".git/modules/lib/config": cfg})
	r := w.run(t, w.policy, w.ws, "cat .git/config api/.git/config .git/modules/lib/config; git config --list; git remote -v")
	for _, secret := range []string{"TOKEN-abc123", "SMTP-SECRET", "ghp_0123"} {
		assert.NotContains(t, r.out, secret)
	}
	assert.Contains(t, r.out, "url = https://user:***@example.com/r.git")
	assert.Contains(t, r.out, "origin\thttps://user:***@example.com/r.git")
	assert.Equal(t, cfg, readHost(t, filepath.Join(w.ws, ".git", "config")), "the host's file is untouched")
	assert.False(t, w.policy.Readable(filepath.Join(w.ws, ".git", "config")), "what the sandbox shows is not the file")
}
