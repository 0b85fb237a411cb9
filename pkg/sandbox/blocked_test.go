package sandbox_test

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

// Blocked reads what real programs print inside the real sandbox.
func TestBlockedRecognisesRealOutputs(t *testing.T) {
	w := newWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	escaped := "/etc/magenta-escaped.txt" // a system directory: read-only
	outside := filepath.Join(w.outside, "file.txt")

	cases := []struct {
		script string
		want   string // "" when Blocked must not claim the sandbox
	}{
		{"touch " + escaped, "the sandbox blocked writing " + escaped},
		{"echo x > " + escaped, "the sandbox blocked writing " + escaped},
		{"mkdir /etc/magenta-newdir", "the sandbox blocked writing /etc/magenta-newdir"},
		{`touch "$HOME/escaped.txt"`, "the sandbox blocked writing " + filepath.Join(w.home, "escaped.txt")},
		{`cat "$HOME/notes.txt"`, "the sandbox blocked reading " + filepath.Join(w.home, "notes.txt")},
		{"echo evil > .git/hooks/pre-commit", "the sandbox blocked writing .git/hooks/pre-commit"},
		{"echo evil >> .git/config", "the sandbox blocked writing .git/config"},
		{"cp Makefile " + outside, "the sandbox blocked writing " + outside},
		{"cat .env", "the sandbox blocked reading .env"},
		{"cat server.key", "the sandbox blocked reading server.key"},
		{`cat "$HOME/.aws/credentials"`, "the sandbox blocked reading " + filepath.Join(w.home, ".aws", "credentials")},
		{"cat " + outside, "the sandbox blocked reading " + outside},
		{"cat " + filepath.Join(w.ws, "missing.txt"), ""},
		{"echo evil > .env", "the sandbox blocked access to .env"},
		{"touch .env", "the sandbox blocked writing .env"},
		{fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port), "the sandbox blocked network access"},
		{"exec 3<>/dev/tcp/example.com/80", "the sandbox blocked network access"},
		{"cat /nonexistent/file", ""},
		{"exit 3", ""},
		{"echo 'Permission denied' ; true", ""},
	}
	if _, err := execLookPath("curl"); err == nil {
		cases = append(cases,
			struct{ script, want string }{"curl -sS --max-time 20 http://example.com/", "the sandbox blocked network access"},
			struct{ script, want string }{fmt.Sprintf("curl -sS --max-time 20 http://127.0.0.1:%d/", port), "the sandbox blocked network access"},
		)
	}
	if _, err := execLookPath("python3"); err == nil {
		cases = append(cases, struct{ script, want string }{
			`python3 -c 'open("` + escaped + `", "w")'`, "the sandbox blocked writing " + escaped,
		})
	}
	for _, tc := range cases {
		r := w.run(t, w.policy, w.ws, tc.script)
		what, ok := sandbox.Blocked([]byte(r.out), r.code, w.policy)
		if tc.want == "" {
			assert.False(t, ok, "%s: output %q gave %q", tc.script, r.out, what)
			continue
		}
		assert.True(t, ok, "%s: output %q", tc.script, r.out)
		assert.Equal(t, tc.want, what, "%s: output %q", tc.script, r.out)
	}
}

func TestBlockedMessages(t *testing.T) {
	p := sandbox.Policy{Workspace: "/w", Home: "/home/u"}
	allow := p
	allow.Network = sandbox.NetworkAllow
	for _, tc := range []struct {
		out  string
		p    sandbox.Policy
		want string
	}{
		{"touch: cannot touch '/home/u/x': Read-only file system\n", p, "the sandbox blocked writing /home/u/x"},
		{"touch: cannot touch ‘/home/u/x y’: Read-only file system\n", p, "the sandbox blocked writing /home/u/x y"},
		{"bash: line 1: /home/u/x: Read-only file system\n", p, "the sandbox blocked writing /home/u/x"},
		{"OSError: [Errno 30] Read-only file system: '/home/u/x'\n", p, "the sandbox blocked writing /home/u/x"},
		{"error: could not lock config file .git/config: Read-only file system\n", p, "the sandbox blocked writing .git/config"},
		{"sed: couldn't edit /etc/hosts: not a regular file\nRead-only file system\n", p, "the sandbox blocked a write outside the workspace"},
		{"cat: /home/u/.ssh/id_rsa: Permission denied\n", p, "the sandbox blocked reading /home/u/.ssh/id_rsa"},
		{"PermissionError: [Errno 13] Permission denied: '/w/.env'\n", p, "the sandbox blocked reading /w/.env"},
		{"cat: /w/src/main.go: Permission denied\n", p, ""}, // an ordinary permission problem
		{"cat: /var/log/btmp: Permission denied\n", p, ""},
		{"cat: /etc/shadow: Permission denied\n", p, "the sandbox blocked reading /etc/shadow"},
		{"bash: ./run.sh: Permission denied\n", p, ""},
		{"bash: line 1: /home/u/.ssh/config: Permission denied\n", p, "the sandbox blocked access to /home/u/.ssh/config"},
		{"sh: 1: cannot create /w/.env: Permission denied\n", p, "the sandbox blocked writing /w/.env"},
		{"curl: (6) Could not resolve host: example.com\n", p, "the sandbox blocked network access"},
		{"fatal: unable to access 'https://github.com/a/b/': Could not resolve host: github.com\n", p, "the sandbox blocked network access"},
		{"dial tcp: lookup proxy.golang.org: Temporary failure in name resolution\n", p, "the sandbox blocked network access"},
		{"curl: (6) Could not resolve host: example.com\n", allow, ""},
		{"cat: /w/typo.go: No such file or directory\n", p, ""},
		{"mkdir: cannot create directory ‘/home/u/d’: Read-only file system\n", p, "the sandbox blocked writing /home/u/d"},
		{"bwrap: Can't create file at /home/u/.ssh/x: Read-only file system\n", p, "the sandbox could not start: Can't create file at /home/u/.ssh/x: Read-only file system"},
		{"go: failed to initialize build cache at /home/u/.cache/go-build: mkdir /home/u/.cache/go-build: read-only file system\n", p, "the sandbox blocked writing /home/u/.cache/go-build"},
		{"npm ERR! code EROFS\nnpm ERR! rofs EROFS: read-only file system, mkdir '/home/u/.npm/_cacache'\n", p, "the sandbox blocked writing /home/u/.npm/_cacache"},
		{"", p, ""},
	} {
		what, ok := sandbox.Blocked([]byte(tc.out), 1, tc.p)
		assert.Equal(t, tc.want, what, tc.out)
		assert.Equal(t, tc.want != "", ok, tc.out)
	}
	_, ok := sandbox.Blocked([]byte("touch: cannot touch '/home/u/x': Read-only file system\n"), 0, p)
	assert.False(t, ok, "a command that exited 0 was not blocked")
}

// Blocked reads only the head and tail of a large output.
func TestBlockedScansHeadAndTail(t *testing.T) {
	p := sandbox.Policy{Workspace: "/w", Home: "/home/u"}
	filler := strings.Repeat("compiling something harmless\n", 100000)
	msg := "touch: cannot touch '/home/u/x': Read-only file system\n"
	for _, out := range []string{msg + filler, filler + msg} {
		what, ok := sandbox.Blocked([]byte(out), 1, p)
		assert.True(t, ok)
		assert.Equal(t, "the sandbox blocked writing /home/u/x", what)
	}
	_, ok := sandbox.Blocked([]byte(filler+msg+filler), 1, p)
	assert.False(t, ok, "the middle of a large output is not read")
}
