package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
)

// remoteLinks stands for a remote machine's symlinks: Resolve rewrites a
// path whose prefix is a link (the longest wins), as the remote kernel
// would, and counts its calls.
type remoteLinks struct {
	mu    sync.Mutex
	links map[string]string
	calls int
	err   error
}

func (r *remoteLinks) resolve(_ context.Context, p string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.err != nil {
		return "", r.err
	}
	best := ""
	for link := range r.links {
		if (p == link || strings.HasPrefix(p, link+"/")) && len(link) > len(best) {
			best = link
		}
	}
	if best == "" {
		return p, nil
	}
	return r.links[best] + strings.TrimPrefix(p, best), nil
}

// recordFS is a memfs that records the paths it is asked for.
type recordFS struct {
	*memfs.FS
	mu    sync.Mutex
	paths []string
}

func (f *recordFS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	f.mu.Lock()
	f.paths = append(f.paths, p)
	f.mu.Unlock()
	return f.FS.ReadFile(ctx, p)
}

func (f *recordFS) WriteFile(ctx context.Context, p string, data []byte) error {
	f.mu.Lock()
	f.paths = append(f.paths, "write "+p)
	f.mu.Unlock()
	return f.FS.WriteFile(ctx, p, data)
}

// remoteGuard is a guarded FileIO over a "remote" memfs rooted at
// /home/dev/work whose questions are all answered no (and recorded).
func remoteGuard(t *testing.T, links map[string]string, o FileOptions) (*FileIO, *recordFS, *remoteLinks, *[]approval.Request) {
	t.Helper()
	var asked []approval.Request
	var mu sync.Mutex
	b := approval.NewBroker(nil)
	b.SetPolicy(func(_ context.Context, r approval.Request) (approval.Decision, string, bool) {
		mu.Lock()
		asked = append(asked, r)
		mu.Unlock()
		return approval.Deny, "test says no", true
	})
	inner := &recordFS{FS: memfs.New()}
	rl := &remoteLinks{links: links}
	if o.Workspace == "" {
		o.Workspace = "/home/dev/work"
	}
	o.Broker, o.Remembered, o.Resolve = b, NewRemembered(), rl.resolve
	return NewFileIO(inner, o), inner, rl, &asked
}

var toolCall = capabilities.WithCall(context.Background(), capabilities.CallInfo{ThreadID: "t1", RequestID: "tu_1"})

// A link planted in the remote workspace that leads to a secret in the
// remote home is judged where it leads: the read asks (here: no), and
// nothing is read.
func TestResolveRemoteLinkToASecretAsks(t *testing.T) {
	g, inner, _, asked := remoteGuard(t, map[string]string{"/home/dev/work/notes.txt": "/home/dev/.ssh/id_ed25519"}, FileOptions{})
	inner.Put("/home/dev/.ssh/id_ed25519", []byte("PRIVATE KEY"))
	inner.Put("/home/dev/work/notes.txt", []byte("what the link would show"))
	_, err := g.ReadFile(toolCall, "/home/dev/work/notes.txt")
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied)
	require.Len(t, *asked, 1)
	assert.Equal(t, "/home/dev/.ssh/id_ed25519", (*asked)[0].Subject)
	assert.Contains(t, (*asked)[0].Reason, "outside the workspace and a secret")
	assert.Empty(t, inner.paths, "nothing was read")
}

// A plain file of the workspace is read without asking, and the inner
// FileIO is asked for the path as judged; a link inside the workspace to
// another file there is read at its target.
func TestResolveReadsTheJudgedPath(t *testing.T) {
	g, inner, _, asked := remoteGuard(t, map[string]string{"/home/dev/work/current": "/home/dev/work/v2"}, FileOptions{})
	inner.Put("/home/dev/work/v2/a.txt", []byte("two"))
	got, err := g.ReadFile(toolCall, "/home/dev/work/current/a.txt")
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	assert.Equal(t, []string{"/home/dev/work/v2/a.txt"}, inner.paths)
	assert.Empty(t, *asked)
}

// The local disk plays no part: a local symlink at the workspace's path
// that leads out does not make a remote read ask, and a local file
// cannot lend the remote workspace a hooks path.
func TestResolveIgnoresTheLocalDisk(t *testing.T) {
	local, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(local, "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(local, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(local, ".git", "config"), []byte("[core]\n\thooksPath = tools\n"), 0o644))
	g, inner, _, asked := remoteGuard(t, nil, FileOptions{Workspace: local})
	inner.Put(filepath.Join(local, "link", "x"), []byte("remote"))
	inner.Put(filepath.Join(local, "tools", "README"), []byte("hooks"))
	_, err := g.ReadFile(toolCall, filepath.Join(local, "link", "x"))
	require.NoError(t, err, "remotely link is a plain directory")
	require.NoError(t, g.WriteFile(toolCall, filepath.Join(local, "tools", "pre-commit"), []byte("x")))
	assert.Empty(t, *asked)
}

// Writes into the remote .git/ ask, and so do writes into the hooks
// directory the remote .git/config names, read through the inner FileIO.
func TestResolveGitControlPathsAsk(t *testing.T) {
	g, inner, _, asked := remoteGuard(t, nil, FileOptions{})
	inner.Put("/home/dev/work/.git/config", []byte("[core]\n\thooksPath = .husky\n"))
	inner.Put("/home/dev/work/.husky/README", []byte("hooks"))
	inner.Put("/home/dev/work/src/README", []byte("code"))
	for _, p := range []string{"/home/dev/work/.git/config", "/home/dev/work/.husky/pre-commit"} {
		err := g.WriteFile(toolCall, p, []byte("[core]\n\tfsmonitor = evil\n"))
		assert.ErrorIs(t, err, capabilities.ErrPermissionDenied, p)
	}
	require.Len(t, *asked, 2)
	assert.Contains(t, (*asked)[0].Reason, "a git control path")
	assert.Contains(t, (*asked)[1].Reason, "a git control path")
	assert.Equal(t, "[core]\n\thooksPath = .husky\n", string(inner.Files()["/home/dev/work/.git/config"]))
	require.NoError(t, g.WriteFile(toolCall, "/home/dev/work/src/main.go", []byte("package main\n")), "an ordinary write goes ahead")
}

// A workspace that is itself reached through a link is judged by its
// resolution, which is computed once; a failure to resolve fails the
// access without asking or reading, and is tried again next time.
func TestResolveWorkspaceOnceAndFailures(t *testing.T) {
	g, inner, rl, asked := remoteGuard(t, map[string]string{"/home/dev/work": "/srv/work"}, FileOptions{})
	inner.Put("/srv/work/a.txt", []byte("a"))
	rl.err = errors.New("connection lost")
	_, err := g.ReadFile(toolCall, "/home/dev/work/a.txt")
	require.ErrorContains(t, err, "connection lost")
	assert.Empty(t, *asked)
	assert.Empty(t, inner.paths)

	rl.err = nil
	for range 3 {
		got, err := g.ReadFile(toolCall, "/home/dev/work/a.txt")
		require.NoError(t, err)
		assert.Equal(t, "a", string(got))
	}
	got, err := g.Refusing().ReadFile(toolCall, "/srv/work/a.txt")
	require.NoError(t, err, "the Refusing copy shares the resolved roots")
	assert.Equal(t, "a", string(got))
	assert.Equal(t, 1+1+3+1, rl.calls, "the failed try, the workspace once, then one per read")
	assert.Empty(t, *asked)
}

// Readable roots and rules are resolved remotely: a readable root that
// is a link grants nothing, a rule's path is taken where it leads.
func TestResolveRootsAndRules(t *testing.T) {
	g, inner, _, asked := remoteGuard(t, map[string]string{"/var/logs": "/home/dev/.ssh", "/docs": "/srv/docs"}, FileOptions{
		Readable: []string{"/var/logs", "/var/ok"},
		Rules:    []FileRule{{Path: "/docs", Read: true}},
	})
	inner.Put("/home/dev/.ssh/config", []byte("Host x"))
	inner.Put("/var/ok/run.log", []byte("log"))
	inner.Put("/srv/docs/guide.md", []byte("guide"))
	_, err := g.ReadFile(toolCall, "/var/ok/run.log")
	require.NoError(t, err)
	_, err = g.ReadFile(toolCall, "/srv/docs/guide.md")
	require.NoError(t, err, "the rule covers where /docs leads")
	_, err = g.ReadFile(toolCall, "/var/logs/config")
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied, "a linked readable root grants nothing")
	require.Len(t, *asked, 1)
	assert.Equal(t, "/home/dev/.ssh/config", (*asked)[0].Subject)
}
