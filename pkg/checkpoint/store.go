package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Limits used when Options leaves them zero.
const (
	DefaultMaxFiles          = 100_000
	DefaultMaxBytes    int64 = 2 << 30  // 2 GiB
	DefaultMaxFileSize int64 = 10 << 20 // 10 MiB
)

// DefaultExcludes are gitignore patterns never captured, on top of the
// workspace's own .gitignore files: dependency trees, virtual
// environments, caches and compiled objects, which are large, rebuilt by
// tools and never edited by the agent. dist/, build/, target/ and vendor/
// are deliberately absent: they hold source in some projects (Go's
// vendor/, a build/ of scripts); projects that generate them ignore them
// in .gitignore, or the caller adds them to Options.Exclude.
var DefaultExcludes = []string{
	"node_modules/",
	".venv/",
	"venv/",
	"__pycache__/",
	"*.pyc",
	".mypy_cache/",
	".pytest_cache/",
	".ruff_cache/",
	".tox/",
	".direnv/",
	".terraform/",
	".gradle/",
	".next/",
	".cache/",
	"*.o",
	".DS_Store",
}

// Options configure a Store.
type Options struct {
	// Dir is the store's own directory, created 0700 if missing (for
	// example stdpath("data")/magenta/checkpoints/<WorkspaceKey>).
	Dir string
	// Workspace is the absolute root of the files captured.
	Workspace string
	// MaxFiles and MaxBytes bound the files a checkpoint may hold (zero:
	// DefaultMaxFiles, DefaultMaxBytes); a bigger workspace makes
	// Snapshot fail with *TooLargeError before anything is hashed.
	MaxFiles int
	MaxBytes int64
	// MaxFileSize is the largest file captured (zero: DefaultMaxFileSize);
	// larger ones are skipped and named in Checkpoint.Skipped.
	MaxFileSize int64
	// Exclude holds gitignore-style patterns excluded on top of
	// DefaultExcludes and the workspace's .gitignore files.
	Exclude []string
}

// Store is a private, content-addressed store of snapshots of one
// workspace. It is safe for concurrent use: operations are serialised by
// a per-store lock, and by a file lock across processes sharing Dir.
type Store struct {
	dir, gitDir, index, ws string
	opts                   Options
	sem                    chan struct{} // one operation at a time
	lockFile               *os.File
}

// Open opens the store in opts.Dir, creating it on first use.
func Open(opts Options) (*Store, error) {
	if !filepath.IsAbs(opts.Dir) || !filepath.IsAbs(opts.Workspace) {
		return nil, errors.New("checkpoint: Dir and Workspace must be absolute paths")
	}
	opts.Dir, opts.Workspace = filepath.Clean(opts.Dir), filepath.Clean(opts.Workspace)
	if fi, err := os.Stat(opts.Workspace); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("checkpoint: workspace %s is not a directory", opts.Workspace)
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	for _, p := range opts.Exclude {
		if strings.ContainsAny(p, "\n\r") {
			return nil, fmt.Errorf("checkpoint: exclude pattern %q spans lines", p)
		}
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Chmod(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	s := &Store{
		dir: opts.Dir, gitDir: filepath.Join(opts.Dir, "git"), index: filepath.Join(opts.Dir, "index"),
		ws: opts.Workspace, opts: opts, sem: make(chan struct{}, 1),
	}
	f, err := os.OpenFile(filepath.Join(opts.Dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	s.lockFile = f
	if err := s.init(); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint: open %s: %w", opts.Dir, err)
	}
	return s, nil
}

// Close releases the store's lock file. The Store must not be used after.
func (s *Store) Close() error { return s.lockFile.Close() }

// init creates the repository if needed and (re)writes its exclude and
// attributes files. A changed exclude list drops the index, so that files
// excluded now leave the next checkpoint (the index is only a cache).
func (s *Store) init() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		if _, err := s.git(ctx, gitCall{args: []string{"init", "-q", "--template=", "--shared=0600", s.gitDir}}); err != nil {
			return err
		}
	}
	info := filepath.Join(s.gitDir, "info")
	if err := os.MkdirAll(info, 0o700); err != nil {
		return err
	}
	var ex strings.Builder
	ex.WriteString("# written by magenta: checkpoint.DefaultExcludes, Options.Exclude, its own files\n")
	for _, p := range append(append([]string{}, DefaultExcludes...), s.opts.Exclude...) {
		ex.WriteString(p + "\n")
	}
	// ApplyToDisk's files of a restore in progress.
	ex.WriteString(restorePrefix + "*\n" + backupPrefix + "*\n")
	if rel, err := filepath.Rel(s.ws, s.dir); err == nil && filepath.IsLocal(rel) {
		ex.WriteString("/" + escapeGlob(filepath.ToSlash(rel)) + "/\n")
	}
	old, _ := os.ReadFile(filepath.Join(info, "exclude"))
	if string(old) != ex.String() {
		if err := os.Remove(s.index); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := writeFile600(filepath.Join(info, "exclude"), []byte(ex.String())); err != nil {
			return err
		}
	}
	return writeFile600(filepath.Join(info, "attributes"), []byte(attributes))
}

// escapeGlob quotes the characters gitignore patterns treat specially.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[]!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeFile600 replaces name with data, readable by the owner only.
func writeFile600(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// lock takes the store for one operation: the in-process semaphore, then
// the file lock shared with other processes. A git process killed by a
// cancelled context can leave index.lock behind; holding both locks, any
// such file is stale and is removed.
func (s *Store) lock(ctx context.Context) (func(), error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		err := unix.Flock(int(s.lockFile.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			<-s.sem
			return nil, fmt.Errorf("lock %s: %w", s.lockFile.Name(), err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			<-s.sem
			return nil, ctx.Err()
		}
	}
	for _, f := range []string{s.index + ".lock", s.overlayIndex() + ".lock"} {
		os.Remove(f)
	}
	return func() {
		unix.Flock(int(s.lockFile.Fd()), unix.LOCK_UN)
		<-s.sem
	}, nil
}

func (s *Store) overlayIndex() string { return filepath.Join(s.dir, "index.overlay") }

// WorkspaceKey names a workspace's store directory: its base name, made
// safe for a file name, and a short hash of the whole path.
func WorkspaceKey(absPath string) string {
	clean := filepath.Clean(absPath)
	sum := sha256.Sum256([]byte(clean))
	var b strings.Builder
	for _, r := range filepath.Base(clean) {
		if b.Len() >= 32 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		name = "root"
	}
	return name + "-" + hex.EncodeToString(sum[:6])
}
