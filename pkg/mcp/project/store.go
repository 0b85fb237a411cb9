package project

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// StoreFile is the trust file's name under stdpath("data")/magenta/.
const StoreFile = "mcp-trust.json"

// Store remembers which project files the user trusted: per workspace
// path, the Fingerprint at the time (the SHA-256 of the file's content
// and the state of what its servers run). Safe for
// concurrent use; the file is replaced atomically (a temporary file
// renamed over it), so another Neovim never reads half of it.
type Store struct {
	path string
	mu   sync.Mutex
}

// NewStore returns the store kept at path.
func NewStore(path string) *Store { return &Store{path: path} }

// Path is where the store is kept.
func (s *Store) Path() string { return s.path }

type storeJSON struct {
	Version    int                   `json:"version"`
	Workspaces map[string]trustEntry `json:"workspaces"`
}

type trustEntry struct {
	Fingerprint
	Trusted time.Time `json:"trusted"`
}

// load reads the store; a missing file is empty, an unreadable or
// malformed one is an error (it is not overwritten blindly).
func (s *Store) load() (storeJSON, error) {
	st := storeJSON{Version: 1, Workspaces: map[string]trustEntry{}}
	data, err := os.ReadFile(s.path)
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s: %v", s.path, err)
	}
	if st.Workspaces == nil {
		st.Workspaces = map[string]trustEntry{}
	}
	return st, nil
}

// Trusted returns what the user last trusted in workspace (ok false:
// nothing). An entry written before what servers run was recorded has
// no Runs.
func (s *Store) Trusted(workspace string) (fp Fingerprint, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.load()
	if err != nil {
		return Fingerprint{}, false, err
	}
	e, ok := st.Workspaces[workspace]
	return e.Fingerprint, ok && e.File != "", nil
}

// Trust remembers that the user trusted fp in workspace (replacing what
// was trusted before).
func (s *Store) Trust(workspace string, fp Fingerprint) error {
	return s.update(func(st *storeJSON) { st.Workspaces[workspace] = trustEntry{Fingerprint: fp, Trusted: time.Now().UTC()} })
}

// Forget drops the workspace's trust.
func (s *Store) Forget(workspace string) error {
	return s.update(func(st *storeJSON) { delete(st.Workspaces, workspace) })
}

func (s *Store) update(change func(*storeJSON)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.load()
	if err != nil && !os.IsNotExist(err) {
		// A malformed store is replaced: it only ever held trust, and
		// losing it means asking again, never trusting more.
		st = storeJSON{Version: 1, Workspaces: map[string]trustEntry{}}
	}
	change(&st)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.path, append(data, '\n'))
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".mcp-trust-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
