package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trusted reports whether the store holds exactly fp for ws.
func trusted(s *Store, ws string, fp Fingerprint) bool {
	old, ok, err := s.Trusted(ws)
	return ok && err == nil && old.Digest() == fp.Digest()
}

func TestStoreTrustPerWorkspaceAndFingerprint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "magenta", StoreFile)
	s := NewStore(path)
	h1 := Fingerprint{File: "h1", Runs: map[string]string{"a: file x.sh": "x.sh\tsha256:1"}}
	if _, ok, err := s.Trusted("/ws"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	if err := s.Trust("/ws", h1); err != nil {
		t.Fatal(err)
	}
	again := NewStore(path) // another session reads it back
	if !trusted(again, "/ws", h1) {
		t.Fatal("trust not remembered")
	}
	if trusted(again, "/ws", Fingerprint{File: "h2", Runs: h1.Runs}) {
		t.Fatal("a changed file is trusted")
	}
	if trusted(again, "/ws", Fingerprint{File: "h1", Runs: map[string]string{"a: file x.sh": "x.sh\tsha256:2"}}) {
		t.Fatal("a changed script is trusted")
	}
	if trusted(again, "/other", h1) {
		t.Fatal("another workspace is trusted")
	}
	if err := again.Forget("/ws"); err != nil {
		t.Fatal(err)
	}
	if trusted(s, "/ws", h1) {
		t.Fatal("forgotten trust remains")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestStoreMalformedIsNotTrustAndIsReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), StoreFile)
	if err := os.WriteFile(path, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(path)
	if _, ok, err := s.Trusted("/ws"); ok || err == nil {
		t.Fatalf("malformed store: %v %v", ok, err)
	}
	if err := s.Trust("/ws", Fingerprint{File: "h"}); err != nil {
		t.Fatal(err)
	}
	if !trusted(s, "/ws", Fingerprint{File: "h"}) {
		t.Fatal("not trusted after trust")
	}
}

// A store written before what servers run was recorded (only the
// file's hash): a file with a command is asked again, saying why; one
// with URL servers only is still trusted.
func TestStoreOldEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), StoreFile)
	if err := os.WriteFile(path, []byte(`{"version":1,"workspaces":{"/ws":{"sha256":"h","trusted":"2026-01-01T00:00:00Z"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(path)
	if !trusted(s, "/ws", Fingerprint{File: "h"}) {
		t.Fatal("an old trust of a file without commands is lost")
	}
	now := Fingerprint{File: "h", Runs: map[string]string{"a: command x": "/bin/x\t"}}
	if trusted(s, "/ws", now) {
		t.Fatal("an old trust covers what runs")
	}
	old, _, _ := s.Trusted("/ws")
	if c := now.Changes(old); len(c) != 1 || !strings.Contains(c[0], "not recorded when you trusted it") {
		t.Fatalf("changes %q", c)
	}
}
