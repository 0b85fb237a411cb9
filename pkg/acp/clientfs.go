package acp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/pathlock"
)

// clientMaxBytes is the largest file read or written through the client:
// a bigger one goes to the disk. The SDK reads a message of at most
// 10 MiB; JSON may escape a byte as six, so 1 MiB of text always fits.
// get_file shows 100 KiB at most anyway.
const clientMaxBytes = 1 << 20

// sniffBytes is how much of a file is looked at to tell text from
// binary before the client is asked for it.
const sniffBytes = 8 << 10

// textFiles is the part of the connection clientFS uses (the client's
// fs/read_text_file and fs/write_text_file).
type textFiles interface {
	ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error)
	WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error)
}

// clientFS is the FileIO of a session whose client offers its fs
// methods: the text of a regular file is read from and written through
// the client, so its unsaved buffers are the truth, as Neovim's are for
// the sidebar (package nvimbuf). Everything else — binary files, files
// over clientMaxBytes, new files, directories, Stat, Exists, MkdirAll —
// is the disk's.
//
// It sits under the permission guard, which judges every path first. A
// client reads and writes as the OS resolves the path, following
// symlinks, so the guard's promise that the file read or written is the
// one it judged (capabilities.Checked, Beneath) is kept here instead.
// The client runs on this machine (the session's cwd is local), so the
// path is judged on the local disk: every directory on it is watched
// (inotify) for a change of the entry the path goes through, then the
// path is walked from "/" without following links; it goes to the client
// only when no component is a symlink, it is the path the guard judged,
// and the file is a regular one. After the client answered, a change seen
// by the watch means the client may have read or written elsewhere: a
// read is then done again on the disk, which opens the judged file and
// no other; an Update's read too, before anything is written; a write
// fails with capabilities.ErrChangedWhileChecked — unless only the file's
// own entry changed (an editor's save replaces the file) and the file
// there now holds the text written. Anything that fails before the
// client is asked goes to the disk, which keeps the guard's guarantees
// itself. Off Linux (no inotify) everything is the disk's.
//
// Safe for concurrent use. Writes and Updates of one path are serialised
// (here; the client may still change the buffer between an Update's
// read and write, as the user typing in it would).
type clientFS struct {
	disk   capabilities.FileIO
	client textFiles
	// session names the session a call belongs to (false: none, and the
	// disk is used).
	session     func(context.Context) (sdk.SessionId, bool)
	read, write bool
	locks       pathlock.Table
}

var _ capabilities.FileIO = (*clientFS)(nil)

// newClientFS returns disk with reads and writes through client as far as
// the client offers them.
func newClientFS(disk capabilities.FileIO, client textFiles, caps sdk.FileSystemCapability, session func(context.Context) (sdk.SessionId, bool)) *clientFS {
	return &clientFS{disk: disk, client: client, session: session, read: caps.ReadTextFile, write: caps.WriteTextFile}
}

// errNotForClient: the path is not one the client may be asked about (a
// link on the way, another file than judged, not a regular file).
var errNotForClient = errors.New("not for the client")

// judged is the path the guard judged for this access: the Checked path
// of a read, the Beneath root and relative path of a write, or path
// itself when the guard set neither (an approved path outside every
// root, whose judged form is path resolved — which must then be path).
func judged(ctx context.Context, path string) string {
	if c, ok := capabilities.CheckedFrom(ctx); ok {
		return c.Path
	}
	if b, ok := capabilities.BeneathFrom(ctx); ok {
		return filepath.Join(b.Root, b.Rel)
	}
	return path
}

// access is one read or write through the client: its session, the
// watch on its path and the walk made under it. close it.
type access struct {
	sid   sdk.SessionId
	path  string
	watch *pathWatch
	walk  pathState
}

func (a *access) close() { a.watch.close() }

// forClient returns the access when it may go to the client: a session,
// the path watched, no link on the way, the judged path, a regular file
// of at most clientMaxBytes. nil sends it to the disk.
func (f *clientFS) forClient(ctx context.Context, path string) *access {
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) || judged(ctx, path) != path {
		return nil
	}
	sid, ok := f.session(ctx)
	if !ok {
		return nil
	}
	w, err := watchPath(path)
	if err != nil {
		return nil
	}
	st, err := walk(path)
	if err != nil || st.size > clientMaxBytes {
		w.close()
		return nil
	}
	return &access{sid: sid, path: path, watch: w, walk: st}
}

// unchanged reports whether nothing the path goes through changed since
// the access began, the file's entry included.
func (a *access) unchanged() bool {
	dirs, file := a.watch.changes()
	if dirs || file {
		return false
	}
	after, err := walk(a.path)
	return err == nil && a.walk.sameFile(after)
}

// Open implements capabilities.FileIO.
func (f *clientFS) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	data, ok, err := f.readText(ctx, path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return f.disk.Open(ctx, path)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// ReadFile implements capabilities.FileIO.
func (f *clientFS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	data, ok, err := f.readText(ctx, path)
	if err != nil || ok {
		return data, err
	}
	return f.disk.ReadFile(ctx, path)
}

// readText reads path's text through the client; false when the disk
// must read it instead.
func (f *clientFS) readText(ctx context.Context, path string) ([]byte, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if !f.read {
		return nil, false, nil
	}
	acc := f.forClient(ctx, path)
	if acc == nil {
		return nil, false, nil
	}
	defer acc.close()
	if !f.looksText(ctx, path) {
		return nil, false, nil
	}
	text, err := f.ask(ctx, acc.sid, path)
	if err != nil || text == nil {
		return nil, false, err
	}
	if !acc.unchanged() {
		slog.Warn("acp: a file's path changed while the client read it; read from the disk instead", "path", path)
		return nil, false, nil
	}
	return text, true, nil
}

// ask reads path through the client: nil (and no error) when the client
// failed, so the disk answers instead; an error only when ctx ended.
func (f *clientFS) ask(ctx context.Context, sid sdk.SessionId, path string) ([]byte, error) {
	resp, err := f.client.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sid, Path: filepath.Clean(path)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read %s: %w", path, ctx.Err())
		}
		slog.Info("acp: the client did not read a file; read from the disk", "path", path, "err", err)
		return nil, nil
	}
	return []byte(resp.Content), nil
}

// looksText reports whether path's first bytes, read from the disk (the
// judged file: the context carries the guard's Checked), are text the
// client can hold: no NUL, valid UTF-8. An image or a binary goes to the
// disk whole.
func (f *clientFS) looksText(ctx context.Context, path string) bool {
	r, err := f.disk.Open(ctx, path)
	if err != nil {
		return false // the disk will say what is wrong
	}
	defer r.Close()
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false
	}
	return isText(head[:n], n == sniffBytes)
}

// isText reports whether b is text: no NUL and valid UTF-8, except for a
// rune cut at the end when b is only the head of the file (cut).
func isText(b []byte, cut bool) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	if cut {
		b = trimCutRune(b)
	}
	return utf8.Valid(b)
}

// trimCutRune drops an incomplete rune at the end of b (a head cut in the
// middle of one).
func trimCutRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// textForClient reports whether data can be written through the client
// as it is: text (no NUL, valid UTF-8: JSON would mangle anything else)
// of at most clientMaxBytes.
func textForClient(data []byte) bool {
	return len(data) <= clientMaxBytes && isText(data, false)
}

// WriteFile implements capabilities.FileIO: an existing regular text
// file is written through the client; a new file, or binary content, on
// the disk. The client may hold the text unsaved: the disk then keeps
// the old content until the user saves, and reads through this FileIO
// (get_file, the next edit) see the client's text.
func (f *clientFS) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !f.write || !textForClient(data) {
		return f.disk.WriteFile(ctx, path, data)
	}
	unlock, err := f.locks.Lock(ctx, filepath.Clean(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer unlock()
	acc := f.forClient(ctx, path)
	if acc == nil {
		return f.disk.WriteFile(ctx, path, data)
	}
	defer acc.close()
	if !f.looksText(ctx, path) {
		return f.disk.WriteFile(ctx, path, data)
	}
	return f.send(ctx, acc, data)
}

// send writes data through the client and checks that the path still
// leads where it did: no directory entry on it changed, and if the
// file's own did (the editor saved by replacing it), the file there holds
// data.
func (f *clientFS) send(ctx context.Context, acc *access, data []byte) error {
	path := acc.path
	if _, err := f.client.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: acc.sid, Path: path, Content: string(data)}); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("write %s: %w", path, ctx.Err())
		}
		return fmt.Errorf("write %s: the editor did not write it: %w", path, err)
	}
	dirs, file := acc.watch.changes()
	changed := dirs
	if !dirs && file {
		// Read the file at the path as it is now, following no link.
		saved, err := f.disk.ReadFile(capabilities.WithChecked(ctx, capabilities.Checked{Path: path}), path)
		changed = err != nil || !bytes.Equal(saved, data)
	}
	if changed {
		return fmt.Errorf("write %s: %w (a directory on its path, or the file, was replaced while the editor wrote it; check where the text went)", path, capabilities.ErrChangedWhileChecked)
	}
	return nil
}

// Update implements capabilities.FileIO: the text is read through the
// client, changed and written back through it, under this FileIO's lock
// for path; what is not for the client (see WriteFile) is the disk's
// Update.
func (f *clientFS) Update(ctx context.Context, path string, maxBytes int64, change func(old []byte) ([]byte, error)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	if !f.read || !f.write {
		return f.disk.Update(ctx, path, maxBytes, change)
	}
	unlock, err := f.locks.Lock(ctx, filepath.Clean(path))
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	defer unlock()
	acc := f.forClient(ctx, path)
	if acc == nil {
		return f.disk.Update(ctx, path, maxBytes, change)
	}
	defer acc.close()
	if acc.walk.size > maxBytes || !f.looksText(ctx, path) {
		return f.disk.Update(ctx, path, maxBytes, change)
	}
	old, err := f.ask(ctx, acc.sid, path)
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if old == nil || !acc.unchanged() {
		// Nothing is written yet: the disk does it all, on the file
		// judged.
		return f.disk.Update(ctx, path, maxBytes, change)
	}
	if int64(len(old)) > maxBytes {
		return fmt.Errorf("update %s: %w", path, &capabilities.TooLargeError{Size: int64(len(old)), Max: maxBytes})
	}
	data, err := change(old)
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	if !textForClient(data) {
		return fmt.Errorf("update %s: the new content is not text the editor can hold (binary, or over %d bytes)", path, clientMaxBytes)
	}
	return f.send(ctx, acc, data)
}

// Stat implements capabilities.FileIO (the disk's: the size is the
// saved file's, not an unsaved buffer's).
func (f *clientFS) Stat(ctx context.Context, path string) (capabilities.FileInfo, error) {
	return f.disk.Stat(ctx, path)
}

// Exists implements capabilities.FileIO (the disk's).
func (f *clientFS) Exists(ctx context.Context, path string) (bool, error) {
	return f.disk.Exists(ctx, path)
}

// MkdirAll implements capabilities.FileIO (the disk's).
func (f *clientFS) MkdirAll(ctx context.Context, path string) error {
	return f.disk.MkdirAll(ctx, path)
}

// pathState is an absolute path as the local disk has it: the file's
// identity and size.
type pathState struct {
	file nodeState
	size int64
}

// nodeState is a file's device and inode.
type nodeState struct {
	dev, ino uint64
}

// walk describes path (absolute, clean) without following any link:
// errNotForClient when a component is a symlink, a directory on the way
// is not one, or the last is not a regular file.
func walk(path string) (pathState, error) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	cur := "/"
	for i, name := range parts {
		if name == "" {
			return pathState{}, errNotForClient
		}
		cur = filepath.Join(cur, name)
		fi, err := os.Lstat(cur)
		if err != nil {
			return pathState{}, err
		}
		last := i == len(parts)-1
		switch {
		case last && fi.Mode().IsRegular():
			node, ok := nodeOf(fi)
			if !ok {
				return pathState{}, errNotForClient
			}
			return pathState{file: node, size: fi.Size()}, nil
		case !last && fi.IsDir():
		default:
			return pathState{}, errNotForClient // a link, or not what it must be
		}
	}
	return pathState{}, errNotForClient
}

// sameFile reports whether b names the file a did.
func (a pathState) sameFile(b pathState) bool { return a.file == b.file }
