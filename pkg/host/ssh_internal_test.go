package host

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
	"github.com/magenta-nvim/magenta/pkg/config"
)

// Words that make a command the checker allows ask on a remote machine.
func TestRemoteWordsReason(t *testing.T) {
	for _, tt := range []struct {
		command string
		asks    string // "" = no reason
	}{
		{"ls -la", ""},
		{"cat README.md | wc -l", ""},
		{"grep -n 'func main' main.go", ""},
		{"git status", "runs git"},
		{"/usr/bin/git log -p", "runs git"},
		{`g\it status`, "runs git"},
		{`g""it status`, "runs git"},
		{`"gi"'t' diff`, "runs git"},
		{`sh -c "git status"`, "runs git"},
		{"echo status | xargs git", "runs git"},
		{"ls .git", ""},
		{"cat digit.txt gitignore.md", ""},
		{`$'\x67it' status`, "computed when it runs"},
		{"echo $HOME", "computed when it runs"},
		{"cat $(echo x)", "computed when it runs"},
		{`echo "$x"`, "computed when it runs"},
		{"ls (", "does not parse"},
	} {
		got := remoteWordsReason(tt.command)
		if tt.asks == "" {
			assert.Empty(t, got, tt.command)
		} else {
			assert.Contains(t, got, tt.asks, tt.command)
		}
	}
}

// The listing of the remote workspace: links that stay inside and name
// no secret pass; links out, to a secret, climbing through a name, and
// secrets themselves ask; so do a truncated or garbled listing.
func TestListingReason(t *testing.T) {
	const ws = "/home/dev/work"
	for _, tt := range []struct {
		name, listing, asks string
	}{
		{"clean", ws + "\nN.\nN./src\nN./src/main.go\nL./current\tsrc\nL./bin/tool\t../src/tool.sh\nL./abs\t/home/dev/work/src\n", ""},
		{"empty workspace", ws + "\nN.\n", ""},
		{"link out, absolute", ws + "\nN.\nL./notes.txt\t/home/dev/.ssh/id_ed25519\n", "leading out of it (notes.txt → /home/dev/.ssh/id_ed25519)"},
		{"link out, relative", ws + "\nN.\nL./up\t../../etc\n", "leading out of it"},
		{"link to the workspace's parent", ws + "\nL./d/p\t../..\n", "leading out of it"},
		{"link climbing through a name", ws + "\nL./a\tb/../x\n", "cannot follow there"},
		{"link to a secret inside", ws + "\nN./.env\nL./cfg\t.env\n", "secret"},
		{"secret", ws + "\nN.\nN./config/.env\n", "holds a secret (config/.env)"},
		{"key file", ws + "\nN./deploy/server.pem\n", "holds a secret"},
		{"name with a line break", ws + "\nN./a\nb\n", "line break"},
		{"link line without a target", ws + "\nL./x\n", "could not be listed"},
		{"no workspace line", "", "could not be listed"},
		{"relative workspace line", "work\nN.\n", "could not be listed"},
	} {
		got := listingReason(ws, []byte(tt.listing))
		if tt.asks == "" {
			assert.Empty(t, got, tt.name)
		} else {
			assert.Contains(t, got, tt.asks, tt.name)
		}
	}
	var big strings.Builder
	big.WriteString(ws + "\n")
	for range remoteCheckEntries + 1 {
		big.WriteString("N./f\n")
	}
	assert.Contains(t, listingReason(ws, []byte(big.String())), "too many to check")
}

// asked records the approval requests a broker got and answers each no.
type asked struct {
	mu   sync.Mutex
	reqs []approval.Request
}

func (a *asked) policy(_ context.Context, r approval.Request) (approval.Decision, string, bool) {
	a.mu.Lock()
	a.reqs = append(a.reqs, r)
	a.mu.Unlock()
	return approval.Deny, "the test says no", true
}

// take returns the requests so far and forgets them.
func (a *asked) take() []approval.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.reqs
	a.reqs = nil
	return r
}

// Red team, against a real sshd: an ssh thread's files and commands go
// through the same checks as local ones, judged on the remote machine.
// A link planted in the workspace to a key in the remote home is not
// read (get_file's FileIO, grep, nor cat) without asking; a write to the
// remote .git/config asks; rm -rf asks; ls runs without asking — until a
// link leading out is planted, since the checker cannot follow it there.
// A missing directory or an unknown host makes no environment.
func TestSSHThreadRedTeam(t *testing.T) {
	srv := sshtest.Start(t)
	sshtest.Docker(t, "exec", "-u", "dev", srv.Container, "sh", "-c",
		"mkdir -p /home/dev/work/.git /home/dev/.ssh && printf 'PRIVATE KEY\\n' > /home/dev/.ssh/id_ed25519 && "+
			"printf '[core]\\n' > /home/dev/work/.git/config && printf 'hello\\n' > /home/dev/work/README.md")

	h := New(nil, Options{Editor: &recordingEditor{got: make(chan struct{}, 8)}, SSHConfig: srv.Config})
	t.Cleanup(h.Close)
	opts := config.Options{Shell: config.Shell{LogRoot: t.TempDir()}}
	checker, err := bashChecker(opts)
	require.NoError(t, err)
	h.checker.Store(checker)
	var a asked
	h.broker.SetPolicy(a.policy)

	env, err := h.sshEnvironment(context.Background(), opts, sshtest.Alias, "/home/dev/work")
	require.NoError(t, err)
	assert.Equal(t, "ssh:"+sshtest.Alias+" · /home/dev/work · "+sshBannerSafety, env.Banner())
	call := capabilities.WithCall(context.Background(), capabilities.CallInfo{ThreadID: "t1", RequestID: "tu_1"})
	run := func(command string) (*capabilities.ExecResult, error) {
		return env.Shell.Execute(call, command, capabilities.ExecOptions{ThreadID: "t1", RequestID: "tu_" + command})
	}
	output := func(res *capabilities.ExecResult) string {
		var lines []string
		for _, l := range append(append([]capabilities.OutputLine{}, res.Head...), res.Tail...) {
			lines = append(lines, l.Text)
		}
		return strings.Join(lines, "\n")
	}

	// A clean workspace: ls runs without asking.
	res, err := run("ls")
	require.NoError(t, err)
	assert.Contains(t, output(res), "README.md")
	assert.Empty(t, a.take(), "ls does not ask")

	// rm -rf asks (no): nothing is removed.
	_, err = run("rm -rf /home/dev/work/README.md")
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied)
	reqs := a.take()
	require.Len(t, reqs, 1)
	assert.Equal(t, "rm -rf /home/dev/work/README.md", reqs[0].Subject)
	assert.Equal(t, "hello", sshtest.Docker(t, "exec", srv.Container, "cat", "/home/dev/work/README.md"))

	// A write to the remote .git/config asks (no): it is unchanged.
	err = env.Files.WriteFile(call, "/home/dev/work/.git/config", []byte("[core]\n\tfsmonitor = /tmp/evil\n"))
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied)
	reqs = a.take()
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].Reason, "a git control path")
	assert.Equal(t, "[core]", sshtest.Docker(t, "exec", srv.Container, "cat", "/home/dev/work/.git/config"))

	// A link planted in the workspace to the remote key.
	sshtest.Docker(t, "exec", "-u", "dev", srv.Container, "ln", "-s", "/home/dev/.ssh/id_ed25519", "/home/dev/work/notes.txt")
	_, err = env.Files.ReadFile(call, "/home/dev/work/notes.txt")
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied)
	reqs = a.take()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/home/dev/.ssh/id_ed25519", reqs[0].Subject, "judged where the link leads")
	assert.Contains(t, reqs[0].Reason, "outside the workspace and a secret")

	// grep: the remote rg does not follow the link inside the tree, and
	// a search of the link itself, or of the remote home, asks (no).
	require.NotNil(t, env.Searcher, "the test image has rg")
	found, err := env.Searcher.Search(call, capabilities.SearchRequest{Pattern: "PRIVATE|hello", Path: "/home/dev/work", ThreadID: "t1", RequestID: "tu_g"})
	require.NoError(t, err)
	assert.Empty(t, a.take(), "a search of the workspace does not ask")
	var hits []string
	for _, f := range found.Files {
		hits = append(hits, f.Path)
	}
	assert.Equal(t, []string{"README.md"}, hits, "the key behind the link is not searched")
	for path, subject := range map[string]string{"/home/dev/work/notes.txt": "/home/dev/.ssh/id_ed25519", "/home/dev/.ssh": "/home/dev/.ssh"} {
		_, err = env.Searcher.Search(call, capabilities.SearchRequest{Pattern: "PRIVATE", Path: path, ThreadID: "t1", RequestID: "tu_g2"})
		require.ErrorIs(t, err, capabilities.ErrPermissionDenied, path)
		reqs = a.take()
		require.Len(t, reqs, 1, path)
		assert.Equal(t, subject, reqs[0].Subject, "judged on the remote machine")
	}

	for _, command := range []string{"cat notes.txt", "ls"} {
		_, err = run(command)
		require.ErrorIs(t, err, capabilities.ErrPermissionDenied, command)
		reqs = a.take()
		require.Len(t, reqs, 1, command)
		assert.Contains(t, reqs[0].Reason, "symbolic link leading out of it (notes.txt → /home/dev/.ssh/id_ed25519)", command)
	}

	// What cannot be used makes no environment, and says why.
	_, err = h.sshEnvironment(context.Background(), opts, sshtest.Alias, "/home/dev/no-such-dir")
	require.ErrorIs(t, err, capabilities.ErrNotExist)
	_, err = h.sshEnvironment(context.Background(), opts, "magenta-no-such-host.invalid", "")
	require.ErrorIs(t, err, sshenv.ErrUnreachable)
}
