package guard

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// okFS succeeds at everything and counts calls.
type okFS struct{ calls int }

func (f *okFS) Open(context.Context, string) (io.ReadCloser, error) {
	f.calls++
	return io.NopCloser(strings.NewReader("")), nil
}
func (f *okFS) ReadFile(context.Context, string) ([]byte, error) { f.calls++; return nil, nil }
func (f *okFS) WriteFile(context.Context, string, []byte) error  { f.calls++; return nil }
func (f *okFS) Stat(context.Context, string) (capabilities.FileInfo, error) {
	f.calls++
	return capabilities.FileInfo{}, nil
}
func (f *okFS) Update(context.Context, string, int64, func([]byte) ([]byte, error)) error {
	f.calls++
	return nil
}
func (f *okFS) Exists(context.Context, string) (bool, error) { f.calls++; return true, nil }
func (f *okFS) MkdirAll(context.Context, string) error       { f.calls++; return nil }

func TestFileDecisions(t *testing.T) {
	ws, logs, docs, outside := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, "escape")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\thooksPath = .husky\n"), 0o644))
	g := NewFileIO(&okFS{}, FileOptions{
		Workspace: ws, Readable: []string{logs},
		Rules:  []FileRule{{Path: docs, Read: true}, {Path: filepath.Join(ws, "private"), Secret: true}},
		Broker: approval.NewBroker(nil), Remembered: NewRemembered(),
	})
	tests := []struct {
		path   string
		write  bool
		reason string // "" = allowed
	}{
		{filepath.Join(ws, "src/main.go"), false, ""},
		{filepath.Join(ws, "src/main.go"), true, ""},
		{filepath.Join(ws, ".env"), false, "a secret (.env)"},
		{filepath.Join(ws, "certs/tls.key"), true, "a secret (tls.key)"},
		{filepath.Join(ws, ".git/config"), false, ""},
		{filepath.Join(ws, ".git/config"), true, "a git control path"},
		{filepath.Join(ws, ".git/commondir"), true, "a git control path"},
		{filepath.Join(ws, "api/.git/hooks/post-checkout"), true, "a git control path"},
		{filepath.Join(ws, "lib/.git"), true, "a git control path"},
		{filepath.Join(ws, ".husky/pre-commit"), true, "a git control path"},
		{filepath.Join(ws, ".husky/pre-commit"), false, ""},
		{filepath.Join(outside, "x"), false, "outside the workspace"},
		{filepath.Join(outside, "x"), true, "outside the workspace"},
		{filepath.Join(ws, "escape/x"), false, "outside the workspace"},
		{filepath.Join(logs, "threads/t/tools/r/bashCommand.log"), false, ""},
		{filepath.Join(logs, "x"), true, "outside the workspace"},
		{filepath.Join(docs, "guide.md"), false, ""},
		{filepath.Join(docs, "guide.md"), true, "outside the workspace"},
		{filepath.Join(ws, "private/notes"), false, "a rule marks secret"},
	}
	for _, tt := range tests {
		got := g.reason(resolvePath(tt.path), tt.write)
		if tt.reason == "" {
			assert.Empty(t, got, "%s write=%v", tt.path, tt.write)
		} else {
			assert.Contains(t, got, tt.reason, "%s write=%v", tt.path, tt.write)
		}
	}
}

func TestFileApprovalIsRememberedForTheThread(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	b := approval.NewBroker(nil)
	inner := &okFS{}
	g := NewFileIO(inner, FileOptions{Workspace: ws, Broker: b, Remembered: NewRemembered()})
	path := filepath.Join(outside, "notes.txt")
	ctx1 := capabilities.WithCall(context.Background(), capabilities.CallInfo{ThreadID: "t1", RequestID: "tu_1"})
	ctx2 := capabilities.WithCall(context.Background(), capabilities.CallInfo{ThreadID: "t2", RequestID: "tu_2"})

	go func() {
		req := answerNext(t, b, approval.Allow)
		assert.Equal(t, "tu_1", req.ToolUseID)
		assert.True(t, req.NoAlways, "files have YES and NO only")
		assert.Equal(t, KindFileRead, req.Kind)
	}()
	_, err := g.ReadFile(ctx1, path)
	require.NoError(t, err)
	_, err = g.Stat(ctx1, path)
	require.NoError(t, err, "remembered for thread t1")

	go answerNext(t, b, approval.Deny)
	_, err = g.ReadFile(ctx2, path)
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied, "another thread asks again")
	assert.Equal(t, 2, inner.calls)

	ctx3, cancel := context.WithTimeout(ctx1, 50*time.Millisecond)
	defer cancel()
	err = g.WriteFile(ctx3, path, []byte("x"))
	assert.ErrorIs(t, err, capabilities.ErrPermissionDenied, "a write asks separately; abort declines")
}

// beneathFS records the confinement each write carried.
type beneathFS struct {
	okFS
	got []capabilities.Beneath
}

func (f *beneathFS) record(ctx context.Context) {
	b, _ := capabilities.BeneathFrom(ctx)
	f.got = append(f.got, b)
}

func (f *beneathFS) WriteFile(ctx context.Context, _ string, _ []byte) error {
	f.record(ctx)
	return nil
}

func (f *beneathFS) Update(ctx context.Context, _ string, _ int64, _ func([]byte) ([]byte, error)) error {
	f.record(ctx)
	return nil
}

func (f *beneathFS) MkdirAll(ctx context.Context, _ string) error {
	f.record(ctx)
	return nil
}

// Update is a write: a secret asks with the write kind. Writes in the
// workspace or under a write rule carry their root and the path as judged
// to the disk; an approved path elsewhere carries none.
func TestUpdateIsCheckedAndConfinedLikeAWrite(t *testing.T) {
	ws, docs, outside := realDir(t), realDir(t), realDir(t)
	b := approval.NewBroker(nil)
	inner := &beneathFS{}
	g := NewFileIO(inner, FileOptions{Workspace: ws, Rules: []FileRule{{Path: docs, Write: true}}, Broker: b, Remembered: NewRemembered()})
	ctx := capabilities.WithCall(context.Background(), capabilities.CallInfo{ThreadID: "t", RequestID: "tu"})
	keep := func(old []byte) ([]byte, error) { return old, nil }

	go func() {
		req := answerNext(t, b, approval.Deny)
		assert.Equal(t, KindFileWrite, req.Kind)
	}()
	assert.ErrorIs(t, g.Update(ctx, filepath.Join(ws, ".env"), 10, keep), capabilities.ErrPermissionDenied)

	require.NoError(t, g.Update(ctx, filepath.Join(ws, "src", "a.go"), 10, keep))
	require.NoError(t, g.WriteFile(ctx, filepath.Join(docs, "guide.md"), nil))
	require.NoError(t, g.MkdirAll(ctx, filepath.Join(ws, "new")))
	go answerNext(t, b, approval.Allow)
	require.NoError(t, g.WriteFile(ctx, filepath.Join(outside, "x"), nil))
	assert.Equal(t, []capabilities.Beneath{
		{Root: ws, Rel: filepath.Join("src", "a.go")},
		{Root: docs, Rel: "guide.md"},
		{Root: ws, Rel: "new"},
		{},
	}, inner.got)
}
