package sandbox_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

func TestConfinedReadsSeeWorkspaceButNotSecrets(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		script string
		want   string // "" when the command must fail
	}{
		{"cat src/app.go", "package app"},
		{"cat Makefile", "all:"},
		{"cat .git/config", "[core]"},
		{`cat "$HOME/notes.txt"`, ""},                // the home directory is hidden…
		{`cat "$HOME/go/pkg/mod/m.go"`, "package m"}, // …but for the toolchains
		{`test -z "$(ls -A /run)$(ls -A /var/tmp)" && echo private-run`, "private-run"},
		{"cat /etc/passwd", "root:"},
		{`cat "$HOME/.ssh/id_rsa"`, ""},
		{`cat "$HOME/.aws/credentials"`, ""},
		{"cat .env", ""},
		{"cat server.key", ""},
		{"cat notes-link", ""},
		{`ls -A "$HOME/.ssh"; cat "$HOME"/.ssh/*`, ""},
	} {
		r := w.run(t, w.policy, w.ws, tc.script)
		for _, secret := range []string{sshSecret, awsSecret, envSecret, keySecret} {
			assert.NotContains(t, r.out, secret, tc.script)
		}
		if tc.want != "" {
			assert.Equal(t, 0, r.code, "%s: %s", tc.script, r.out)
			assert.Contains(t, r.out, tc.want, tc.script)
		} else {
			assert.NotEqual(t, 0, r.code, "%s: %s", tc.script, r.out)
		}
	}
}

func TestConfinedWritesReachOnlyTheWorkspace(t *testing.T) {
	w := newWorld(t)
	tmpName := fmt.Sprintf("magenta-sandbox-%d", rand.Uint64())
	plant(t, w.ws, map[string]string{"api/.git/config": gitConfig, "api/.git/HEAD": "ref: refs/heads/main\n", "api/main.go": "package api\n"})

	r := w.run(t, w.policy, w.ws, "echo built > build.out && echo cached > \"$HOME/cache/new.txt\"")
	require.Equal(t, 0, r.code, r.out)
	assert.Equal(t, "built\n", readHost(t, filepath.Join(w.ws, "build.out")))
	assert.Equal(t, "cached\n", readHost(t, filepath.Join(w.home, "cache", "new.txt")), "AllowWrite path")

	for _, script := range []string{
		`touch "$HOME/escaped.txt"`,
		"touch /etc/escaped.txt",
		"echo evil > .git/hooks/pre-commit",
		"echo evil > .git/commondir",
		"echo evil > api/.git/hooks/pre-commit",
		"echo evil >> api/.git/config",
		"mv api api-old && mkdir -p api/.git/hooks && echo evil > api/.git/hooks/pre-commit",
		"echo evil >> .git/config",
		"echo evil > .git/hooks/post-checkout",
		"echo evil > .husky/_/pre-commit",
		"echo evil >> .git/modules/lib/config",
		"echo evil > .env",
		"echo evil > server.key",
		"echo evil > " + filepath.Join(w.outside, "file.txt"),
	} {
		r := w.run(t, w.policy, w.ws, script)
		assert.NotEqual(t, 0, r.code, "%s: %s", script, r.out)
	}
	assert.NoFileExists(t, filepath.Join(w.home, "escaped.txt"))
	assert.NoFileExists(t, filepath.Join(w.ws, ".git", "hooks", "post-checkout"))
	assert.NoFileExists(t, filepath.Join(w.ws, ".git", "commondir"))
	assert.NoFileExists(t, filepath.Join(w.ws, "api", ".git", "hooks", "pre-commit"))
	assert.Equal(t, gitConfig, readHost(t, filepath.Join(w.ws, "api", ".git", "config")), "a nested repository's .git is read-only too")
	assert.NoDirExists(t, filepath.Join(w.ws, "api-old"), "and pinned: it cannot be moved aside")
	assert.Equal(t, hookText, readHost(t, filepath.Join(w.ws, ".git", "hooks", "pre-commit")))
	assert.Equal(t, gitConfig, readHost(t, filepath.Join(w.ws, ".git", "config")))
	assert.Equal(t, gitConfig, readHost(t, filepath.Join(w.ws, ".git", "modules", "lib", "config")))
	assert.NoFileExists(t, filepath.Join(w.ws, ".husky", "_", "pre-commit"))
	assert.Equal(t, envSecret, readHost(t, filepath.Join(w.ws, ".env")))
	assert.Equal(t, keySecret, readHost(t, filepath.Join(w.ws, "server.key")))
	assert.Equal(t, "OUTSIDE", readHost(t, filepath.Join(w.outside, "file.txt")))

	r = w.run(t, w.policy, w.ws, "echo private > /tmp/"+tmpName+` && cat /tmp/`+tmpName+` && echo "$TMPDIR"`)
	require.Equal(t, 0, r.code, r.out)
	assert.Equal(t, "private\n/tmp\n", r.out)
	assert.NoFileExists(t, filepath.Join("/tmp", tmpName), "the sandbox's /tmp is private")
}

// A command has no capabilities, even when the host runs as root: it
// cannot unmount a mask or remount a read-only path read-write.
func TestConfinedCommandHasNoCapabilities(t *testing.T) {
	w := newWorld(t)
	r := w.run(t, w.policy, w.ws, `grep CapEff /proc/self/status
umount "$HOME/.ssh"; cat "$HOME/.ssh/id_rsa"
mount -o remount,rw,bind "$HOME" && touch "$HOME/escaped.txt"
true`)
	assert.Contains(t, r.out, "CapEff:\t0000000000000000", r.out)
	assert.NotContains(t, r.out, sshSecret)
	assert.NoFileExists(t, filepath.Join(w.home, "escaped.txt"))
}

// A hidden path that is a symlink is masked where it points, so neither
// name reaches the secret.
func TestSymlinkedSecretIsMaskedAtItsTarget(t *testing.T) {
	w := newWorld(t)
	plant(t, w.home, map[string]string{"vault/gnupg/private-keys": "GPG-SECRET", "vault/netrc": "NETRC-SECRET"})
	require.NoError(t, os.Symlink("vault/gnupg", filepath.Join(w.home, ".gnupg")))
	require.NoError(t, os.Symlink(filepath.Join(w.home, "vault", "netrc"), filepath.Join(w.home, ".netrc")))
	r := w.run(t, w.policy, w.ws, `cat "$HOME/.gnupg/private-keys" "$HOME/vault/gnupg/private-keys" "$HOME/.netrc" "$HOME/vault/netrc"; echo ran`)
	assert.Contains(t, r.out, "ran")
	assert.NotContains(t, r.out, "GPG-SECRET")
	assert.NotContains(t, r.out, "NETRC-SECRET")
	for _, path := range []string{".gnupg/private-keys", "vault/gnupg/private-keys", ".netrc", "vault/netrc"} {
		assert.False(t, w.policy.Readable(filepath.Join(w.home, path)), path)
	}
}

// A working directory outside the workspace is readable but not writable.
func TestCwdOutsideTheWorkspace(t *testing.T) {
	w := newWorld(t)
	launch, err := w.policy.Args(w.st, "/etc")
	require.NoError(t, err)
	assert.False(t, launch.CwdWritable)
	inWorkspace, err := w.policy.Args(w.st, filepath.Join(w.ws, "src"))
	require.NoError(t, err)
	assert.True(t, inWorkspace.CwdWritable)
	_, err = w.policy.Args(w.st, w.home)
	require.ErrorContains(t, err, "hidden inside the sandbox", "the home directory is hidden")

	r := w.run(t, w.policy, "/etc", "cat passwd && touch here.txt")
	assert.NotEqual(t, 0, r.code, r.out)
	assert.Contains(t, r.out, "root:")
	assert.NoFileExists(t, "/etc/here.txt")
}

// Nested hidden paths (a file inside a hidden directory) must not make
// bwrap try to create a mount point inside the read-only mask.
func TestNestedHiddenPathsStillRun(t *testing.T) {
	w := newWorld(t)
	plant(t, w.home, map[string]string{".docker/config.json": "DOCKER-AUTH", ".docker/other": "x"})
	plant(t, w.ws, map[string]string{"deploy/.aws/credentials": awsSecret, "deploy/.aws/.env": envSecret})
	p := w.policy
	p.Hide = []string{".docker", "~/.ssh/id_rsa"}
	p.AllowRead = []string{"~/.docker", "~/.ssh"} // shown, so the masks inside matter
	r := w.run(t, p, w.ws, `ls -A "$HOME/.docker"; cat "$HOME/.docker/config.json" deploy/.aws/credentials; echo ran`)
	assert.Contains(t, r.out, "ran", r.out)
	assert.NotContains(t, r.out, "DOCKER-AUTH")
	assert.NotContains(t, r.out, awsSecret)
}

// Moving the repository's git directory aside and planting a new one
// would hand the user a hook at their next git command.
func TestGitDirectoryCannotBeReplaced(t *testing.T) {
	w := newWorld(t)
	for _, script := range []string{
		"mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
		"mv .git/hooks .git/hooks-old && mkdir .git/hooks && echo evil > .git/hooks/pre-commit",
		"rm -rf .git/hooks; mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
		"mv .git/config .git/config-old && echo evil > .git/config",
		"mv .husky .husky-old && mkdir -p .husky/_ && echo evil > .husky/_/pre-commit",
		"mv .git/modules/lib .git/modules/lib-old && mkdir -p .git/modules/lib/hooks && echo evil > .git/modules/lib/hooks/pre-commit",
		"mv .git/modules .git/modules-old && mkdir -p .git/modules/lib/hooks && echo evil > .git/modules/lib/hooks/pre-commit",
	} {
		r := w.run(t, w.policy, w.ws, script)
		assert.NotEqual(t, 0, r.code, "%s: %s", script, r.out)
		assert.Equal(t, hookText, readHost(t, filepath.Join(w.ws, ".git", "hooks", "pre-commit")), script)
		assert.Equal(t, gitConfig, readHost(t, filepath.Join(w.ws, ".git", "config")), script)
		assert.NoFileExists(t, filepath.Join(w.ws, ".husky", "_", "pre-commit"), script)
		assert.NoFileExists(t, filepath.Join(w.ws, ".git", "modules", "lib", "hooks", "pre-commit"), script)
	}
	r := w.run(t, w.policy, w.ws, "ls .git/modules/lib && echo ok > .git/HEAD.new")
	assert.Contains(t, r.out, "config", "the repository stays readable")
	assert.NotEqual(t, 0, r.code, "and read-only as a whole: %s", r.out)
	assert.NoFileExists(t, filepath.Join(w.ws, ".git", "HEAD.new"))
}

func TestMissingHooksDirectoryStaysUnwritable(t *testing.T) {
	w := newWorld(t)
	require.NoError(t, os.RemoveAll(filepath.Join(w.ws, ".git", "hooks")))
	r := w.run(t, w.policy, w.ws, "mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit")
	assert.NotEqual(t, 0, r.code, r.out)
	assert.NoFileExists(t, filepath.Join(w.ws, ".git", "hooks", "pre-commit"))

	// core.hooksPath names a directory that does not exist yet.
	require.NoError(t, os.RemoveAll(filepath.Join(w.ws, ".husky")))
	r = w.run(t, w.policy, w.ws, "mkdir -p .husky/_ && echo evil > .husky/_/pre-commit")
	assert.NotEqual(t, 0, r.code, r.out)
	assert.NoFileExists(t, filepath.Join(w.ws, ".husky", "_", "pre-commit"))
}

func TestNetworkDenyAndAllow(t *testing.T) {
	w := newWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")
			_ = c.Close()
			accepted <- struct{}{}
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	devTCP := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)

	r := w.run(t, w.policy, w.ws, devTCP)
	assert.NotEqual(t, 0, r.code, r.out)
	assert.NotContains(t, r.out, "connected")

	allow := w.policy
	allow.Network = sandbox.NetworkAllow
	r = w.run(t, allow, w.ws, devTCP)
	assert.Equal(t, 0, r.code, r.out)
	assert.Contains(t, r.out, "connected")
	waitAccepted(t, accepted)

	if _, err := execLookPath("curl"); err == nil {
		url := fmt.Sprintf("http://127.0.0.1:%d/", port)
		r = w.run(t, w.policy, w.ws, "curl -sS --max-time 20 "+url)
		assert.NotEqual(t, 0, r.code, r.out)
		r = w.run(t, allow, w.ws, "curl -sS --max-time 20 "+url)
		assert.Equal(t, 0, r.code, r.out)
		assert.Equal(t, "hello", r.out)
	}
}

func waitAccepted(t *testing.T, accepted <-chan struct{}) {
	t.Helper()
	select {
	case <-accepted:
	case <-time.After(30 * time.Second):
		t.Fatal("the listener saw no connection within 30 s")
	}
}

// A process that leaves the session (setsid) and the process group still
// dies with the sandbox: it is in the sandbox's PID namespace.
func TestEscapedProcessDiesWithTheSandbox(t *testing.T) {
	w := newWorld(t)
	arg := fmt.Sprintf("7777.%06d", rand.IntN(1000000))
	cmd := w.command(t, w.policy, w.ws, "setsid sleep "+arg+" & echo started; read -r _")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "started\n", line)

	waitFor(t, func() bool { return sleeperRunning(arg) }, "the setsid sleeper to appear in /proc")
	require.NoError(t, stdin.Close())
	_ = cmd.Wait()
	waitFor(t, func() bool { return !sleeperRunning(arg) }, "the setsid sleeper to die with the sandbox")
}

// sleeperRunning reports whether a live process runs `sleep arg`.
func sleeperRunning(arg string) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || string(b) != "sleep\x00"+arg+"\x00" {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err == nil && !strings.Contains(string(stat), ") Z ") {
			return true
		}
	}
	return false
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The host's own programs inside the workspace (magenta's checkout as
// the workspace) stay read-only: a confined command cannot replace what
// later runs outside the sandbox or as its parent.
func TestOwnProgramsStayReadOnly(t *testing.T) {
	w := newWorld(t)
	bin := filepath.Join(w.ws, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "magenta-supervisor"), []byte("#!/bin/sh\n"), 0o755))
	p := w.policy
	p.ReadOnly = []string{bin}
	assert.False(t, p.Writable(filepath.Join(bin, "magenta-supervisor")))
	assert.True(t, p.Writable(filepath.Join(w.ws, "src", "x.go")))
	r := w.run(t, p, w.ws, "echo evil > bin/magenta-supervisor; echo evil > bin/new; mv bin bin.old; echo ok > src.txt")
	assert.Contains(t, r.out, "Read-only file system")
	data, err := os.ReadFile(filepath.Join(bin, "magenta-supervisor"))
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/sh\n", string(data))
	assert.NoFileExists(t, filepath.Join(bin, "new"))
	assert.DirExists(t, bin)
	assert.FileExists(t, filepath.Join(w.ws, "src.txt"), "the rest of the workspace stays writable")
}
