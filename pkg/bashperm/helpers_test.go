package bashperm

import (
	"os"
	"path/filepath"
	"testing"
)

// fixture builds the corpus README's workspace in a temp dir and returns an
// Env for it (HOME is another temp dir).
func fixture(t testing.TB) Env {
	t.Helper()
	ws := t.TempDir()
	home := t.TempDir()
	for _, f := range []string{"README.md", "main.go", "build.log", "files.txt", "notes.txt", "setup.sh", ".env", "src/main.go", "docs/README.md"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".git/hooks", ".github/workflows"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(ws, "link-to-etc")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	return Env{Cwd: ws, Workspace: ws, Home: home}
}

func mustNew(t testing.TB, cfg Config) *Checker {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
