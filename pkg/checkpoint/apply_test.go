package checkpoint

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// One target cannot be written (its parent is a regular file): the error
// names it and nothing at all changed, no temporary file is left.
func TestApplyAllOrNothingStaging(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "now\n")
	write(t, ws, "blocker", "a file\n")
	write(t, ws, "gone.txt", "created since\n")
	before := diskState(t, ws)
	p := Plan{Files: []FileRestore{
		{Path: "a.txt", Content: []byte("old\n"), Mode: 0o644},
		{Path: "blocker/c.txt", Content: []byte("c\n"), Mode: 0o644},
		{Path: "gone.txt", Delete: true},
	}}
	err := ApplyToDisk(ws, p)
	if err == nil || !strings.Contains(err.Error(), "blocker/c.txt") || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("err %v", err)
	}
	if after := diskState(t, ws); !reflect.DeepEqual(after, before) {
		t.Fatalf("changed:\n%q\n%q", after, before)
	}
}

// A failure after some files were already moved in is undone: moved
// files come back, new files and created directories go.
func TestApplyUndo(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "now\n")
	write(t, ws, "gone.txt", "created since\n")
	write(t, ws, "z.txt", "z now\n")
	os.Symlink("a.txt", filepath.Join(ws, "link"))
	before := diskState(t, ws)
	p := Plan{Files: []FileRestore{
		{Path: "a.txt", Content: []byte("old\n"), Mode: 0o755},
		{Path: "gone.txt", Delete: true},
		{Path: "link", Symlink: "z.txt", Mode: os.ModeSymlink | 0o777},
		{Path: "new/dir/b.txt", Content: []byte("b\n"), Mode: 0o644},
		{Path: "z.txt", Content: []byte("z old\n"), Mode: 0o644},
	}}
	testHookRename = func(rel string) error {
		if rel == "z.txt" {
			return errors.New("injected failure")
		}
		return nil
	}
	defer func() { testHookRename = nil }()
	err := ApplyToDisk(ws, p)
	if err == nil || !strings.Contains(err.Error(), "z.txt: injected failure") {
		t.Fatalf("err %v", err)
	}
	if after := diskState(t, ws); !reflect.DeepEqual(after, before) {
		t.Fatalf("not undone:\n%q\n%q", after, before)
	}
	testHookRename = nil
	if err := ApplyToDisk(ws, p); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "+x:old\n", "link": "link:z.txt", "new": "dir", "new/dir": "dir",
		"new/dir/b.txt": "b\n", "z.txt": "z old\n"}
	if got := diskState(t, ws); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
}

// Bad paths and writes through symlinks are refused.
func TestApplyRefuses(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "out"))
	for _, p := range []string{"../x", "/abs", "a/../b", ".git/config", "sub/.GIT/hooks/x", "", "out/x"} {
		err := ApplyToDisk(ws, Plan{Files: []FileRestore{{Path: p, Content: []byte("x"), Mode: 0o644}}})
		if err == nil {
			t.Errorf("%q accepted", p)
		}
	}
	if err := ApplyToDisk(ws, Plan{Files: []FileRestore{{Path: "out/x", Delete: true}}}); err == nil {
		t.Error("delete through a symlink accepted")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatal("wrote outside the workspace")
	}
}

// A file that became a directory, and a directory that became a file,
// are both restored; directories left empty by deleted files go.
func TestRestoreTypeChanges(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "x", "was a file\n")
	write(t, ws, "y/inner", "was a dir\n")
	s := openStore(t, ws, nil)
	before := diskState(t, ws)
	cp := snap(t, s, "g", "l", nil)
	os.Remove(filepath.Join(ws, "x"))
	write(t, ws, "x/now", "dir now\n")
	os.RemoveAll(filepath.Join(ws, "y"))
	write(t, ws, "y", "file now\n")
	write(t, ws, "made/by/agent.txt", "new\n")
	restore(t, s, cp.ID)
	if after := diskState(t, ws); !reflect.DeepEqual(after, before) {
		t.Fatalf("after\n%q\nwant\n%q", after, before)
	}
}

func TestParseIndexMatchesGit(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a", "1")
	write(t, ws, "d/"+strings.Repeat("n", 200), "22")
	write(t, ws, "d/e/f.sh", "333")
	os.Chmod(filepath.Join(ws, "d/e/f.sh"), 0o755)
	s := openStore(t, ws, nil)
	snap(t, s, "g", "l", nil)
	ix, err := readIndex(s.index)
	if err != nil {
		t.Fatal(err)
	}
	want := indexEntries{{"a", 0o100644, 1}, {"d/e/f.sh", 0o100755, 3}, {"d/" + strings.Repeat("n", 200), 0o100644, 2}}
	if !reflect.DeepEqual(ix, want) {
		t.Fatalf("%+v", ix)
	}
}

func FuzzParseIndex(f *testing.F) {
	ws := f.TempDir()
	write(f, ws, "a/b", "x")
	s := openStore(f, ws, nil)
	snap(f, s, "g", "l", nil)
	b, _ := os.ReadFile(s.index)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) { parseIndex(b) })
}

func FuzzParseDiff(f *testing.F) {
	f.Add([]byte(":100644 100644 aa bb M\x00a\tb\x00:000000 100644 00 cc A\x00n\x00-\t-\ta\tb\x001\t0\tn\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := parseDiff(b)
		if err == nil {
			for _, e := range es {
				if e.status == 0 {
					t.Fatal("entry without status")
				}
			}
		}
	})
}

func TestGitAvailable(t *testing.T) {
	out, err := exec.Command("git", "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "git version 2.") {
		t.Fatalf("git: %s %v", out, err)
	}
}

// A replaced file keeps its permission bits; the executable bit follows
// the plan.
func TestApplyKeepsPermissions(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, ".env", "SECRET=new\n")
	os.Chmod(filepath.Join(ws, ".env"), 0o600)
	write(t, ws, "tool", "#!/bin/sh\n")
	os.Chmod(filepath.Join(ws, "tool"), 0o640)
	p := Plan{Files: []FileRestore{
		{Path: ".env", Content: []byte("SECRET=old\n"), Mode: 0o644},
		{Path: "tool", Content: []byte("#!/bin/sh\necho\n"), Mode: 0o755},
		{Path: "fresh", Content: []byte("x"), Mode: 0o644},
	}}
	if err := ApplyToDisk(ws, p); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{".env": 0o600, "tool": 0o750, "fresh": 0o644} {
		fi, err := os.Stat(filepath.Join(ws, name))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", name, fi.Mode(), err, want)
		}
	}
}
