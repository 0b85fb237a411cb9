package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStoreTrustPerWorkspaceAndHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "magenta", StoreFile)
	s := NewStore(path)
	if ok, err := s.Trusted("/ws", "h1"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	if err := s.Trust("/ws", "h1"); err != nil {
		t.Fatal(err)
	}
	again := NewStore(path) // another session reads it back
	if ok, _ := again.Trusted("/ws", "h1"); !ok {
		t.Fatal("trust not remembered")
	}
	if ok, _ := again.Trusted("/ws", "h2"); ok {
		t.Fatal("a changed file is trusted")
	}
	if ok, _ := again.Trusted("/other", "h1"); ok {
		t.Fatal("another workspace is trusted")
	}
	if err := again.Forget("/ws"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Trusted("/ws", "h1"); ok {
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
	if ok, err := s.Trusted("/ws", "h"); ok || err == nil {
		t.Fatalf("malformed store: %v %v", ok, err)
	}
	if err := s.Trust("/ws", "h"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Trusted("/ws", "h"); !ok || err != nil {
		t.Fatalf("after trust: %v %v", ok, err)
	}
}
