package acp

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
)

// editor is a client's fs methods without the protocol: buffers hold
// unsaved text, everything else is read from and written to the disk as
// an editor would (following links). onRead runs before a read answers.
type editor struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []string
	onRead  func(path string)
	fail    error
	// onWrite runs before a write and after it ("" then); atomic saves
	// by renaming a new file over the old, as many editors do.
	onWrite func(path string)
	atomic  bool
}

func (e *editor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	e.reads = append(e.reads, p.Path)
	text, ok := e.buffers[p.Path]
	hook, fail := e.onRead, e.fail
	e.mu.Unlock()
	if fail != nil {
		return sdk.ReadTextFileResponse{}, fail
	}
	if hook != nil {
		hook(p.Path)
	}
	if ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	if hook != nil {
		hook("")
	}
	return sdk.ReadTextFileResponse{Content: string(data)}, err
}

func (e *editor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writes = append(e.writes, p.Path)
	if _, ok := e.buffers[p.Path]; ok {
		e.buffers[p.Path] = p.Content // held unsaved
		return sdk.WriteTextFileResponse{}, nil
	}
	if e.onWrite != nil {
		e.onWrite(p.Path)
		defer e.onWrite("")
	}
	if e.atomic {
		tmp := p.Path + ".tmp"
		if err := os.WriteFile(tmp, []byte(p.Content), 0o644); err != nil {
			return sdk.WriteTextFileResponse{}, err
		}
		return sdk.WriteTextFileResponse{}, os.Rename(tmp, p.Path)
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (e *editor) asked() (reads, writes []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.reads...), append([]string(nil), e.writes...)
}

func oneSession(context.Context) (sdk.SessionId, bool) { return "s", true }

var allFS = sdk.FileSystemCapability{ReadTextFile: true, WriteTextFile: true}

// The FileIO contract holds with a client whose buffers are all saved.
func TestClientFSContract(t *testing.T) {
	capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
		return newClientFS(localfs.New(), &editor{}, allFS, oneSession), t.TempDir()
	})
}

func resolvedTempDir(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return dir
}

// An unsaved buffer is what a read sees and what an Update changes; the
// disk keeps its text until the editor saves. Binary files, new files
// and a client that fails stay on the disk.
func TestClientFSBuffers(t *testing.T) {
	dir := resolvedTempDir(t)
	path := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(path, []byte("saved\n"), 0o644))
	ed := &editor{buffers: map[string]string{path: "unsaved\n"}}
	fs := newClientFS(localfs.New(), ed, allFS, oneSession)
	ctx := context.Background()

	got, err := fs.ReadFile(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "unsaved\n", string(got))
	r, err := fs.Open(ctx, path)
	require.NoError(t, err)
	got, _ = io.ReadAll(r)
	assert.Equal(t, "unsaved\n", string(got))

	require.NoError(t, fs.Update(ctx, path, 1<<20, func(old []byte) ([]byte, error) {
		assert.Equal(t, "unsaved\n", string(old))
		return []byte("edited\n"), nil
	}))
	assert.Equal(t, "edited\n", ed.buffers[path])
	disk, _ := os.ReadFile(path)
	assert.Equal(t, "saved\n", string(disk), "the editor has not saved")
	got, _ = fs.ReadFile(ctx, path)
	assert.Equal(t, "edited\n", string(got), "reads see the editor's text")

	// Too large for the caller: refused before change runs.
	err = fs.Update(ctx, path, 3, func([]byte) ([]byte, error) { t.Fatal("change ran"); return nil, nil })
	assert.ErrorIs(t, err, capabilities.ErrTooLarge)

	bin := filepath.Join(dir, "b.bin")
	require.NoError(t, os.WriteFile(bin, []byte("a\x00b"), 0o644))
	got, err = fs.ReadFile(ctx, bin)
	require.NoError(t, err)
	assert.Equal(t, "a\x00b", string(got))
	fresh := filepath.Join(dir, "new.txt")
	require.NoError(t, fs.WriteFile(ctx, fresh, []byte("new\n")))
	reads, writes := ed.asked()
	assert.NotContains(t, reads, bin, "a binary file is the disk's")
	assert.NotContains(t, writes, fresh, "a new file is the disk's")

	ed.fail = errors.New("no")
	got, err = fs.ReadFile(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "saved\n", string(got), "a client that fails: the disk")
}

// A path through a symlink, or a symlink itself, is never read or
// written through the client: the disk reads the judged file (the
// guard's Checked) and no other.
func TestClientFSLinksStayOnDisk(t *testing.T) {
	dir, outside := resolvedTempDir(t), resolvedTempDir(t)
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("disk secret\n"), 0o644))
	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink(secret, link))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	inner := filepath.Join(dir, "sub", "f.txt")
	require.NoError(t, os.WriteFile(inner, []byte("disk f\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "linkdir")))
	ed := &editor{buffers: map[string]string{secret: "client secret\n", inner: "client f\n"}}
	fs := newClientFS(localfs.New(), ed, allFS, oneSession)

	ctx := capabilities.WithChecked(context.Background(), capabilities.Checked{Path: secret})
	got, err := fs.ReadFile(ctx, link)
	require.NoError(t, err)
	assert.Equal(t, "disk secret\n", string(got))
	viaDir := filepath.Join(dir, "linkdir", "f.txt")
	ctx = capabilities.WithChecked(context.Background(), capabilities.Checked{Path: inner})
	got, err = fs.ReadFile(ctx, viaDir)
	require.NoError(t, err)
	assert.Equal(t, "disk f\n", string(got), "a link inside the workspace is the disk's too")
	// The guard judged another file than the path names: the disk.
	ctx = capabilities.WithChecked(context.Background(), capabilities.Checked{Path: secret})
	_, _ = fs.ReadFile(ctx, inner)
	ctx = capabilities.WithBeneath(context.Background(), capabilities.Beneath{Root: dir, Rel: "sub/f.txt"})
	require.NoError(t, fs.WriteFile(ctx, viaDir, []byte("written\n")))
	reads, writes := ed.asked()
	assert.Empty(t, reads)
	assert.Empty(t, writes)
	assert.Equal(t, "client secret\n", ed.buffers[secret])
}

// A directory swapped for a link while the client reads, and swapped
// back before it answers, is seen afterwards: the disk reads the file
// judged instead.
func TestClientFSSwapDuringRead(t *testing.T) {
	dir, outside := resolvedTempDir(t), resolvedTempDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside\n"), 0o644))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	path := filepath.Join(sub, "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("inside\n"), 0o644))
	swapped := false
	ed := &editor{}
	ed.onRead = func(p string) {
		switch {
		case p != "" && !swapped: // before the editor reads: swap
			require.NoError(t, os.Rename(sub, sub+".bak"))
			require.NoError(t, os.Symlink(outside, sub))
			swapped = true
		case p == "" && swapped: // after: swap back
			require.NoError(t, os.Remove(sub))
			require.NoError(t, os.Rename(sub+".bak", sub))
		}
	}
	fs := newClientFS(localfs.New(), ed, allFS, oneSession)
	ctx := capabilities.WithChecked(context.Background(), capabilities.Checked{Path: path})
	got, err := fs.ReadFile(ctx, path)
	require.NoError(t, err)
	assert.True(t, swapped)
	assert.Equal(t, "inside\n", string(got), "the client read through the link; the disk's judged file is returned")

	// Left swapped: the disk refuses to follow the link.
	swapped = false
	ed.onRead = func(p string) {
		if p != "" && !swapped {
			require.NoError(t, os.Rename(sub, sub+".bak"))
			require.NoError(t, os.Symlink(outside, sub))
			swapped = true
		}
	}
	_, err = fs.ReadFile(ctx, path)
	assert.ErrorIs(t, err, capabilities.ErrChangedWhileChecked)
}

// isText tells text from binary, a rune cut at the end of a head
// included.
func TestIsText(t *testing.T) {
	euro := "€" // three bytes
	for _, c := range []struct {
		in   string
		cut  bool
		want bool
	}{
		{"plain\n", false, true},
		{"a\x00b", false, false},
		{"\xff\xfe", false, false},
		{"price " + euro, false, true},
		{"price " + euro[:2], true, true},
		{"price " + euro[:2], false, false},
		{"price " + euro[:1], true, true},
		{"\x89PNG\r\n\x1a\n", true, false},
	} {
		assert.Equal(t, c.want, isText([]byte(c.in), c.cut), "%q cut=%v", c.in, c.cut)
	}
}

func FuzzIsText(f *testing.F) {
	f.Add([]byte("hello €"), true)
	f.Add([]byte{0xe2, 0x82}, true)
	f.Fuzz(func(t *testing.T, b []byte, cut bool) {
		got := isText(b, cut)
		if !cut && len(b) <= clientMaxBytes && got != textForClient(b) {
			t.Fatalf("isText and textForClient disagree on %q", b)
		}
		if got && !cut && len(b) <= clientMaxBytes {
			// What goes to the client survives JSON unchanged.
			if string([]rune(string(b))) != string(b) {
				t.Fatalf("%q is not UTF-8", b)
			}
		}
	})
}

// A write through the client that a swap redirected fails, naming the
// change; an editor that saves by replacing the file does not.
func TestClientFSSwapDuringWrite(t *testing.T) {
	dir, outside := resolvedTempDir(t), resolvedTempDir(t)
	target := filepath.Join(outside, "f.txt")
	require.NoError(t, os.WriteFile(target, []byte("outside\n"), 0o644))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	path := filepath.Join(sub, "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("inside\n"), 0o644))
	ctx := capabilities.WithBeneath(context.Background(), capabilities.Beneath{Root: dir, Rel: "sub/f.txt"})

	ed := &editor{atomic: true}
	fs := newClientFS(localfs.New(), ed, allFS, oneSession)
	require.NoError(t, fs.WriteFile(ctx, path, []byte("saved atomically\n")))
	got, _ := os.ReadFile(path)
	assert.Equal(t, "saved atomically\n", string(got))
	require.NoError(t, fs.Update(ctx, path, 1<<20, func(old []byte) ([]byte, error) { return append(old, "more\n"...), nil }))
	got, _ = os.ReadFile(path)
	assert.Equal(t, "saved atomically\nmore\n", string(got))

	ed.atomic = false
	ed.onWrite = func(p string) {
		if p != "" {
			require.NoError(t, os.Rename(sub, sub+".bak"))
			require.NoError(t, os.Symlink(outside, sub))
		} else {
			require.NoError(t, os.Remove(sub))
			require.NoError(t, os.Rename(sub+".bak", sub))
		}
	}
	err := fs.WriteFile(ctx, path, []byte("redirected\n"))
	assert.ErrorIs(t, err, capabilities.ErrChangedWhileChecked)
	got, _ = os.ReadFile(target)
	assert.Equal(t, "redirected\n", string(got), "the editor wrote through the link (what the error warns of)")
}
