package checkpoint

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A touched but unchanged file is no change; a tracked file replaced by
// a FIFO is skipped (and listed as modified, content unknown).
func TestTouchedAndReplacedByFIFO(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "a\n")
	write(t, ws, "p", "was a file\n")
	s := openStore(t, ws, nil)
	cp := snap(t, s, "g", "l", nil)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(ws, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(ws, "p"))
	if err := syscall.Mkfifo(filepath.Join(ws, "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	cp2 := snap(t, s, "g", "l2", nil)
	if skipped(cp2)["p"] != reasonPipe {
		t.Fatalf("skipped %q", cp2.Skipped)
	}
	if got := treeOf(t, s, cp2.ID); !reflect.DeepEqual(got, map[string]string{"a.txt": "a\n"}) {
		t.Fatalf("tree %q", got)
	}
	if c := changesOf(t, s, cp.ID, nil); len(c) != 1 || c["p"] != (Change{"p", Modified, -1, -1}) {
		t.Fatalf("changes %+v", c)
	}
}

// A workspace whose .git is a file pointing at another repository (a
// worktree, a submodule checkout) is captured without reading or
// changing that repository.
func TestDotGitFile(t *testing.T) {
	elsewhere := t.TempDir()
	userGit(t, elsewhere, "init", "-q")
	userGit(t, elsewhere, "config", "core.fsmonitor", "false")
	before := hashTree(t, elsewhere)
	ws := t.TempDir()
	write(t, ws, ".git", "gitdir: "+filepath.Join(elsewhere, ".git")+"\n")
	write(t, ws, "a.txt", "a\n")
	s := openStore(t, ws, nil)
	cp := snap(t, s, "g", "l", nil)
	if got := treeOf(t, s, cp.ID); !reflect.DeepEqual(got, map[string]string{"a.txt": "a\n"}) {
		t.Fatalf("tree %q", got)
	}
	write(t, ws, "a.txt", "b\n")
	restore(t, s, cp.ID)
	if hashTree(t, elsewhere) != before || read(t, ws, ".git") == "" {
		t.Fatal("the other repository or the .git file changed")
	}
}

// A FIFO where git expects a .gitignore or .gitattributes would block
// git for ever: the snapshot fails, naming it, instead of hanging.
func TestBlockingGitFiles(t *testing.T) {
	old := stallCheck
	stallCheck = 100 * time.Millisecond
	defer func() { stallCheck = old }()
	for _, rel := range []string{".gitignore", "sub/.gitattributes"} {
		t.Run(rel, func(t *testing.T) {
			ws := t.TempDir()
			write(t, ws, "sub/a.txt", "a\n")
			if err := syscall.Mkfifo(filepath.Join(ws, rel), 0o644); err != nil {
				t.Fatal(err)
			}
			s := openStore(t, ws, nil)
			_, err := s.Snapshot(testCtx(t), "g", "l", nil)
			if err == nil || !strings.Contains(err.Error(), rel+" is a named pipe") {
				t.Fatalf("err %v", err)
			}
		})
	}
}

// Two Stores on one directory (two editors on one workspace) take turns
// through the file lock.
func TestTwoStoresOneDirectory(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a", "a")
	dir := filepath.Join(t.TempDir(), "store")
	s1 := openStore(t, ws, func(o *Options) { o.Dir = dir })
	s2 := openStore(t, ws, func(o *Options) { o.Dir = dir })
	errs := make(chan error, 20)
	for i := range 20 {
		s := s1
		if i%2 == 1 {
			s = s2
		}
		go func() {
			_, err := s.Snapshot(testCtx(t), "g", "l", nil)
			errs <- err
		}()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if l, err := s1.List(testCtx(t), "g"); err != nil || len(l) != 20 {
		t.Fatalf("%d checkpoints, %v", len(l), err)
	}
}

// A damaged index (it is only a cache) is dropped, not fatal.
func TestDamagedIndex(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a", "a")
	s := openStore(t, ws, nil)
	snap(t, s, "g", "l", nil)
	if err := os.WriteFile(s.index, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "b", "b")
	cp := snap(t, s, "g", "l", nil)
	if got := treeOf(t, s, cp.ID); !reflect.DeepEqual(got, map[string]string{"a": "a", "b": "b"}) {
		t.Fatalf("tree %q", got)
	}
}
