package threadstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/config"
)

// Errors callers tell apart.
var (
	// ErrLocked: another process (or another open Writer) writes the thread.
	ErrLocked = errors.New("the thread is open in another editor")
	// ErrNotFound: no saved thread has the id.
	ErrNotFound = errors.New("no saved thread")
)

const (
	logExt     = ".jsonl"
	summaryExt = ".sum"
)

// maxIDLength bounds a thread id (a UUID is 36 characters long).
const maxIDLength = 128

// validID guards file names built from ids that came over RPC: 1 to
// maxIDLength ASCII letters, digits, '_' and '-', not starting with
// '_' or '-'.
func validID(id string) bool {
	return config.NameChars(id, maxIDLength) && id[0] != '_' && id[0] != '-'
}

// Store is one workspace's saved threads. Safe for concurrent use.
type Store struct {
	dir       string
	workspace string
	warn      func(string)
	warned    sync.Map // path → struct{}: each bad file is reported once
}

// WorkspaceKey names the directory of a workspace: its base name with
// anything but letters, digits, '.', '_' and '-' replaced, a dash, and
// the first 12 hex digits of the SHA-256 of the absolute path.
func WorkspaceKey(abs string) string {
	abs = filepath.Clean(abs)
	base := filepath.Base(abs)
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.TrimLeft(b.String(), "._")
	if name == "" {
		name = "root"
	}
	if len(name) > 40 {
		name = name[:40]
	}
	sum := sha256.Sum256([]byte(abs))
	return name + "-" + hex.EncodeToString(sum[:6])
}

// Dir is where the threads of workspace live under dataDir (Neovim's
// stdpath("data")).
func Dir(dataDir, workspace string) string {
	return filepath.Join(dataDir, "magenta", "threads", WorkspaceKey(workspace))
}

// Open returns the store of workspace (an absolute path) under dataDir,
// creating its directory. warn receives one message per bad file (nil:
// none are reported); it may be called from several goroutines at once.
func Open(dataDir, workspace string, warn func(string)) (*Store, error) {
	if dataDir == "" {
		return nil, fmt.Errorf("thread store: no data directory")
	}
	dir := Dir(dataDir, workspace)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("thread store: %w", err)
	}
	if warn == nil {
		warn = func(string) {}
	}
	return &Store{dir: dir, workspace: workspace, warn: warn}, nil
}

// Path returns the directory of the store.
func (s *Store) Path() string { return s.dir }

// Workspace returns the workspace the store belongs to.
func (s *Store) Workspace() string { return s.workspace }

func (s *Store) logPath(id string) string     { return filepath.Join(s.dir, id+logExt) }
func (s *Store) summaryPath(id string) string { return filepath.Join(s.dir, id+summaryExt) }

func checkID(id string) error {
	if !validID(id) {
		return fmt.Errorf("thread store: invalid thread id %q", id)
	}
	return nil
}

// warnOnce reports a bad file the first time it is seen.
func (s *Store) warnOnce(path string, err error) {
	if _, seen := s.warned.LoadOrStore(path, struct{}{}); !seen {
		s.warn(fmt.Sprintf("skipped the saved thread %s: %v", path, err))
	}
}

// Delete removes a saved thread. It fails with ErrLocked while a Writer
// (in this process or another) has the thread open.
func (s *Store) Delete(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	f, err := os.OpenFile(s.logPath(id), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w %q", ErrNotFound, id)
	}
	if err != nil {
		return err
	}
	if err := lock(f); err != nil {
		f.Close()
		return err
	}
	defer unlockClose(f)
	// Remove while holding the lock: a writer that opens the path after
	// this finds no file.
	_ = os.Remove(s.summaryPath(id))
	return os.Remove(s.logPath(id))
}

// Prune deletes the threads whose last activity (the log's modification
// time) is older than maxAge, skipping those open somewhere. It returns
// how many it deleted.
func (s *Store) Prune(maxAge time.Duration, now time.Time) int {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), logExt)
		if !ok || checkID(id) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) <= maxAge {
			continue
		}
		if s.Delete(id) == nil {
			n++
		}
	}
	return n
}
