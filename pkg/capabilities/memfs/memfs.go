package memfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// errNotDir is MkdirAll's error for a file in the way.
var errNotDir = errors.New("not a directory")

// FS is an in-memory file tree, safe for concurrent use.
type FS struct {
	mu    sync.RWMutex
	nodes map[string]*node // by clean absolute path; "/" always present
	last  time.Time        // latest ModTime handed out
}

// node is a file or a directory. A file's data is never mutated in place:
// WriteFile stores a fresh copy, so readers may share it.
type node struct {
	dir  bool
	data []byte
	mod  time.Time
}

var _ capabilities.FileIO = (*FS)(nil)

// New returns an FS holding only the root directory "/".
func New() *FS {
	f := &FS{nodes: map[string]*node{}}
	f.nodes["/"] = &node{dir: true, mod: f.now()}
	return f
}

// Put stores a file, creating its missing parent directories; it is for
// setting up tests and panics when path is relative, names a directory,
// or has a regular file among its parents.
func (f *FS) Put(p string, data []byte) {
	if !path.IsAbs(p) {
		panic(fmt.Sprintf("memfs.Put: %q is not absolute", p))
	}
	p = path.Clean(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.nodes[p]; ok && n.dir {
		panic(fmt.Sprintf("memfs.Put: %s is a directory", p))
	}
	if blocker, ok := f.mkdirs(path.Dir(p)); !ok {
		panic(fmt.Sprintf("memfs.Put: %s is a file, not a directory", blocker))
	}
	f.nodes[p] = &node{data: clone(data), mod: f.now()}
}

// Files returns a snapshot of every file's content by path (directories
// left out); changing it does not change the FS.
func (f *FS) Files() map[string][]byte {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make(map[string][]byte)
	for p, n := range f.nodes {
		if !n.dir {
			out[p] = clone(n.data)
		}
	}
	return out
}

// Open returns a reader of path's content as it is now.
func (f *FS) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	n, err := f.file(ctx, "open", p)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(n.data)), nil
}

// ReadFile returns a copy of path's content.
func (f *FS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	n, err := f.file(ctx, "read", p)
	if err != nil {
		return nil, err
	}
	return clone(n.data), nil
}

// WriteFile replaces path's content with a copy of data, creating the
// file when its parent directory exists.
func (f *FS) WriteFile(ctx context.Context, p string, data []byte) error {
	p, err := check(ctx, "write", p)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	if ok && n.dir {
		return fmt.Errorf("write %s: %w", p, capabilities.ErrIsDirectory)
	}
	parent, pok := f.nodes[path.Dir(p)]
	if !pok || !parent.dir {
		return fmt.Errorf("write %s: %w", p, capabilities.ErrNotExist)
	}
	now := f.now()
	if !ok {
		parent.mod = now
	}
	f.nodes[p] = &node{data: clone(data), mod: now}
	return nil
}

// Update replaces path's content with change(old) under the write lock,
// so concurrent Updates of one path apply one after the other.
func (f *FS) Update(ctx context.Context, p string, maxBytes int64, change func(old []byte) ([]byte, error)) error {
	p, err := check(ctx, "update", p)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.nodes[p]
	switch {
	case !ok:
		return fmt.Errorf("update %s: %w", p, capabilities.ErrNotExist)
	case n.dir:
		return fmt.Errorf("update %s: %w", p, capabilities.ErrIsDirectory)
	case int64(len(n.data)) > maxBytes:
		return fmt.Errorf("update %s: %w", p, &capabilities.TooLargeError{Size: int64(len(n.data)), Max: maxBytes})
	}
	data, err := change(clone(n.data))
	if err != nil {
		return fmt.Errorf("update %s: %w", p, err)
	}
	f.nodes[p] = &node{data: clone(data), mod: f.now()}
	return nil
}

// Stat describes path.
func (f *FS) Stat(ctx context.Context, p string) (capabilities.FileInfo, error) {
	n, err := f.lookup(ctx, "stat", p)
	if err != nil {
		return capabilities.FileInfo{}, err
	}
	return capabilities.FileInfo{Size: int64(len(n.data)), ModTime: n.mod, IsDir: n.dir}, nil
}

// Exists reports whether path is a file or a directory.
func (f *FS) Exists(ctx context.Context, p string) (bool, error) {
	_, err := f.lookup(ctx, "exists", p)
	if errors.Is(err, capabilities.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// MkdirAll creates path and its missing parents; a file at path or among
// its parents is an error, and then nothing is created.
func (f *FS) MkdirAll(ctx context.Context, p string) error {
	p, err := check(ctx, "mkdir", p)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if blocker, ok := f.mkdirs(p); !ok {
		if blocker == p {
			return fmt.Errorf("mkdir %s: %w", p, errNotDir)
		}
		return fmt.Errorf("mkdir %s: %s: %w", p, blocker, errNotDir)
	}
	return nil
}

// mkdirs creates the directories of clean absolute p, first checking
// that no file is in the way; it reports the first file found. Callers
// hold mu for writing.
func (f *FS) mkdirs(p string) (blocker string, ok bool) {
	var missing []string
	for q := p; ; q = path.Dir(q) {
		n, exists := f.nodes[q]
		if exists && !n.dir {
			blocker = q // keep going: report the outermost file
		} else if !exists {
			missing = append(missing, q)
		}
		if q == "/" {
			break
		}
	}
	if blocker != "" {
		return blocker, false
	}
	for i := len(missing) - 1; i >= 0; i-- {
		now := f.now()
		f.nodes[missing[i]] = &node{dir: true, mod: now}
		f.nodes[path.Dir(missing[i])].mod = now
	}
	return "", true
}

// file looks up a regular file for reading.
func (f *FS) file(ctx context.Context, op, p string) (node, error) {
	n, err := f.lookup(ctx, op, p)
	if err != nil {
		return node{}, err
	}
	if n.dir {
		return node{}, fmt.Errorf("%s %s: %w", op, path.Clean(p), capabilities.ErrIsDirectory)
	}
	return n, nil
}

// lookup returns a copy of path's node, taken under the lock (a
// directory's mod changes in place; a file's data never does). A path
// under a missing directory or under a file does not exist.
func (f *FS) lookup(ctx context.Context, op, p string) (node, error) {
	p, err := check(ctx, op, p)
	if err != nil {
		return node{}, err
	}
	f.mu.RLock()
	n, ok := f.nodes[p]
	var cp node
	if ok {
		cp = *n
	}
	f.mu.RUnlock()
	if !ok {
		return node{}, fmt.Errorf("%s %s: %w", op, p, capabilities.ErrNotExist)
	}
	return cp, nil
}

// check honours ctx and returns path cleaned, or an error when it is not
// absolute.
func check(ctx context.Context, op, p string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("%s %s: %w", op, p, err)
	}
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%s %s: not an absolute path", op, p)
	}
	return path.Clean(p), nil
}

// now returns the wall-clock time, never earlier than the last one
// returned. Callers hold mu for writing (or are New).
func (f *FS) now() time.Time {
	t := time.Now()
	if t.Before(f.last) {
		t = f.last
	}
	f.last = t
	return t
}

// clone copies b, never returning nil.
func clone(b []byte) []byte {
	return append(make([]byte, 0, len(b)), b...)
}
