package bashperm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RepositoryReason finds an exec key in the repository above a
// subdirectory, and in a submodule's git directory; a clean repository,
// wherever it is, and no repository at all pass.
func TestRepositoryReason(t *testing.T) {
	mkrepo := func(t *testing.T, config string) string {
		t.Helper()
		top := t.TempDir()
		for _, d := range []string{".git/objects", ".git/refs", "sub/dir"} {
			if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		write := func(p, s string) {
			if err := os.WriteFile(filepath.Join(top, p), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(".git/HEAD", "ref: refs/heads/main\n")
		write(".git/config", "[core]\n\tbare = false\n"+config)
		return top
	}
	clean := mkrepo(t, "")
	if r := RepositoryReason(filepath.Join(clean, "sub", "dir")); r != "" {
		t.Errorf("clean repository: %q", r)
	}
	if r := RepositoryReason(t.TempDir()); r != "" {
		t.Errorf("no repository: %q", r)
	}
	planted := mkrepo(t, "[filter \"x\"]\n\tclean = touch /tmp/pwned\n")
	r := RepositoryReason(filepath.Join(planted, "sub", "dir"))
	if !strings.Contains(r, "filter.x.clean") || !strings.Contains(r, filepath.Join(planted, ".git", "config")) {
		t.Errorf("planted filter: %q", r)
	}
	mod := mkrepo(t, "")
	if err := os.MkdirAll(filepath.Join(mod, ".git", "modules", "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, ".git", "modules", "m", "config"), []byte("[core]\n\tfsmonitor = ./run-me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = RepositoryReason(mod)
	if !strings.Contains(r, "core.fsmonitor") || !strings.Contains(r, filepath.Join(mod, ".git", "modules", "m", "config")) {
		t.Errorf("submodule's config: %q", r)
	}
}
